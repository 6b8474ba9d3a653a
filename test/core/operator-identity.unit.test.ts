import { App, Chart, Testing } from 'cdk8s';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { OperatorBundle } from '../../src/bundle/operator';
import { checkOperatorIdentity, OperatorIdentity, operatorNames } from '../../src/core/install/identity';
import { UserError } from '../../src/core/errors';
import { controllerImage } from '../../src/bundle/version';
import { PRODUCT_IDENTITY, PRODUCT_NAMES } from '../../src/product';
import { runController } from '../../src/commands/controller';
import { runDiff } from '../../src/commands/diff';
import { defineVersionedTestKind } from '../../src/testing/test-kind';
import { KindMetricNames, OBJECT_CONDITION_METRIC } from '../../src/core/contract/monitoring';
import { ruleGroups } from '../../src/monitoring/rules';

const ROOT = join(__dirname, '..', '..');
const ACME: OperatorIdentity = { name: 'acme-operators', namespace: 'acme-system', imageRepository: 'acme/operators-controller' };

/** The folders of the engine package (scripts/package/): what an operator built on it runs, synthesizes, monitors and scaffolds (the test kit, src/testing, names its own tests' operator). */
const ENGINE = ['src/core', 'src/schema', 'src/kube', 'src/runtime', 'src/commands', 'src/bundle', 'src/gitops', 'src/diff', 'src/monitoring', 'src/engine', 'src/scaffold'];
/** Where the engine may spell the product's name, and how often: the engine's own name (label domain, User-Agent, package) in identity.ts. */
const ALLOWED: Record<string, number> = { 'src/core/install/identity.ts': 1 };
const PRODUCT_NAME = /cdk8s[-_]operators/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** A kind with versions: its install has the webhook's Secret rules and certificates too. */
const converted = defineVersionedTestKind('Identified', { render: () => undefined });

