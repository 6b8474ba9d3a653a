import * as k8s from '@kubernetes/client-node';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeObject } from '../../src/kube/objects';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../src/testing/cluster';
import { ControllerProcess, startController } from '../support/controller-process';
import { DIST, installCrds, loadYaml, testObjects } from '../support/manifests';
import { KINDS_LISTED } from '../support/kinds';
import { FakeRateProvider, startRateProvider } from '../support/rate-provider';
import { mayDo } from '../support/tenancy';

// `cdk8s-operators diff` as a reviewer runs it, against the test control plane with the real
// controller serving this file's namespace, so that "no change" means what the controller did.
const root = join(__dirname, '..', '..');
const bin = join(root, 'bin', 'cdk8s-operators');
const dir = mkdtempSync(join(tmpdir(), 'diff-'));
const kc = testKubeConfig();
const objects = testObjects();
let ns: string;
let provider: FakeRateProvider;
let controller: ControllerProcess;

type Resource = KubeObject & { status?: { observedGeneration?: number; conditions?: { type: string; status: string }[] } };

const exchangeRate = (name: string, spec: string) =>
  `apiVersion: operators.brennerm.github.io/v1\nkind: ExchangeRate\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec: ${spec}\n`;
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns } });

function fileWith(name: string, ...documents: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, documents.join('---\n'));
  return path;
}

function diff(...args: string[]) {
  const result = spawnSync(process.execPath, [bin, 'diff', ...args], { encoding: 'utf8', env: { ...process.env, KUBECONFIG: process.env.TEST_KUBECONFIG } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr.trim() };
}

/**
 * diff without blocking this process, for kinds with several versions: the API server converts
 * them through the test run's conversion webhook, which a synchronous spawn would hold up.
 */
function diffInBackground(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, 'diff', ...args], { env: { ...process.env, KUBECONFIG: process.env.TEST_KUBECONFIG } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr: stderr.trim() })));
}

/** Applies what a file declares, as Argo CD would, and waits until the controller has reconciled every resource of it. */
async function applyAndConverge(path: string): Promise<void> {
  const resources = loadYaml(path);
  for (const resource of resources) await objects.apply(resource);
  for (const resource of resources) {
    await eventually(`${resource.kind} ${resource.metadata.name} reconciled; controller log: ${controller.logFile}`, async () => {
      const live = await objects.get<Resource>(resource);
      const ready = live.status?.conditions?.find((c) => c.type === 'Ready');
      return ready?.status === 'True' && live.status?.observedGeneration === live.metadata.generation ? live : undefined;
    });
  }
}

beforeAll(async () => {
  await installCrds(objects);
  ns = await createTestNamespace(kc, 'diff');
  provider = await startRateProvider();
  controller = startController(
    ['--kubeconfig', process.env.TEST_KUBECONFIG!, '--namespace', ns, '--kinds', 'exchangerates,databases', '--leader-election=false', '--http-port', '0', '--exchange-rate-url', provider.url, '--exchange-rate-allow-http'],
    join(dir, 'controller.log'),
  );
});

afterAll(async () => {
  await controller?.stop();
  await provider?.close();
  if (ns) await deleteNamespace(kc, ns);
});

