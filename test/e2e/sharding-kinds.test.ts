import * as k8s from '@kubernetes/client-node';
import { App } from 'cdk8s';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keptOnDelete } from '../../src/core/kit/child-policy';
import { servedIdentities } from '../../src/core/groups';
import { labelValue, MANAGED_BY_LABEL, OWNER_KIND_LABEL, OWNER_NAME_LABEL, OWNER_NAMESPACE_LABEL, ownerKindLabel } from '../../src/core/kit/names';
import { KubeObject } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { KINDS } from '../../src/kinds';
import { buildApp } from '../../src/app';
import { DRAIN_LABEL, SHARD_LABEL } from '../../src/runtime/sharding/labels';
import { shardName } from '../../src/runtime/sharding/members';
import { writeKubeconfig } from '../../src/testing/controlplane/credentials';
import { applyInOrder } from '../support/apply-bundle';
import { eventually } from '../../src/testing/cluster';
import { ControllerProcess, startController } from '../support/controller-process';
import { DIST, loadYaml } from '../support/manifests';
import { LocalCluster, startLocalCluster } from '../support/operator-cluster';
import { ReadyWatch } from '../support/ready-watch';
import { startTcpProxy, TcpProxy } from '../support/tcp-proxy';

/**
 * Three replicas started with --sharding, each as the controller's ServiceAccount with the RBAC
 * of an install synthesized with --sharding, serve every kind (dist/'s instances: an ExchangeRate,
 * a Guitar, a CopyratorRule, a Database with its Jobs and kwok pods, a cluster-wide
 * RegistryMirror) on a control plane of their own: one killed, one added, one cut off from the
 * API server by a proxy. After each step, every object and every child it owns is labelled for
 * a live replica, new objects of every kind become Ready, and no object once Ready was ever
 * seen otherwise; at the end every object deletes cleanly (finalizers released by their shard).
 */
type Json = KubeObject & { metadata: KubeObject['metadata'] & { labels?: Record<string, string> }; status?: { conditions?: { type: string; status: string }[] } };

const IDENTITIES = KINDS.flatMap((kind) => servedIdentities(kind));
let dir: string;
let cluster: LocalCluster;
let proxy: TcpProxy | undefined;
let watch: ReadyWatch | undefined;
const replicas = new Map<string, ControllerProcess>();
let passed = false;
const instances = loadYaml(join(DIST, '2-instances.k8s.yaml'));
const ours = (o: KubeObject) => IDENTITIES.some((i) => i.kind === o.kind && o.apiVersion?.startsWith(`${i.group}/`));
const labels = (o: KubeObject) => ((o.metadata as Json['metadata']).labels ?? {}) as Record<string, string>;
const named = (o: KubeObject) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
const isReady = (o: Json) => o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const list = async <T>(path: string) => (await cluster.objects.rest.request<{ items: T[] }>('GET', path)).items;

/** A kubeconfig for the API server at `server` (the control plane's, or a proxy's) with the controller's ServiceAccount token. */
let serviceAccount: (server: string) => string;

/** A replica run as the controller's ServiceAccount: the sharding install's RBAC is all it may use. */
function replica(name: string, kubeconfig = serviceAccount(cluster.plane.server), servesConversion = false): ControllerProcess {
  const args = [`--kubeconfig=${kubeconfig}`, '--http-port=0', '--sharding', '--leader-election-namespace', 'cdk8s-operators'];
  // The CRDs point at one loopback address: replica-a (never stopped) serves conversion there.
  args.push(...(servesConversion ? cluster.webhookArgs : ['--conversion-webhook=false']));
  const started = startController(args, join(dir, `${name}.log`), { POD_NAME: name, EXCHANGE_RATE_URL: cluster.rateProviderUrl, EXCHANGE_RATE_ALLOW_HTTP: 'true' });
  replicas.set(name, started);
  return started;
}

/** dist/'s instances of our kinds under new names (a CopyratorRule selecting nothing, so two rules never claim one copy). */
function round(suffix: string): KubeObject[] {
  return instances.filter(ours).map((o) => {
    const copy = JSON.parse(JSON.stringify(o)) as KubeObject & Record<string, unknown>;
    copy.metadata = { ...copy.metadata, name: `${o.metadata.name}-${suffix}` };
    // dist/ holds the rule in the version its CRD stores, v2: the selector under spec.
    if (o.kind === 'CopyratorRule') copy.spec = { ...(copy.spec as object), selector: { copyrator: suffix } };
    const spec = copy.spec as { configMapName?: string } | undefined;
    if (spec?.configMapName) copy.spec = { ...spec, configMapName: `${spec.configMapName}-${suffix}` };
    if (o.kind === 'Database') copy.spec = { ...(copy.spec as object), name: `orders_${suffix}` };
    // One registry name has one mirror: each round's mirror its own upstream, in the domain the tests' allowlist names.
    if (o.kind === 'RegistryMirror') copy.spec = { ...(copy.spec as object), upstreamUrl: `${suffix}.mirrors.test` };
    return copy;
  });
}

