import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crdName, servedIdentities } from '../../src/core/groups';
import { AnyKind } from '../../src/core/contract/kind';
import { convertObject, hasVersions } from '../../src/core/contract/versions';
import { KubeObject } from '../../src/kube/objects';
import { KINDS } from '../../src/kinds';
import { applyBundle, applyInOrder } from '../support/apply-bundle';
import { eventually } from '../../src/testing/cluster';
import { toolsBeforeAll } from '../support/go-tool';
import { etcdOf, storedApiVersion } from '../support/storage-migration';
import { ControllerProcess, startController } from '../support/controller-process';
import { DIST, loadYaml } from '../support/manifests';
import { LocalCluster, startLocalCluster } from '../support/operator-cluster';
import { ReadyWatch } from '../support/ready-watch';
import { Released, buildReleased } from '../support/released';
import { helm, helmBinary } from '../helm/helm';

toolsBeforeAll(helmBinary);

// The upgrade a user makes: an install of the last release that served v1 only (commit 9103402,
// the one before CopyratorRule and Database gained v2), with objects of every kind, upgraded to
// this checkout's dist/, once as README "Installing" applies it (server-side, CRDs first, then
// the kustomization in order) and once by `helm upgrade` (docs/install.md "Upgrading"). Each on
// a control plane of its own; the controllers run from source, the released one built from that
// commit (test/support/released.ts: needs the git history, as a full clone has), today's from
// this checkout, serving conversion on loopback (test/support/operator-cluster.ts). A watcher
// started before the upgrade records every status of every object. 110 s here on a quiet machine;
// 172-276 s (median of five runs 203 s) while other test runs shared its 2 cores (load 8-10).

const RELEASED_COMMIT = '9103402';
const RELEASE = 'cdk8s-operators';

type Condition = { type: string; status: string };
type Json = KubeObject & { metadata: KubeObject['metadata'] & { uid?: string; resourceVersion?: string; labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown>; status?: { conditions?: Condition[] }; [field: string]: unknown };
type Crd = KubeObject & { status?: { storedVersions?: string[]; conditions?: Condition[] } };

/** The kinds' identities (every group each is served in) that the release installed, and those of them with several versions now. */
let IDENTITIES: AnyKind[] = [];
let VERSIONED: AnyKind[] = [];
const kindOf = (o: KubeObject) => KINDS.find((kind) => kind.kind === o.kind)!;
const identityOf = (o: KubeObject) => IDENTITIES.find((i) => i.kind === o.kind && o.apiVersion?.startsWith(`${i.group}/`))!;
const inVersion = (o: KubeObject, version: string): KubeObject => ({ ...o, apiVersion: `${identityOf(o).group}/${version}` });
const name = (o: KubeObject) => `${o.apiVersion} ${o.kind} ${o.metadata.namespace}/${o.metadata.name}`;
const ready = (o: Json) => o.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
const crd = (identity: { plural: string; group: string }): KubeObject => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: crdName(identity) } });

/** The originals' own samples, in v1 as their users wrote them (CopyratorRule's fields beside spec; Database's storage-size), in every group. */
const ORIGINALS: KubeObject[] = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'originals' } },
  { apiVersion: 'test.com/v1', kind: 'CopyratorRule', metadata: { name: 'sample', namespace: 'originals' }, ruleType: 'configmap', selector: { copyrator: 'true' }, namespace: 'default' } as KubeObject,
  { apiVersion: 'flant.com/v1', kind: 'CopyratorRule', metadata: { name: 'flant', namespace: 'originals' }, ruleType: 'configmap', selector: { copyrator: 'true' } } as KubeObject,
  { apiVersion: 'stable.imaginedata.com/v1', kind: 'Database', metadata: { name: 'sampledb', namespace: 'originals' }, spec: { name: 'name-of-database', port: 5432, 'storage-size': '50G', image: 'super-great-docker-image', replicas: 3 } } as KubeObject,
  { apiVersion: 'stable.imaginedata.co/v1', kind: 'Database', metadata: { name: 'inventory', namespace: 'originals' }, spec: { name: 'inventory', 'storage-size': '1Gi', replicas: 1 } } as KubeObject,
];

/**
 * What upgrading to this release does to the users' objects by design (docs/install.md#upgrading):
 * a Database reads the defaults of its security fields (superuserAccess false, tls Required: they
 * apply to Databases made before too), and the children whose Pods the release changes roll once
 * (a Database's servers, for TLS; a mirror's node DaemonSet, for its image pinned by digest), each
 * owner showing only its progress reasons meanwhile. Every other object must read and stay as it was.
 */