describe('cdk8s-operators diff against a live cluster', () => {
  it('shows a resource not yet in the cluster as created, with every child it will get', () => {
    const path = fileWith('new.yaml', exchangeRate('usd', '{currency: USD, configMapName: usd-eur}'));
    const { code, stdout, stderr } = diff('-f', path, '--kubeconfig', process.env.TEST_KUBECONFIG!);
    expect({ code, stderr }).toEqual({ code: 1, stderr: '' });
    expect(stdout).toContain(`ExchangeRate ${ns}/usd (${path}): created\n  ConfigMap ${ns}/usd-eur: created\n`);
  });

  it('shows no change once the controller has converged, exit code 0', async () => {
    const path = fileWith('converged.yaml', exchangeRate('usd', '{currency: USD, configMapName: usd-eur}'), exchangeRate('chf', '{currency: CHF}'));
    await applyAndConverge(path);
    const { code, stdout, stderr } = diff('-f', path);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain(`ExchangeRate ${ns}/usd (${path} (document 1)): unchanged\n  ConfigMap ${ns}/usd-eur: unchanged\n`);
    // The rate the controller fetched is in the ConfigMap, yet it is not a change: the diff renders without an observation.
    expect(stdout.trimEnd()).toMatch(/\n\n2 resources: 2 unchanged; their children: 2 unchanged$/);
  });

  it('shows a changed spec and the child fields it changes, and nothing is written', async () => {
    const before = await objects.get(configMap('usd-eur'));
    const path = fileWith('changed.yaml', exchangeRate('usd', '{currency: USD, base: GBP, configMapName: usd-eur}'), exchangeRate('chf', '{currency: CHF}'));
    const { code, stdout } = diff('-f', path);
    expect(code).toBe(1);
    expect(stdout).toContain(
      [
        `ExchangeRate ${ns}/usd (${path} (document 1)): changed`,
        '    spec.base: "EUR" -> "GBP"',
        `  ConfigMap ${ns}/usd-eur: changed`,
        '      data.base: "EUR" -> "GBP"',
        `ExchangeRate ${ns}/chf (${path} (document 2)): unchanged`,
      ].join('\n'),
    );
    expect((await objects.get(configMap('usd-eur'))).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('shows a child the new spec no longer renders as pruned, and agrees with the controller once applied', async () => {
    const path = fileWith('renamed.yaml', exchangeRate('usd', '{currency: USD, configMapName: dollars}'));
    const { code, stdout } = diff('-f', path);
    expect(code).toBe(1);
    expect(stdout).toContain(`ExchangeRate ${ns}/usd (${path}): changed\n    spec.configMapName: "usd-eur" -> "dollars"\n  ConfigMap ${ns}/dollars: created\n  ConfigMap ${ns}/usd-eur: pruned\n`);
    await applyAndConverge(path);
    await eventually('the controller to prune ConfigMap usd-eur', () => objects.get(configMap('usd-eur')).then(() => undefined, () => true));
    expect(diff('-f', path)).toMatchObject({ code: 0, stderr: '' });
  });

  it('never shows as pruned a child created once from what only the controller observes (a Database\u2019s generated credentials)', async () => {
    const path = fileWith('database.yaml', `apiVersion: stable.imaginedata.com/v1\nkind: Database\nmetadata:\n  name: orders\n  namespace: ${ns}\nspec: {name: orders, storage-size: 1Gi}\n`);
    for (const resource of loadYaml(path)) await objects.apply(resource);
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'orders-credentials', namespace: ns } };
    await eventually(`the controller to create the credentials; log ${controller.logFile}`, async () => ((await objects.find(secret)) ? true : undefined));
    const { stdout, stderr } = await diffInBackground('-f', path);
    expect(stderr).toBe('');
    expect(stdout).toContain(`StatefulSet ${ns}/orders: `);
    expect(stdout).not.toContain('orders-credentials');
  });

  it('shows as pruned exactly what the controller prunes: never the Jobs a CronJob made, nor a child kept on delete', async () => {
    // Its database is not named as it is: the log redacts every value of its Secrets, the database's name among them.
    const database = (spec: string) => `apiVersion: stable.imaginedata.com/v1\nkind: Database\nmetadata:\n  name: nightly\n  namespace: ${ns}\nspec: ${spec}\n`;
    const withBackups = fileWith('backups.yaml', database('{name: sales, storage-size: 1Gi, backup: {schedule: "@daily"}}'));
    for (const resource of loadYaml(withBackups)) await objects.apply(resource);
    const cronJob = { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'nightly-backup', namespace: ns } };
    const volume = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'nightly-backup', namespace: ns } };
    const made = await eventually(`the backup CronJob and its volume; log ${controller.logFile}`, async () => ((await objects.find(volume)) ? objects.find<KubeObject & { spec: { jobTemplate: { spec: object } } }>(cronJob) : undefined));
    // As the CronJob controller makes a Job from the template: the Database's labels, the CronJob its controller (suspended: no Pods).
    const jobName = 'nightly-backup-29000000';
    const ownerReferences = [{ apiVersion: 'batch/v1', kind: 'CronJob', name: made.metadata.name, uid: made.metadata.uid!, controller: true }];
    await objects.create({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: jobName, namespace: ns, labels: made.metadata.labels, ownerReferences }, spec: { ...made.spec.jobTemplate.spec, suspend: true } });

    // No backups and no final snapshot: neither the CronJob nor the volume is rendered any more.
    const withoutBackups = fileWith('no-backups.yaml', database('{name: sales, storage-size: 1Gi, deletionPolicy: Delete}'));
    const { stdout, stderr } = await diffInBackground('-f', withoutBackups);
    expect(stderr).toBe('');
    const shownPruned = stdout.split('\n').flatMap((line) => /^ {2}(\S+ \S+): pruned$/.exec(line)?.[1] ?? []);
    expect(shownPruned).toContain(`CronJob ${ns}/nightly-backup`);
    expect(shownPruned).not.toContain(`Job ${ns}/${jobName}`);
    expect(shownPruned).not.toContain(`PersistentVolumeClaim ${ns}/nightly-backup`);

    for (const resource of loadYaml(withoutBackups)) await objects.apply(resource);
    await eventually(`the controller to reconcile the new spec; log ${controller.logFile}`, async () => {
      const live = await objects.get<Resource>({ apiVersion: 'stable.imaginedata.com/v1', kind: 'Database', metadata: { name: 'nightly', namespace: ns } });
      return live.status?.observedGeneration === live.metadata.generation && !(await objects.find(cronJob)) ? true : undefined;
    });
    const prunedByController = controller.logs().flatMap((line) => (line.msg === 'pruned a child no longer rendered' && line.name === 'nightly' ? [String(line.child)] : []));
    expect(prunedByController.sort()).toEqual(shownPruned.sort());
    expect(await objects.find(volume)).toBeDefined();
  });

  it('reads what a synth wrote with --dist', () => {
    const instances = mkdtempSync(join(tmpdir(), 'diff-instances-'));
    writeFileSync(join(instances, 'rates.yaml'), [exchangeRate('usd', '{currency: USD, configMapName: dollars}'), exchangeRate('jpy', '{currency: JPY}')].join('---\n'));
    const out = mkdtempSync(join(tmpdir(), 'diff-dist-'));
    const synth = spawnSync('bash', [join(root, 'scripts', 'synth.sh'), '--instances', instances, '--output', out], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH}` },
    });
    expect(synth.stderr).toBe('');
    const { code, stdout } = diff('--dist', out);
    expect(code).toBe(1);
    expect(stdout).toContain(`ExchangeRate ${ns}/usd (${join(out, '2-instances.k8s.yaml')} (document 1)): unchanged\n  ConfigMap ${ns}/dollars: unchanged\n`);
    expect(stdout).toContain(`ExchangeRate ${ns}/jpy (${join(out, '2-instances.k8s.yaml')} (document 2)): created\n  ConfigMap ${ns}/jpy: created\n`);
  });

  it('works with an identity that may only read (the view role)', async () => {
    const viewer = 'diff-viewer';
    await objects.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: viewer, namespace: ns } });
    // The built-in view role, which gains our kinds when the bundle's role is aggregated into it.
    for (const role of loadYaml(join(DIST, '1-operator.k8s.yaml')).filter((o) => o.kind === 'ClusterRole' && o.metadata.name === 'cdk8s-operators:view')) await objects.apply(role);
    const bindings = [{
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${ns}-viewer-view` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'ServiceAccount', name: viewer, namespace: ns }],
    }];
    for (const binding of bindings) await objects.apply(binding);
    await eventually('the view role to gain ExchangeRates (ClusterRole aggregation)', async () => (await mayDo(objects, `system:serviceaccount:${ns}:${viewer}`, 'list', 'operators.brennerm.github.io', 'exchangerates', ns)) || undefined);
    try {
      const { status } = await objects.rest.request<{ status: { token: string } }>('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${viewer}/token`, {
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } },
      });
      const cluster = kc.getCurrentCluster()!;
      const config = new k8s.KubeConfig();
      config.loadFromOptions({ clusters: [cluster], users: [{ name: viewer, token: status.token }], contexts: [{ name: viewer, cluster: cluster.name, user: viewer }], currentContext: viewer });
      const kubeconfig = join(dir, 'viewer.kubeconfig');
      writeFileSync(kubeconfig, config.exportConfig(), { mode: 0o600 });
      const path = fileWith('viewer.yaml', exchangeRate('usd', '{currency: USD, configMapName: dollars}'));
      const result = diff('-f', path, '--kubeconfig', kubeconfig);
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
      expect(result.stdout).toContain(`ExchangeRate ${ns}/usd (${path}): unchanged\n  ConfigMap ${ns}/dollars: unchanged\n`);
    } finally {
      for (const binding of bindings) await objects.delete(binding);
    }
  });

  it.each([
    ['no input', [], /^cdk8s-operators diff: needs -f <file> \(or a folder, or - for standard input\) or --dist <dir>$/],
    ['an unknown flag', ['--bogus'], /^cdk8s-operators diff: unknown flag --bogus; see --help$/],
    ['a misspelt flag', ['--dst', 'dist'], /^cdk8s-operators diff: unknown flag --dst \(did you mean --dist\?\); see --help$/],
    ['a stray argument', ['-f', '-', 'extra'], /^cdk8s-operators diff: unexpected argument "extra"/],
    ['a missing kubeconfig', ['-f', '-', '--kubeconfig', '/nonexistent/kubeconfig'], /^cdk8s-operators diff: cannot load the kubeconfig \/nonexistent\/kubeconfig: ENOENT/],
    ['a dist folder without kustomization.yaml', ['--dist', '/nonexistent'], /^cdk8s-operators diff: cannot read \/nonexistent\/kustomization\.yaml: ENOENT/],
  ])('refuses %s with exit code 2', (_what, args, message) => {
    const result = spawnSync(process.execPath, [bin, 'diff', ...args], { encoding: 'utf8', input: '' });
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toMatch(message);
  });

  it('refuses a group no kind is served in, naming the kinds that exist, before asking the cluster anything', () => {
    const result = spawnSync(process.execPath, [bin, 'diff', '-f', '-', '--kubeconfig', '/nonexistent'], {
      encoding: 'utf8',
      input: `apiVersion: stable.imaginedata.org/v1\nkind: Database\nmetadata: {name: orders, namespace: ${'team-a'}}\nspec: {}\n`,
    });
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe(
      `cdk8s-operators diff: standard input: unknown kind Database in apiVersion stable.imaginedata.org/v1; expected one of ${KINDS_LISTED}, or beside them one of Namespace (v1), ConfigMap (v1)`,
    );
  });
});