type Owner = Json & { ownerKey: string };

/** Every object of our kinds now, each with the key its children's owner labels make. */
async function objectsOfOurKinds(): Promise<Owner[]> {
  const found: Owner[] = [];
  for (const identity of IDENTITIES) {
    const items = await list<Json>(`/apis/${identity.group}/${identity.version}/${identity.plural}`);
    found.push(...items.map((o) => ({ ...o, kind: identity.kind, ownerKey: `${labelValue(ownerKindLabel(identity))}/${o.metadata.namespace ?? ''}/${labelValue(o.metadata.name)}` })));
  }
  return found;
}

/** Made by another controller from a template of ours (a CronJob's Job): our labels, but not our child. */
const madeByAnother = (c: Json) => ((c.metadata.ownerReferences ?? []) as { kind: string; controller?: boolean }[]).some((r) => r.controller && !IDENTITIES.some((i) => i.kind === r.kind));
const ownerKeyOf = (child: Json) => `${labels(child)[OWNER_KIND_LABEL]}/${labels(child)[OWNER_NAMESPACE_LABEL] ?? ''}/${labels(child)[OWNER_NAME_LABEL]}`;

/** Every child the controllers manage, in the namespaces they write to. */
async function children(): Promise<Json[]> {
  const selector = `labelSelector=${encodeURIComponent(`${MANAGED_BY_LABEL}=cdk8s-operators`)}`;
  const collections = { ConfigMap: '/api/v1/configmaps', Service: '/api/v1/services', Secret: '/api/v1/secrets', PersistentVolumeClaim: '/api/v1/persistentvolumeclaims', StatefulSet: '/apis/apps/v1/statefulsets', DaemonSet: '/apis/apps/v1/daemonsets', Deployment: '/apis/apps/v1/deployments', Job: '/apis/batch/v1/jobs', CronJob: '/apis/batch/v1/cronjobs', NetworkPolicy: '/apis/networking.k8s.io/v1/networkpolicies' };
  const lists = await Promise.all(Object.entries(collections).map(async ([kind, path]) => (await list<Json>(`${path}?${selector}`)).map((item) => ({ ...item, kind }))));
  return lists.flat();
}