const NEW_DEFAULTS: Readonly<Record<string, Record<string, unknown>>> = { Database: { superuserAccess: false, tls: 'Required' } };
const ROLLED: Readonly<Record<string, readonly string[]>> = { databases: ['ChildNotReady', 'ReplicasNotReady', 'Rolling'], registrymirrors: ['ChildNotReady', 'NodesPending', 'CacheNotReady'] };
const withNewDefaults = (o: Json): Json => (NEW_DEFAULTS[o.kind] ? { ...o, spec: { ...o.spec, ...NEW_DEFAULTS[o.kind] } } : o);
const rolledByDesign = (lapse: string) => Object.entries(ROLLED).some(([plural, reasons]) => lapse.includes(`/${plural} `) && reasons.some((reason) => lapse.endsWith(`(${reason})`)));

let released: Released;
beforeAll(() => {
  released = buildReleased(RELEASED_COMMIT);
  const installed = new Set(loadYaml(join(released.dist, '0-crds.k8s.yaml')).map((o) => o.metadata.name));
  IDENTITIES = KINDS.flatMap((kind) => servedIdentities(kind)).filter((identity) => installed.has(crdName(identity)));
  VERSIONED = IDENTITIES.filter(hasVersions);
}, 180_000);
afterAll(() => {
  if (released) rmSync(released.dir, { recursive: true, force: true });
});

/** What the users' objects read as, but for what the API server and controllers change (resourceVersion, managedFields, status). */
function content(o: Json): unknown {
  const { resourceVersion: _rv, managedFields: _mf, generation: _g, ...metadata } = o.metadata as Json['metadata'] & Record<string, unknown>;
  const { status: _status, ...fields } = o;
  return { ...fields, metadata };
}

/**
 * One upgrade, from the released install with its objects Ready, to this checkout's; `upgrade`
 * applies the new release (the steps the docs give) and starts the new controller with
 * `startNew` when its Deployment would roll out.
 */
