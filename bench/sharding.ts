/**
 * `npm run bench:sharding`: ExchangeRates served by 1, 2 and 4 replicas with --sharding, on a
 * private local control plane. For each replica count: time until all N are Ready, each
 * replica's RSS and CPU, and (with two or more) the time until every object is served by the
 * replicas left after one is killed. Prints figures; it is not a test and CI does not run it.
 * The replicas and the control plane share this machine's cores, so times show the machine;
 * the figure that must fall with the replicas is the memory of each.
 */
import * as k8s from '@kubernetes/client-node';
import { mkdtempSync, readFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { OWNER_KIND_LABEL, ownerKindLabel } from '../src/core/kit/names';
import { exchangeRateKind } from '../src/kinds/exchangerate';
import { KubeObject, ObjectClient } from '../src/kube/objects';
import { KubeError, KubeRest } from '../src/kube/rest';
import { OptionSpec } from '../src/commands/command-line';
import { SHARD_LABEL } from '../src/runtime/sharding/labels';
import { shardName } from '../src/runtime/sharding/members';
import { startControlPlane, stopControlPlane } from '../src/testing/controlplane/controlplane';
import { FakeRateProvider, startRateProvider } from '../test/support/rate-provider';
import { ControllerProcess, startController } from '../test/support/controller-process';
import { Conversion, installCrds } from './setup';
import { Watched } from './watched';
import { benchOptions, fixed, forEachLimited, processMemory, secondsSince, sleep, table, waitUntil, withRetries, WORKERS_OPTION } from './support';

const OPTIONS: OptionSpec[] = [
  { name: 'objects', type: 'integer', default: '1000', description: 'ExchangeRates per run.' },
  { name: 'replicas', type: 'list', default: '1,2,4', description: 'Replica counts to run, one run each.' },
  { name: 'concurrency', type: 'integer', default: '16', description: 'Creates in flight at once.' },
  { name: 'sharding', type: 'boolean', default: 'true', description: 'Start the replicas with --sharding; false runs one replica as installed by default (with --replicas 1), to show what sharding costs.' },
  { name: 'settle', type: 'duration', default: '20s', description: 'Wait after all are Ready before sampling RSS.' },
  WORKERS_OPTION,
];

const NS = 'bench-sharding';
const ER_PATH = `/apis/operators.brennerm.github.io/v1/namespaces/${NS}/exchangerates`;
const CM_PATH = `/api/v1/namespaces/${NS}/configmaps`;
const OWNED_CONFIGMAPS = `${OWNER_KIND_LABEL}=${ownerKindLabel(exchangeRateKind)}`;
type Rate = KubeObject & { status?: { observedGeneration?: number; conditions?: { type: string; status: string }[] } };
const isReady = (o: Rate) => o.status?.observedGeneration === o.metadata.generation && !!o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
const label = (o: KubeObject) => ((o.metadata.labels ?? {}) as Record<string, string>)[SHARD_LABEL];

/** User plus system CPU seconds of a process, from /proc/<pid>/stat (clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface RunFigures {
  replicas: number;
  readySeconds: number;
  rssMiB: number[];
  cpuSeconds: number[];
  objectsPerReplica: number[];
  rebalanceSeconds?: number;
  /** Until the killed replica's children (ConfigMaps) were labelled for the replicas left too. */
  childrenMovedSeconds?: number;
  /** Replicas that exited by themselves (e.g. a membership Lease not renewed within its deadline on a loaded machine). */
  exited: number;
}

/** How long N objects may take to become Ready (or served again): 120 s plus 100 ms each, as in the side-by-side harness. */
const readyTimeoutMs = (count: number) => 120_000 + 100 * count;
/** Prints how far a long wait got, every 30 s. */
function progress(what: string, watched: Watched<Rate>, start: number): () => void {
  let last = performance.now();
  return () => {
    if (performance.now() - last < 30_000) return;
    last = performance.now();
    process.stdout.write(`    ${watched.counts.matching}/${watched.counts.exist} ${what}, ${fixed(secondsSince(start), 0)} s\n`);
  };
}

