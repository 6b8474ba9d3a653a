import { App, Chart, Testing } from 'cdk8s';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { OperatorBundle } from '../../src/bundle/operator';
import { checkOperatorIdentity, OperatorIdentity, operatorNames } from '../../src/core/identity';
import { UserError } from '../../src/core/errors';
import { PRODUCT_IDENTITY, PRODUCT_NAMES } from '../../src/product';
import { runController } from '../../src/runtime/main';
import { defineVersionedTestKind } from '../support/test-kind';

const ROOT = join(__dirname, '..', '..');
const ACME: OperatorIdentity = { name: 'acme-operators', namespace: 'acme-system', imageRepository: 'acme/operators-controller' };

/** The folders of the engine: what an operator built on it runs and synthesizes. */
const ENGINE = ['src/core', 'src/kube', 'src/runtime', 'src/bundle', 'src/gitops', 'src/diff'];
/**
 * Where the engine may still spell the product's name, and how often: the engine's own name
 * (label domain, User-Agent, package) in identity.ts, and the condition metric the kinds'
 * alerts name (issue 40: alerts against the operator's prefix are left to do).
 */
const ALLOWED: Record<string, number> = { 'src/core/identity.ts': 1, 'src/core/monitoring.ts': 1 };
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

  it('derives the product names the install has always had', () => {
    expect(PRODUCT_NAMES).toMatchObject({
      leaderLease: 'cdk8s-operators-leader',
      fieldManager: 'cdk8s-operators',
      webhookSecret: 'cdk8s-operators-webhook-tls',
      metricPrefix: 'cdk8s_operators_',
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

  it.each([
    [{ ...ACME, name: 'Acme' }, "OperatorIdentity.name: expected lower-case letters, digits and '-'"],
    [{ ...ACME, name: 'a'.repeat(40) }, 'OperatorIdentity.name: expected lower-case letters'],
    [{ ...ACME, namespace: 'acme_system' }, 'OperatorIdentity.namespace: expected a namespace name'],
    [{ ...ACME, imageRepository: 'acme/controller:1.0' }, 'OperatorIdentity.imageRepository: expected an image repository without tag or digest'],
  ])('refuses %j, naming the field', (identity, message) => {
    expect(() => checkOperatorIdentity(identity)).toThrow(message);
  });

  it('refuses a bad --operator-name before the controller connects, naming the flag', async () => {
    await expect(runController(['--operator-name=Acme_Operators'], {}, [], () => undefined, PRODUCT_IDENTITY)).rejects.toThrow(new UserError(`--operator-name: expected lower-case letters, digits and '-' (at most 38 characters, alphanumeric at both ends), got "Acme_Operators"`));
  });
});