function upgradeScenario(how: string, install: (cluster: LocalCluster) => Promise<void>, upgrade: (cluster: LocalCluster, startNew: () => Promise<void>) => Promise<void>): void {
  describe(`the v1-only release ${RELEASED_COMMIT} upgraded ${how}`, () => {
    let dir: string;
    let cluster: LocalCluster | undefined;
    let oldController: ControllerProcess | undefined;
    let newController: ControllerProcess | undefined;
    let watch: ReadyWatch | undefined;
    /** Every object of our kinds before the upgrade, read in v1. */
    let before: Json[] = [];

    const objects = () => cluster!.objects;
    const listV1 = async (): Promise<Json[]> => {
      const found: Json[] = [];
      for (const identity of IDENTITIES) {
        const list = await objects().rest.request<{ items: Json[] }>('GET', `/apis/${identity.group}/v1/${identity.plural}`);
        found.push(...list.items.map((item) => ({ ...item, apiVersion: `${identity.group}/v1`, kind: identity.kind })));
      }
      return found;
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), `upgrade-${how.split(' ')[1]}-`));
      cluster = await startLocalCluster(dir, 'kubectl');
      const common = [`--kubeconfig=${cluster.plane.kubeconfig}`, '--http-port=0'];
      const env = { EXCHANGE_RATE_URL: cluster.rateProviderUrl, EXCHANGE_RATE_ALLOW_HTTP: 'true' };
      await install(cluster);
      oldController = startController(common, join(dir, 'controller-released.log'), env, released.bin);
      await applyInOrder(objects(), [...loadYaml(released.examples), ...ORIGINALS]);
      before = await listV1();
      for (const o of before) await eventually(`${name(o)} Ready under the released controller`, async () => (ready(await objects().get<Json>(o)) ? true : undefined), 120_000);
      before = await listV1();
      watch = new ReadyWatch(objects().rest, IDENTITIES.map((i) => `/apis/${i.group}/v1/${i.plural}`));
      await watch.start();

      const startNew = async () => {
        // The administrator step of the upgrade: the originals' rule copies from default, so its namespace is trusted (docs/install.md).
        newController = startController([...common, ...cluster!.webhookArgs, '--copyrator-trusted-namespaces=originals'], join(dir, 'controller.log'), env);
        // A rolling update: the old replica stops once the new one is ready, i.e. serves conversion.
        const versioned = before.find((o) => hasVersions(kindOf(o)))!;
        await eventually('the new controller to serve conversion', () => objects().find(inVersion(versioned, kindOf(versioned).version)), 60_000);
        await oldController!.stop();
      };
      await upgrade(cluster, startNew);
      for (const identity of VERSIONED) {
        await eventually(`${crdName(identity)} to store ${identity.version} alone`, async () => ((await objects().get<Crd>(crd(identity))).status?.storedVersions?.join() === identity.version ? true : undefined), 120_000);
      }
    }, 420_000);

    afterAll(async () => {
      watch?.stop();
      await newController?.stop();
      await oldController?.stop();
      await cluster?.stop();
      rmSync(dir, { recursive: true, force: true });
    }, 120_000);

    it('had objects of every kind, in every group, Ready before', () => {
      expect(new Set(before.map((o) => `${o.apiVersion} ${o.kind}`))).toEqual(new Set(IDENTITIES.map((i) => `${i.group}/v1 ${i.kind}`)));
      expect(before.filter((o) => !ready(o)).map(name)).toEqual([]);
    });

    it('loses nothing: every object reads in v1 as it did before, the same object (uid)', async () => {
      const after = await listV1();
      expect(after.map(name).sort()).toEqual(before.map(name).sort());
      for (const o of before) expect(content(await objects().get<Json>(o))).toEqual(content(withNewDefaults(o)));
    });

    it('reads every object of a kind with several versions the same in v1 and in its hub version', async () => {
      for (const o of before.filter((b) => hasVersions(kindOf(b)))) {
        const kind = kindOf(o);
        const v1 = await objects().get<Json>(o);
        const hub = await objects().get<Json>(inVersion(o, kind.version));
        expect(hub.apiVersion).toBe(`${identityOf(o).group}/${kind.version}`);
        expect(content(hub)).toEqual(content(convertObject(kind, v1, kind.version) as Json));
        expect(content(convertObject(kind, hub, 'v1') as Json)).toEqual(content(v1));
      }
      // And as the v2 layout says, whatever the conversion code: the originals' rule under spec, the SampleDB's storageSize (deletionPolicy: the schema's default, then as now).
      const sample = await objects().get<Json>({ apiVersion: 'test.com/v2', kind: 'CopyratorRule', metadata: { name: 'sample', namespace: 'originals' } });
      expect([sample.spec, sample.ruleType]).toEqual([{ ruleType: 'configmap', selector: { copyrator: 'true' }, namespaces: ['default'] }, undefined]);
      const sampledb = await objects().get<Json>({ apiVersion: 'stable.imaginedata.com/v2', kind: 'Database', metadata: { name: 'sampledb', namespace: 'originals' } });
      expect(sampledb.spec).toEqual({ name: 'name-of-database', port: 5432, storageSize: '50G', image: 'super-great-docker-image', replicas: 3, deletionPolicy: 'Snapshot', ...NEW_DEFAULTS.Database });
    });

    it('migrates the storage: every object stored in its hub, every versioned CRD stores its hub alone, the others still v1', async () => {
      for (const identity of IDENTITIES) {
        expect(`${crdName(identity)} ${(await objects().get<Crd>(crd(identity))).status?.storedVersions}`).toBe(`${crdName(identity)} ${identity.version}`);
      }
      const etcd = etcdOf(cluster!.plane)!;
      for (const o of before.filter((b) => hasVersions(kindOf(b)))) {
        const identity = identityOf(o);
        expect(`${name(o)} ${await storedApiVersion(etcd, identity, o.metadata.namespace!, o.metadata.name)}`).toBe(`${name(o)} ${identity.group}/${identity.version}`);
      }
      // Kubernetes 1.37 migrates by its StorageVersionMigration API (GA, on by default); before, the controller rewrites each object once.
      const byCluster = cluster!.plane.release!.minor >= 37;
      // On the cluster's path its migrator prunes storedVersions before the controller sees Succeeded (it polls): wait for each CRD's line.
      const migrated = await eventually('a "storage migrated" line for each versioned CRD', async () => {
        const lines = newController!.logs().filter((line) => line.msg === 'storage migrated');
        return VERSIONED.every((identity) => lines.some((line) => line.crd === crdName(identity))) ? lines : undefined;
      }, 120_000);
      const counts = (identity: AnyKind) => ({
        crd: crdName(identity),
        path: byCluster ? 'storage-version-migration' : 'controller',
        objects: byCluster ? 0 : before.filter((o) => identityOf(o) === identity).length,
        failed: 0,
      });
      expect(migrated.map((line) => ({ crd: line.crd, path: line.path, objects: Number(line.migrated) + Number(line.conflicts), failed: line.failed }))).toEqual(expect.arrayContaining(VERSIONED.map(counts)));
    });

    it('shows a write in either version in the other', async () => {
      for (const o of before.filter((b) => hasVersions(kindOf(b)))) {
        const hub = inVersion(o, kindOf(o).version);
        const patch = (target: KubeObject, body: unknown) => objects().rest.request('PATCH', `/apis/${target.apiVersion}/namespaces/${o.metadata.namespace}/${identityOf(o).plural}/${o.metadata.name}`, { body, contentType: 'application/merge-patch+json' });
        await patch(o, { metadata: { labels: { 'upgrade-test/written-in': 'v1' } } });
        expect((await objects().get<Json>(hub)).metadata.labels).toMatchObject({ 'upgrade-test/written-in': 'v1' });
        await patch(hub, { metadata: { annotations: { 'upgrade-test/written-in': 'v2' } } });
        expect((await objects().get<Json>(o)).metadata.annotations).toMatchObject({ 'upgrade-test/written-in': 'v2' });
      }
      // A field the versions lay out differently: a Database's backup retention in v1, then in v2.
      const orders = before.find((o) => o.kind === 'Database' && (o.spec as { backup?: unknown }).backup)!;
      const path = (version: string) => `/apis/${identityOf(orders).group}/${version}/namespaces/${orders.metadata.namespace}/databases/${orders.metadata.name}`;
      await objects().rest.request('PATCH', path('v1'), { body: { spec: { backup: { retention: 8 } } }, contentType: 'application/merge-patch+json' });
      expect((await objects().rest.request<Json>('GET', path('v2'))).spec).toMatchObject({ backup: { retention: 8 }, storageSize: (orders.spec as Record<string, unknown>)['storage-size'] });
      await objects().rest.request('PATCH', path('v2'), { body: { spec: { backup: { retention: 9 } } }, contentType: 'application/merge-patch+json' });
      expect((await objects().rest.request<Json>('GET', path('v1'))).spec).toMatchObject({ backup: { retention: 9 }, 'storage-size': (orders.spec as Record<string, unknown>)['storage-size'] });
    });

    it('kept every object Ready throughout, but for the rollouts this release makes: no other status seen after it first was Ready says otherwise', async () => {
      // The writes above are reconciled too: give the controller a moment to have written any status.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      // The rollouts end: every object is Ready again.
      await eventually('every object Ready again after the rollouts this release makes', async () => (watch!.readyNow().length === before.length ? true : undefined), 180_000);
      const statuses = [...watch!.seen.values()].reduce((n, seen) => n + seen.length, 0);
      console.log(`upgraded ${how}: ${before.length} objects, ${statuses} statuses seen, the watch started over ${watch!.restarts} times`);
      expect(watch!.lapses().filter((lapse) => !rolledByDesign(lapse))).toEqual([]);
    }, 240_000);
  });
}

