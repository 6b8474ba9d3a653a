/**
 * `npm run bench:database` (and the third part of `npm run bench`): --databases Databases on a
 * private control plane, where kwok makes their pods Running and Ready and their Jobs Succeeded
 * and test/support's stand-in provisioner binds their claims. Prints:
 *
 *   G  time from the first of N creates (16 in flight) until all N Databases are Ready with
 *      observedGeneration == generation (seen through a watch), against creating their
 *      children directly with the same concurrency (until the creates returned, and until the
 *      StatefulSets are ready and the Jobs done); children per Database;
 *   H  the controller's API requests per Database while converging, by method, and what its
 *      writes were (children, finalizer, status patches, Events);
 *   I  API writes during an idle window with a 30 s resync (goal 0), and the controller's RSS.
 */
import * as k8s from '@kubernetes/client-node';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CustomResource } from '../src/core/contract/kind';
import { validateResource } from '../src/core/contract/validation';
import { renderChildren } from '../src/core/render';
import { KubeObject, ObjectClient } from '../src/kube/objects';
import { KubeRest } from '../src/kube/rest';
import { databaseKind, DatabaseSpec } from '../src/kinds/database';
import { OptionSpec } from '../src/commands/command-line';
import { startControlPlane, stopControlPlane } from '../src/testing/controlplane/controlplane';
import { startStorageProvisioner, StorageProvisioner } from '../test/support/storage-provisioner';
import { ControllerProcess, startController } from '../test/support/controller-process';
import { Conversion, installCrds } from './setup';
import { apiWrites, benchOptions, byLabel, controllerHttp, fixed, forEachLimited, increase, processMemory, secondsSince, sleep, spread, table, total, untilSteady, waitUntil, withRetries, WORKERS_OPTION } from './support';
import { Watched } from './watched';
import { PRODUCT_NAMES } from '../src/product';

const OPTIONS: OptionSpec[] = [
  { name: 'databases', type: 'integer', default: '50', description: 'Databases created (each: a primary, its init Job, a backup volume and CronJob, 9 children).' },
  { name: 'concurrency', type: 'integer', default: '16', description: 'Creates in flight at once, of Databases and of children alike.' },
  WORKERS_OPTION,
  { name: 'idle', type: 'duration', default: '2m', description: 'Figure I: the idle window over which API writes are counted (resync every 30s).' },
];

const NS = 'bench';
const DIRECT_NS = 'bench-direct';
/** A schedule that does not come round during a run (1 January, 03:00), so the CronJob is a child but starts no Jobs. */
const SPEC = { name: 'app', 'storage-size': '1Gi', backup: { schedule: '0 3 1 1 *' } };
const PROGRESS_EVERY_MS = 10_000;

type Json = KubeObject & { metadata: { generation?: number }; spec?: { replicas?: number }; status?: Record<string, unknown> & { observedGeneration?: number; readyReplicas?: number; conditions?: { type: string; status: string; lastTransitionTime?: string }[] } };

const log = (text: string) => process.stderr.write(`[bench:database ${new Date().toISOString().slice(11, 19)}] ${text}\n`);
const namespace = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const database = (ns: string, i: number) => ({ apiVersion: 'stable.imaginedata.com/v1', kind: 'Database', metadata: { name: `db-${i}`, namespace: ns }, spec: SPEC });
const holds = (o: Json, type: string) => o.status?.conditions?.some((c) => c.type === type && c.status === 'True') === true;
const readyAndCurrent = (o: Json) => holds(o, 'Ready') && o.status?.observedGeneration === o.metadata.generation;
/** Ready, or Succeeded for a Job, in each child's own terms. */
const statefulSetReady = (o: Json) => (o.status?.readyReplicas ?? 0) >= (o.spec?.replicas ?? 1);
const jobDone = (o: Json) => holds(o, 'Complete');