/** Every object's identity in a bundle: kind, namespace and name. */
function ownedNames(identity: OperatorIdentity): Set<string> {
  const chart = new Chart(Testing.app() as App, 'test', { disableResourceNameHashes: true });
  new OperatorBundle(chart, 'operator', { operator: operatorNames(identity), kinds: [converted], webhookCertificates: 'cert-manager', sharding: true });
  return new Set(chart.toJson().map((o: { kind: string; metadata: { name: string; namespace?: string } }) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`));
}

describe('OperatorIdentity', () => {
  it('is the one place the engine spells the product name', () => {
    const found: Record<string, number> = {};
    for (const file of ENGINE.flatMap((dir) => sources(join(ROOT, dir)))) {
      const count = (readFileSync(file, 'utf8').match(PRODUCT_NAME) ?? []).length;
      if (count) found[relative(ROOT, file)] = count;
    }
    expect(found).toEqual(ALLOWED);
  });

  it('tags the image with the operator\u2019s own version when the identity names one', () => {
    expect(controllerImage(ACME)).toMatch(/^acme\/operators-controller:\d+\.\d+\.\d+/);
    expect(controllerImage({ ...ACME, version: '2.3.0' })).toBe('acme/operators-controller:2.3.0');
  });

  it('derives the product names the install has always had', () => {
    expect(PRODUCT_NAMES).toMatchObject({
      leaderLease: 'cdk8s-operators-leader',
      fieldManager: 'cdk8s-operators',
      webhookSecret: 'cdk8s-operators-webhook-tls',
      metricPrefix: 'cdk8s_operators_',
      objectConditionMetric: 'cdk8s_operators_object_condition',
      alertPrefix: 'Cdk8sOperators',
      metricsReaderRole: 'cdk8s-operators:metrics-reader',
      caInjector: 'cdk8s-operators-ca-injector',
    });
  });

  it('gives two operators installed with their defaults no object of the same name', () => {
    const product = ownedNames(PRODUCT_IDENTITY);
    const acme = ownedNames(ACME);
    // The kind's user roles (view, edit) and policies are named after the operator too; only the CRD's names are the kind's.
    expect([...acme].filter((name) => product.has(name))).toEqual([]);
    expect(acme).toContain('Namespace /acme-system');
    expect(acme).toContain('Role acme-system/acme-operators:leader-election');
    expect(acme).toContain('ClusterRole /acme-operators:metrics-reader');
    expect(acme).toContain('Certificate acme-system/acme-operators-webhook');
    const names = operatorNames(ACME);
    for (const key of ['leaderLease', 'fieldManager', 'webhookSecret', 'metricPrefix', 'caInjector', 'certificatesManager', 'storageMigrationManager', 'reportingController'] as const) {
      expect(names[key]).not.toBe(PRODUCT_NAMES[key]);
    }
  });

  it('names the engine\u2019s alerts and the series kinds\u2019 alerts select after the operator, for a kind of either contract', () => {
    const alert = { for: '5m', severity: 'warning' as const, summary: 'x.', description: 'x' };
    const listed = { ...converted, plural: 'listeds', singular: 'listed', monitoring: { alerts: [{ ...alert, alert: 'ListedNotReady', expr: `${OBJECT_CONDITION_METRIC}{kind="Listed"} == 1` }] } };
    const hooked = { ...converted, plural: 'hookeds', singular: 'hooked', monitoring: { alerts: (m: KindMetricNames) => [{ ...alert, alert: 'HookedBehind', expr: `${m.gauge('lag_seconds')} > 60 and ${m.objectCondition} == 1` }] } };
    const groups = ruleGroups([listed, hooked], operatorNames(ACME));
    expect(groups.map((g) => g.name)).toEqual(['acme-operators.engine', 'acme-operators.listeds', 'acme-operators.hookeds']);
    expect(groups[0].rules.map((r) => r.alert).filter((name) => !name.startsWith('AcmeOperators'))).toEqual([]);
    expect(groups[1].rules[0].expr).toBe('acme_operators_object_condition{kind="Listed"} == 1');
    expect(groups[2].rules[0].expr).toBe('acme_operators_hooked_lag_seconds > 60 and acme_operators_object_condition == 1');
    expect(JSON.stringify(groups)).not.toMatch(/cdk8s[-_]operators|Cdk8sOperators/);
  });

  it.each([
    [{ ...ACME, name: 'Acme' }, "OperatorIdentity.name: expected lower-case letters, digits and '-'"],
    [{ ...ACME, name: 'a'.repeat(40) }, 'OperatorIdentity.name: expected lower-case letters'],
    [{ ...ACME, namespace: 'acme_system' }, 'OperatorIdentity.namespace: expected a namespace name'],
    [{ ...ACME, imageRepository: 'acme/controller:1.0' }, 'OperatorIdentity.imageRepository: expected an image repository without tag or digest'],
    [{ ...ACME, version: '1.0@sha256:0' }, 'OperatorIdentity.version: expected an image tag'],
  ])('refuses %j, naming the field', (identity, message) => {
    expect(() => checkOperatorIdentity(identity)).toThrow(message);
  });

  it('names the operator\u2019s own command in the usage of controller and diff', async () => {
    const help: string[] = [];
    await runDiff(['--help'], ROOT, [], (text) => help.push(text), operatorNames(ACME));
    await runController(['--help'], {}, [], (text) => help.push(text), ACME);
    expect(help.map((text) => text.split('\n')[0])).toEqual(['usage: acme-operators diff [options]', 'usage: acme-operators controller [options]']);
  });

  it('refuses a bad --operator-name before the controller connects, naming the flag', async () => {
    await expect(runController(['--operator-name=Acme_Operators'], {}, [], () => undefined, PRODUCT_IDENTITY)).rejects.toThrow(new UserError(`--operator-name: expected lower-case letters, digits and '-' (at most 38 characters, alphanumeric at both ends), got "Acme_Operators"`));
  });
});