async function run(rest: KubeRest, objects: ObjectClient, provider: FakeRateProvider, dir: string, replicas: number, params: { objects: number; concurrency: number; settleMs: number; workers: number; sharding: boolean }): Promise<RunFigures> {
  const started: ControllerProcess[] = [];
  for (let i = 0; i < replicas; i++) {
    const args = ['--kubeconfig', join(dir, 'plane', 'kubeconfig'), '--kinds', 'exchangerates', '--namespace', NS, '--leader-election-namespace', NS, `--sharding=${params.sharding}`, '--http-port', '0', '--metrics-secure=false', '--workers', String(params.workers), '--exchange-rate-url', provider.url, '--exchange-rate-allow-http'];
    started.push(startController(args, join(dir, `replicas-${replicas}-${i}.log`)));
  }
  const running = () => started.filter((c) => c.child.exitCode === null && c.child.signalCode === null);
  const someAlive = () => {
    if (running().length === 0) throw new Error(`every replica exited (logs in ${dir})`);
  };
  const shards = started.map((c) => shardName(`${hostname()}-${c.child.pid}`));
  // Every replica a member before the objects come, so the first assignment is the final one.
  await waitUntil(params.sharding ? 'every replica to hold its membership Lease' : 'the replica to lead', 120_000, 500, async () => {
    const leases = await rest.request<{ items: KubeObject[] }>('GET', `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`);
    const held = params.sharding ? shards.every((s) => leases.items.some((l) => label(l) === s)) : leases.items.length > 0;
    return held ? true : undefined;
  });
  await sleep(3000);
  // Seen through watches: LISTs of every object each second would load the API server measured.
  const ready = new Watched<Rate>(rest, ER_PATH, isReady);
  await ready.start();
  const start = performance.now();
  await forEachLimited(params.objects, params.concurrency, (i) =>
    withRetries(async () => {
      await objects.apply({ apiVersion: 'operators.brennerm.github.io/v1', kind: 'ExchangeRate', metadata: { name: `rate-${i}`, namespace: NS }, spec: { currency: 'USD' } });
    }),
  );
  // Waits until all objects match, failing as soon as no replica is left, with progress every 30 s.
  const awaitAll = (watched: Watched<KubeObject>, what: string, since: number) => {
    const report = progress(what, watched, since);
    return watched.until(`${params.objects} ExchangeRates ${what}`, params.objects, readyTimeoutMs(params.objects), () => {
      someAlive();
      report();
    });
  };
  await awaitAll(ready, 'Ready', start);
  const readySeconds = secondsSince(start);
  await sleep(params.settleMs);
  const items = ready.items();
  ready.stop();
  const figures: RunFigures = {
    replicas,
    readySeconds,
    // A replica that exited has no /proc entry left: it counts nothing.
    rssMiB: started.map((c) => (c.child.exitCode === null ? processMemory(c.child.pid!).rssMiB : 0)),
    cpuSeconds: started.map((c) => (c.child.exitCode === null ? cpuSeconds(c.child.pid!) : 0)),
    objectsPerReplica: params.sharding ? shards.map((s) => items.filter((o) => label(o) === s).length) : [items.length],
    exited: replicas - running().length,
  };
  if (running().length > 1) {
    const killed = running().at(-1)!;
    killed.child.kill('SIGKILL');
    const killedAt = performance.now();
    const left = running()
      .filter((c) => c !== killed)
      .map((c) => shardName(`${hostname()}-${c.child.pid}`));
    // Ready survives from before the kill; the children's labels show the takeover done.
    const served = new Watched<Rate>(rest, ER_PATH, (o) => left.includes(label(o)) && isReady(o));
    const childrenMoved = new Watched<KubeObject>(rest, CM_PATH, (o) => left.includes(label(o)), OWNED_CONFIGMAPS);
    await Promise.all([served.start(), childrenMoved.start()]);
    // Awaited together, so a failure of either ends the run without leaving the other unhandled.
    [figures.rebalanceSeconds, figures.childrenMovedSeconds] = await Promise.all([
      awaitAll(served, 'served by the replicas left', killedAt).then(() => secondsSince(killedAt)),
      awaitAll(childrenMoved, 'with their ConfigMap labelled for the replicas left', killedAt).then(() => secondsSince(killedAt)),
    ]);
    served.stop();
    childrenMoved.stop();
  }
  for (const c of started) await c.stop();
  // Printed before the clean-up, which takes minutes at 100,000 objects.
  process.stdout.write(`  ${JSON.stringify(figures)}\n`);
  await removeAll(rest, params.objects);
  return figures;
}