/** What Database `i` in `ns` renders on its first reconcile (with its passwords), without owner references. */
function childrenOf(ns: string, i: number): KubeObject[] {
  const object = database(ns, i);
  const result = validateResource(databaseKind, object);
  if (!result.ok) throw new Error(`the benchmark's Database spec is invalid: ${JSON.stringify(result.errors)}`);
  const resource = { ...object, spec: result.spec } as CustomResource<DatabaseSpec>;
  const password = `bench-password-${i}-${'x'.repeat(20)}`;
  return renderChildren(databaseKind, resource, { password, replicationPassword: `replication-${password}` }).map(({ metadata: { ownerReferences: _, ...metadata }, ...rest }) => ({ ...rest, metadata }) as KubeObject);
}

/** A collection followed by a watch until `count` of its objects hold a condition; `where` goes into the timeout's message. */
interface Watch {
  readonly what: string;
  readonly where?: string;
  readonly watched: Watched<Json>;
}

/**
 * Runs `work` (the creates) while `watches` follow their collections, and resolves once each
 * holds `count` matching objects, in order; seconds from the start. `check` runs every second.
 */
async function untilAllHold(watches: Watch[], count: number, timeoutMs: number, work: () => Promise<void>, check: () => void = () => undefined): Promise<{ workS: number; allS: number }> {
  for (const { watched } of watches) await watched.start();
  try {
    const start = performance.now();
    let workS: number | undefined;
    let failure: unknown;
    const working = work().then(
      () => void (workS = secondsSince(start)),
      (err) => void (failure = err),
    );
    let lastProgress = start;
    for (const { what, where, watched } of watches) {
      await watched.until(`${what}${where ? ` (${where})` : ''}`, count, timeoutMs, () => {
        if (failure) throw failure;
        check();
        if (performance.now() - lastProgress > PROGRESS_EVERY_MS) {
          lastProgress = performance.now();
          log(`  ${what}: ${watched.counts.matching}/${count} of ${watched.counts.exist}, ${fixed(secondsSince(start), 0)} s`);
        }
      });
    }
    const allS = secondsSince(start);
    await working;
    if (failure) throw failure;
    return { workS: workS!, allS };
  } finally {
    for (const { watched } of watches) watched.stop();
  }
}

/** Seconds from each Database's creation until its Ready condition turned True (the API server keeps both to the second). */
function readyAfterCreation(databases: Json[]): number[] {
  return databases.map((d) => {
    const ready = d.status?.conditions?.find((c) => c.type === 'Ready');
    return (Date.parse(String(ready?.lastTransitionTime)) - Date.parse(String(d.metadata.creationTimestamp))) / 1000;
  });
}

/**
 * What the controller's `writes` while converging were: the children it wrote (the sum of its log's
 * "children reconciled" lines), a finalizer per Database, its Events (listed once, after the
 * measurement), and status patches (the rest). An Event repeats the reason before it when a
 * reconcile read a Database from before its own status write and wrote the same status again.
 */
async function writesOf(rest: KubeRest, logFile: string, writes: number, databases: number) {
  const childWrites = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"children reconciled"'))
    .reduce((sum, l) => sum + (JSON.parse(l).applied as number), 0);
  type Event = { reportingController?: string; eventTime: string; reason: string; regarding: { name: string } };
  const events = (await rest.request<{ items: Event[] }>('GET', `/apis/events.k8s.io/v1/namespaces/${NS}/events`)).items.filter((e) => e.reportingController === PRODUCT_NAMES.reportingController);
  const lastReason = new Map<string, string>();
  let repeated = 0;
  for (const e of events.sort((a, b) => a.eventTime.localeCompare(b.eventTime))) {
    if (lastReason.get(e.regarding.name) === e.reason) repeated++;
    lastReason.set(e.regarding.name, e.reason);
  }
  return { childWrites, events: events.length, repeated, statusPatches: writes - childWrites - databases - events.length };
}