/** Every object Ready and on a live replica, nothing draining, every child labelled as its owner: what "settled" means. */
async function settledOn(live: string[], expected: number): Promise<Map<string, number>> {
  const shards = live.map(shardName);
  let problems: string[] = [];
  try {
    return await eventually(`every object Ready on one of ${shards.join(', ')}`, async () => {
      const owners = await objectsOfOurKinds();
      const shardOf = new Map(owners.map((o) => [o.ownerKey, labels(o)[SHARD_LABEL]]));
      problems = [
        ...owners.filter((o) => !isReady(o)).map((o) => `${named(o)} not Ready`),
        ...owners.filter((o) => !shards.includes(labels(o)[SHARD_LABEL]) || labels(o)[DRAIN_LABEL]).map((o) => `${named(o)} on ${labels(o)[SHARD_LABEL]}${labels(o)[DRAIN_LABEL] ? ' (draining)' : ''}`),
        ...(await children())
          // The Database's credentials are read by name only (not watched), so they carry no shard label.
          .filter((c) => !madeByAnother(c))
          .filter((c) => shardOf.has(ownerKeyOf(c)) && labels(c)[SHARD_LABEL] !== (c.kind === 'Secret' ? undefined : shardOf.get(ownerKeyOf(c))))
          .map((c) => `${named(c)} on ${labels(c)[SHARD_LABEL]}, its owner on ${shardOf.get(ownerKeyOf(c))}`),
      ];
      if (owners.length !== expected) problems.push(`${owners.length} objects, ${expected} expected`);
      if (problems.length) return undefined;
      const counts = new Map<string, number>();
      for (const o of owners) counts.set(labels(o)[SHARD_LABEL], (counts.get(labels(o)[SHARD_LABEL]) ?? 0) + 1);
      return counts;
    }, 180_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}; still: ${problems.join('; ')}; logs in ${dir}`);
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sharding-kinds-'));
  cluster = await startLocalCluster(dir, 'kubectl');
  await applyInOrder(cluster.objects, cluster.localCrds(loadYaml(join(DIST, '0-crds.k8s.yaml'))), { webhook: { url: cluster.webhookUrl } });
  // The install synthesized with --sharding but for its Deployments (the replicas run from source, as its ServiceAccount).
  const [, operator] = buildApp(new App(), { instances: [], sharding: true }).map((chart) => chart.toJson() as KubeObject[]);
  await applyInOrder(cluster.objects, operator, { skip: (o) => o.kind === 'Deployment', webhook: { url: cluster.webhookUrl } });
  const token = await cluster.objects.rest.request<{ status: { token: string } }>('POST', '/api/v1/namespaces/cdk8s-operators/serviceaccounts/controller/token', {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  const caPem = readFileSync(join(dir, 'cluster', 'ca.crt'), 'utf8');
  serviceAccount = (server: string) => {
    const path = join(dir, `kubeconfig-${new URL(server).port}`);
    writeKubeconfig(path, server, caPem, token.status.token);
    return path;
  };
}, 180_000);

afterAll(async () => {
  watch?.stop();
  await Promise.all([...replicas.values()].map((r) => r.stop(5000)));
  await proxy?.close();
  await cluster?.stop();
  // Kept when the test failed: the replicas' logs are what explains it.
  if (passed) rmSync(dir, { recursive: true, force: true });
}, 120_000);

it('serves every kind from three sharded replicas through a kill, an added replica and a partition; every object deletes cleanly', async () => {
  // replica-c talks to the API server through a proxy, to be cut off later.
  const server = new URL(cluster.plane.server);
  proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port) });
  const proxied = serviceAccount(`https://${server.hostname}:${proxy.port}`);
  // The replicas' credentials are the ServiceAccount's, not an admin's: no Secret of the cluster is theirs to list.
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(serviceAccount(cluster.plane.server));
  await expect(new KubeRest(kc).request('GET', '/api/v1/secrets')).rejects.toThrow(/HTTP 403/);
  replica('replica-a', undefined, true);
  replica('replica-b');
  replica('replica-c', proxied);

  await applyInOrder(cluster.objects, [...instances, ...round('first')], { webhook: { url: cluster.webhookUrl } });
  const perRound = round('x').length;
  let expected = 2 * perRound;
  const spread: Record<string, Record<string, number>> = { start: Object.fromEntries(await settledOn(['replica-a', 'replica-b', 'replica-c'], expected)) };
  watch = new ReadyWatch(cluster.objects.rest, IDENTITIES.map((i) => `/apis/${i.group}/${i.version}/${i.plural}`));
  await watch.start();

  // The replica with the most objects is killed: its objects must move.
  const busiest = ['replica-b', 'replica-c'].sort((x, y) => (spread.start[shardName(y)] ?? 0) - (spread.start[shardName(x)] ?? 0))[0];
  await replicas.get(busiest)!.kill();
  const survivor = busiest === 'replica-b' ? 'replica-c' : 'replica-b';
  await applyInOrder(cluster.objects, round('killed'), { webhook: { url: cluster.webhookUrl } });
  expected += perRound;
  spread.killed = Object.fromEntries(await settledOn(['replica-a', survivor], expected));

  replica('replica-d');
  await applyInOrder(cluster.objects, round('added'), { webhook: { url: cluster.webhookUrl } });
  expected += perRound;
  spread.added = Object.fromEntries(await settledOn(['replica-a', survivor, 'replica-d'], expected));

  const live = ['replica-a', 'replica-d'];
  if (survivor === 'replica-c') proxy.partition();
  else await replicas.get('replica-b')!.kill();
  await applyInOrder(cluster.objects, round('partitioned'), { webhook: { url: cluster.webhookUrl } });
  expected += perRound;
  spread.partitioned = Object.fromEntries(await settledOn(live, expected));

  watch.stop();
  expect(watch.lapses()).toEqual([]);
  console.log(`sharding with every kind: objects per shard after each step ${JSON.stringify(spread)}; ${busiest} killed`);

  // Deleting: each object's finalizer (the Database's final snapshot included) is released by the replica it is on now.
  const owners = await objectsOfOurKinds();
  for (const o of owners) await cluster.objects.delete(o);
  // What outlives its owner by design (keep-on-delete: the Database's backups volume) stays.
  const leftOver = async () => (await children()).filter((c) => labels(c)[OWNER_NAME_LABEL] && !keptOnDelete(c));
  await eventually(`every object and its children gone; logs in ${dir}`, async () => ((await objectsOfOurKinds()).length + (await leftOver()).length === 0 ? true : undefined), 240_000);
  expect(new Set(owners.map((o) => o.kind))).toEqual(new Set(KINDS.map((k) => k.kind)));
  passed = true;
}, 900_000);