/**
 * Deletes the ExchangeRates and their ConfigMaps and waits until both are gone, so that the
 * garbage collector's work does not spill into the next run's figures.
 */
async function removeAll(rest: KubeRest, count: number): Promise<void> {
  const ownedConfigMaps = { labelSelector: OWNED_CONFIGMAPS };
  const deleteAll = async (what: string, path: string, query: Record<string, string> = {}) => {
    await waitUntil(`${what} to be gone`, readyTimeoutMs(count), 1000, async () => {
      const left = await rest.request<{ items: KubeObject[] }>('GET', path, { query: { ...query, limit: '1' } });
      if (left.items.length === 0) return true;
      try {
        await rest.request('DELETE', path, { query, timeoutMs: 600_000 });
      } catch (err) {
        // The API server gives up on a collection's deletion after its request timeout (60 s): 100,000 objects take longer, so it is asked again.
        if (!(err instanceof KubeError && err.code === 504)) throw err;
      }
      return undefined;
    });
  };
  await deleteAll('the ExchangeRates', ER_PATH);
  await deleteAll('their ConfigMaps', CM_PATH, ownedConfigMaps);
  await rest.request('DELETE', `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`);
}

async function main(): Promise<number> {
  const params = benchOptions('bench:sharding', OPTIONS, process.argv.slice(2));
  if (typeof params === 'number') return params;
  const replicaCounts = (params.replicas as string[]).map(Number);
  if (replicaCounts.some((n) => !Number.isInteger(n) || n < 1)) {
    process.stderr.write(`--replicas: expected positive whole numbers, got ${(params.replicas as string[]).join(',')}\n`);
    return 2;
  }
  if (!params.sharding && replicaCounts.some((n) => n !== 1)) {
    process.stderr.write(`--replicas: expected 1 with --sharding=false (without sharding one replica serves and the others stand by), got ${(params.replicas as string[]).join(',')}\n`);
    return 2;
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-sharding-'));
  const planeDir = join(dir, 'plane');
  process.stdout.write(`bench:sharding: a private control plane in ${planeDir}\n`);
  const plane = await startControlPlane(planeDir);
  const provider = await startRateProvider();
  let conversion: Conversion | undefined;
  try {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(plane.kubeconfig);
    const rest = new KubeRest(kc);
    const objects = new ObjectClient(rest, 'cdk8s-operators-bench');
    conversion = await installCrds(objects);
    await objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    const runs: RunFigures[] = [];
    for (const replicas of replicaCounts) {
      process.stdout.write(`  ${replicas} replica(s)${params.sharding ? '' : ' without sharding'}, ${params.objects} ExchangeRates...\n`);
      runs.push(await run(rest, objects, provider, dir, replicas, { objects: params.objects as number, concurrency: params.concurrency as number, settleMs: params.settle as number, workers: params.workers as number, sharding: params.sharding as boolean }));
    }
    const sum = (v: number[]) => v.reduce((a, b) => a + b, 0);
    const rows = [
      ['replicas', 'all Ready (s)', 'RSS total (MiB)', 'RSS per replica (MiB)', 'CPU total (s)', 'objects per replica', 'rebalance after a kill (s)', 'children relabelled (s)', 'exited by themselves'],
      ...runs.map((r) => [
        String(r.replicas),
        fixed(r.readySeconds, 1),
        fixed(sum(r.rssMiB), 1),
        r.rssMiB.map((m) => fixed(m, 1)).join(' / '),
        fixed(sum(r.cpuSeconds), 1),
        r.objectsPerReplica.join(' / '),
        r.rebalanceSeconds === undefined ? '-' : fixed(r.rebalanceSeconds, 1),
        r.childrenMovedSeconds === undefined ? '-' : fixed(r.childrenMovedSeconds, 1),
        String(r.exited),
      ]),
    ];
    process.stdout.write(`\n${table(rows)}\n\nlogs in ${dir}\n`);
    return 0;
  } finally {
    await provider.close();
    await conversion?.close();
    await stopControlPlane(planeDir);
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`bench:sharding: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