export async function main(argv: string[]): Promise<number> {
  const values = benchOptions('bench:database', OPTIONS, argv);
  if (typeof values === 'number') return values;
  const [databases, concurrency, workers, idleMs] = ['databases', 'concurrency', 'workers', 'idle'].map((k) => values[k] as number);
  const dir = mkdtempSync(join(tmpdir(), 'cdk8s-operators-bench-database-'));
  log(`working in ${dir}`);
  mkdirSync(join(dir, 'controlplane'));
  let provisioner: StorageProvisioner | undefined;
  let controller: ControllerProcess | undefined;
  let conversion: Conversion | undefined;
  try {
    const plane = await startControlPlane(join(dir, 'controlplane'));
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(plane.kubeconfig);
    const rest = new KubeRest(kc);
    const objects = new ObjectClient(rest, 'cdk8s-operators-bench');
    const watch = (path: string, what: string, condition: (o: Json) => boolean, where?: string): Watch => ({ what, where, watched: new Watched<Json>(rest, path, condition) });
    conversion = await installCrds(objects);
    provisioner = await startStorageProvisioner(kc);
    for (const ns of [NS, DIRECT_NS]) {
      await objects.apply(namespace(ns));
      // Pods cannot be created before their namespace's default ServiceAccount exists.
      await waitUntil(`the default ServiceAccount of namespace ${ns}`, 60_000, 250, () => objects.find({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: ns } }));
    }

    const children = Array.from({ length: databases }, (_, i) => childrenOf(DIRECT_NS, i)).flat();
    const perDatabase = children.length / databases;
    const readyTimeoutMs = 300_000 + databases * 10_000;
    log(`figure G: ${children.length} children of ${databases} Databases created directly, ${concurrency} at a time`);
    const direct = await untilAllHold(
      [
        watch(`/apis/apps/v1/namespaces/${DIRECT_NS}/statefulsets`, 'the StatefulSets created directly to be ready', statefulSetReady),
        watch(`/apis/batch/v1/namespaces/${DIRECT_NS}/jobs`, 'the Jobs created directly to succeed', jobDone),
      ],
      databases,
      readyTimeoutMs,
      () => forEachLimited(children.length, concurrency, (i) => withRetries(() => objects.create(children[i])).then(() => undefined)),
    );
    // The directly made children go before the controller starts: they carry a Database's labels, which its child watches would follow.
    await objects.delete(namespace(DIRECT_NS));
    await waitUntil(`namespace ${DIRECT_NS} to be deleted`, 300_000, 1000, async () => ((await objects.find(namespace(DIRECT_NS))) ? undefined : true));

    const running = startController(['--kubeconfig', plane.kubeconfig, '--kinds', 'databases', '--leader-election=false', '--http-port', '0', '--metrics-secure=false', '--workers', String(workers), '--resync-period', '30s'], join(dir, 'controller.log'));
    controller = running;
    const http = await controllerHttp(running.logFile);
    await waitUntil(`the controller\u2019s caches to sync (/readyz; log ${running.logFile})`, 60_000, 200, async () => ((await http.ready()) ? true : undefined));
    const alive = () => {
      if (running.child.exitCode !== null || running.child.signalCode !== null) throw new Error(`the controller exited (${running.child.exitCode ?? running.child.signalCode}); see ${running.logFile}`);
    };

    log(`figure G: ${databases} Databases created, ${concurrency} at a time, until all are Ready`);
    const before = await http.metrics();
    const converged = await untilAllHold(
      [watch(`/apis/stable.imaginedata.com/v1/namespaces/${NS}/databases`, 'the Databases to be Ready with observedGeneration == generation', readyAndCurrent, `controller log ${running.logFile}`)],
      databases,
      readyTimeoutMs,
      () => forEachLimited(databases, concurrency, (i) => withRetries(() => objects.create(database(NS, i))).then(() => undefined)),
      alive,
    );
    const eachReady = spread(readyAfterCreation((await rest.request<{ items: Json[] }>('GET', `/apis/stable.imaginedata.com/v1/namespaces/${NS}/databases`)).items));
    await untilSteady('the controller to stop writing after the Databases were Ready', 10_000, 180_000, async () => apiWrites(await http.metrics()));
    const after = await http.metrics();
    const requests = increase(byLabel(after, 'cdk8s_operators_api_requests_total', 'method'), byLabel(before, 'cdk8s_operators_api_requests_total', 'method'));
    const perDb = Object.entries(requests).map(([method, n]) => `${method} ${fixed(n / databases, 2)}`);
    const requestsPerDb = Object.values(requests).reduce((sum, n) => sum + n, 0) / databases;
    const writes = await writesOf(rest, running.logFile, apiWrites(after) - apiWrites(before), databases);
    const convergeReconciles = total(after, 'cdk8s_operators_reconciles_total') - total(before, 'cdk8s_operators_reconciles_total');
    const converging = processMemory(running.child.pid!);

    log(`figure I: ${idleMs / 1000} s idle with a 30 s resync`);
    const idleBefore = await http.metrics();
    await sleep(idleMs);
    const idleAfter = await http.metrics();
    alive();
    const idleWrites = apiWrites(idleAfter) - apiWrites(idleBefore);
    const idleReconciles = total(idleAfter, 'cdk8s_operators_reconciles_total') - total(idleBefore, 'cdk8s_operators_reconciles_total');
    const rss = processMemory(running.child.pid!);
    const levels = readFileSync(running.logFile, 'utf8').match(/"level":"(warn|error)"/g) ?? [];

    process.stdout.write(
      [
        '',
        `== Database benchmark: ${databases} Databases, ${perDatabase} children each, --workers ${workers} --concurrency ${concurrency} --resync-period 30s ==`,
        table([
          ['G  children created directly', `${fixed(direct.workS)} s`, `${fixed(children.length / direct.workS, 0)}/s`, `${children.length} objects, ${perDatabase} per Database`],
          ['G  the same until their StatefulSets are ready and Jobs done', `${fixed(direct.allS)} s`, '', 'the cluster\u2019s own pace (scheduler, kwok, provisioner)'],
          ['G  Databases created (POSTs returned)', `${fixed(converged.workS)} s`],
          ['G  Databases until all Ready', `${fixed(converged.allS)} s`, `${fixed(databases / converged.allS, 1)}/s`, `ratio ${fixed(converged.allS / direct.workS)}x to direct creates, ${fixed(converged.allS / direct.allS)}x to direct until ready`],
          ['G  each Database, created until Ready', `median ${eachReady.median} s`, `min ${eachReady.min} s, max ${eachReady.max} s`, 'whole seconds: creationTimestamp to its Ready condition\u2019s lastTransitionTime'],
          ['H  API requests per Database converging', fixed(requestsPerDb, 2), perDb.join(', '), `${fixed(convergeReconciles / databases, 1)} reconciles per Database`],
          [
            'H  API writes per Database converging',
            fixed((apiWrites(after) - apiWrites(before)) / databases, 2),
            `${fixed(writes.childWrites / databases, 2)} children, 1 finalizer, ${fixed(writes.statusPatches / databases, 2)} status patches, ${fixed(writes.events / databases, 2)} Events`,
            `${writes.repeated} Events repeat the reason before`,
          ],
          ['I  API writes while idle (goal 0)', `${idleWrites}`, `${idleReconciles} reconciles in ${idleMs / 1000} s`],
          ['I  controller RSS', `${fixed(rss.rssMiB, 1)} MiB`, `peak ${fixed(rss.peakMiB, 1)} MiB`, `${fixed(converging.rssMiB, 1)} MiB right after converging`],
        ]),
        `controller log: ${running.logFile} (${levels.filter((l) => l.includes('warn')).length} warn and ${levels.filter((l) => l.includes('error')).length} error lines)`,
        '',
      ].join('\n'),
    );
    return 0;
  } finally {
    await controller?.stop();
    await provisioner?.stop().catch((err: unknown) => log(String(err)));
    await conversion?.close();
    await stopControlPlane(join(dir, 'controlplane'));
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      log(`failed: ${(err as Error).stack ?? String(err)}`);
      process.exit(1);
    },
  );
}