upgradeScenario(
  'by server-side apply (README "Installing")',
  async (cluster) => {
    await applyBundle(cluster.objects, released.dist);
  },
  async (cluster, startNew) => {
    const webhook = { url: cluster.webhookUrl };
    // kubectl apply --server-side -f dist/0-crds.k8s.yaml; kubectl wait --for=condition=Established
    await applyInOrder(cluster.objects, loadYaml(join(DIST, '0-crds.k8s.yaml')), { webhook });
    // kubectl apply --server-side -k dist: the Deployment rolls out while the rest applies; what
    // needs the new controller's conversion is refused until it serves and applied again.
    const rollout = startNew();
    await applyBundle(cluster.objects, DIST, { webhook, timeoutMs: 120_000 });
    await rollout;
  },
);

upgradeScenario(
  'by helm upgrade (docs/install.md "Upgrading")',
  async (cluster) => {
    const install = helm(['install', RELEASE, join(released.dist, 'helm'), '--namespace', 'default'], cluster.plane.kubeconfig);
    expect(`${install.code} ${install.stderr}`).toBe('0 ');
    for (const identity of IDENTITIES) {
      await eventually(`${crdName(identity)} Established`, async () => ((await cluster.objects.get<Crd>(crd(identity))).status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined));
    }
  },
  async (cluster, startNew) => {
    const upgrade = helm(['upgrade', RELEASE, join(DIST, 'helm'), '--namespace', 'default', '--reset-then-reuse-values'], cluster.plane.kubeconfig);
    expect(`${upgrade.code} ${upgrade.stderr}`).toBe('0 ');
    await startNew();
  },
);
