import { join } from 'node:path';
import { repoRoot } from '../../src/testing/controlplane/controlplane';
import { Checker, describeJson, readyCondition } from './checker';
import { NS, SoakCluster, startSoakCluster } from './cluster';
import { writeKubeconfig } from '../../src/testing/controlplane/credentials';
import { selfSigned } from '../../test/support/self-signed';
import { Faults, FAULT_TYPES } from './faults';
import { History } from './history';
import { CONVERGENCE_BOUND_MS, QUIET_WINDOW_MS, QUIET_WRITES_PER_OBJECT } from './invariants';
import { LeakScanner } from './leaks';
import { Lifecycle } from './lifecycle';
import { Json } from './mirror';
import { startFaultProxy } from '../../test/support/fault-proxy-server';
import { Replicas } from './replicas';
import { gitCommit, invariantCounts, SoakReport } from './report';
import { Rng } from './rng';
import { judgeWrites, writesPerObject } from './writes';
import { Workload } from './workload';

export interface SoakOptions {
  readonly durationMs: number;
  readonly seed: number;
  /** Seconds between faults, drawn in [min, max]. */
  readonly faultEvery?: readonly [number, number];
  /** Echo each history line (the program does; the test keeps quiet). */
  readonly echo?: (line: string) => void;
}

const REPLICAS = ['replica-a', 'replica-b'];
const LEASE = 'cdk8s-operators-leader';
const MAX_VIOLATIONS_WITH_HISTORY = 20;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One soak: a control plane of its own, two replicas behind the fault proxy, churn and faults for `durationMs`, then convergence and the report. */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const history = new History(options.echo);
  const rng = new Rng(options.seed);
  const [workRng, faultRng, coinRng] = [rng.fork(), rng.fork(), rng.fork()];
  const started = new Date().toISOString();
  // The code it runs: read now, as commits made while it runs are not in it.
  const commit = gitCommit(repoRoot());
  history.add('soak', `seed ${options.seed}, ${options.durationMs / 1000} s of chaos; starting a control plane of its own`);
  const cluster: SoakCluster = await startSoakCluster();
  const tls = selfSigned();
  const proxy = await startFaultProxy({ upstream: cluster.plane.server, upstreamCa: cluster.apiCa, ...tls, replicas: REPLICAS, coin: (share) => coinRng.chance(share) });
  const kubeconfig = (name: string) => join(cluster.dir, `${name}.kubeconfig`);
  for (const name of REPLICAS) writeKubeconfig(kubeconfig(name), proxy.url(name), tls.cert, cluster.token);
  const replicas = new Replicas(REPLICAS, cluster.dir, (name) => ['--kubeconfig', kubeconfig(name), '--http-port', '0', '--metrics-secure=false', '--exchange-rate-url', cluster.provider.url, '--exchange-rate-allow-http', '--leader-election-lease', LEASE, `--copyrator-trusted-namespaces=${NS.copySource}`]);
  const workload = new Workload(cluster.objects, workRng, history);
  const leaks = new LeakScanner((where) => checker.violate('secret-leak', where));
  let restarts = 0;
  const planeRestarts: Record<string, number> = {};
  const lifecycle = new Lifecycle((what) => checker.violate('acted-while-stopping', what));
  const checker: Checker = new Checker(cluster.kc, cluster.rest, history, leaks, () => {
    for (const value of workload.secretValues) leaks.learn(value);
    for (const name of REPLICAS) leaks.scanFile(replicas.logFile(name), (line) => lifecycle.observe(name, line));
    for (const exit of replicas.restartExited()) {
      restarts++;
      history.add('soak', `${exit.name} exited (${exit.why}): started again`);
      if (!exit.expected) checker.violate('replica-crash', `${exit.name}: ${exit.why} (log ${replicas.logFile(exit.name)})`);
    }
    for (const exit of faults.superviseControlPlane()) {
      planeRestarts[exit.name] = (planeRestarts[exit.name] ?? 0) + 1;
      history.add('soak', `control plane: ${exit.name} exited on its own: started again; its log ended: ${exit.logTail.split('\n').at(-1)?.slice(0, 300)}`);
    }
  });
  const faults = new Faults({ dir: cluster.dir, objects: cluster.objects, provider: cluster.provider, proxy, replicas, failStage: cluster.failStage, leaseName: LEASE }, faultRng, history);
  checker.planeDown = () => faults.planeDown;
  history.add('soak', `control plane in ${cluster.dir}; kwok stage failing pods by label: ${cluster.failStage ? 'present' : 'absent'}`);

  // Ctrl-C or SIGTERM ends the run early, still stopping everything it started.
  let interrupted = false;
  const interrupt = () => {
    interrupted = true;
    history.add('soak', 'interrupted: stopping');
  };
  process.once('SIGINT', interrupt).once('SIGTERM', interrupt);
  try {
    await checker.start();
    replicas.startAll();
    await workload.seed();
    const chaosEnds = Date.now() + options.durationMs;
    const [minGap, maxGap] = options.faultEvery ?? [5, 25];
    let nextFault = Date.now() + Math.min(20_000, options.durationMs / 10);
    while (Date.now() < chaosEnds) {
      if (interrupted) throw new Error('interrupted before the end of the chaos: no report');
      await workload.step();
      if (Date.now() >= nextFault) {
        faults.inject();
        nextFault = Date.now() + faultRng.int(minGap, maxGap) * 1000;
      }
      await sleep(workRng.int(500, 3000));
    }
    history.add('soak', 'chaos over: healing every fault and waiting for convergence');
    await faults.healAll();
    await workload.settle();
    const healed = Date.now();
    const convergence = await converge(checker, workload, healed, history);
    history.add('soak', `quiet window: ${QUIET_WINDOW_MS / 1000} s with no change`);
    const quietFrom = Date.now();
    await sleep(QUIET_WINDOW_MS);
    for (const [object, n] of writesPerObject(proxy.writes, quietFrom, Date.now())) {
      if (n > QUIET_WRITES_PER_OBJECT) checker.violate('write-storm', `${object}: ${n} writes in the quiet ${QUIET_WINDOW_MS / 1000} s`);
    }
    const judged = judgeWrites(proxy.writes, checker.terms);
    for (const finding of judged.twoActors) checker.violate('two-actors', finding);
    for (const finding of judged.withoutLease) checker.violate('write-without-lease', finding);
    for (const storm of judged.storms) checker.violate('write-storm', storm.what, storm.what, storm.at);
    for (const name of REPLICAS) leaks.scanFile(replicas.logFile(name), (line) => lifecycle.observe(name, line));

    const byReplica: Record<string, number> = {};
    for (const w of proxy.writes) byReplica[w.replica] = (byReplica[w.replica] ?? 0) + 1;
    const faultCounts = Object.fromEntries(FAULT_TYPES.map((t) => [t, { injected: faults.records.filter((r) => r.type === t && !r.skipped).length, skipped: faults.records.filter((r) => r.type === t && r.skipped).length }]));
    const violations = checker.violations.map((v, i) => ({ ...v, history: i < MAX_VIOLATIONS_WITH_HISTORY ? history.before(v.at) : [] }));
    return {
      seed: options.seed,
      commit,
      started,
      durationSeconds: options.durationMs / 1000,
      failStage: cluster.failStage,
      faults: faultCounts,
      faultLog: faults.records,
      churned: workload.counts,
      writes: { accepted: proxy.writes.length, byReplica, maxPerObjectMinute: judged.maxPerMinute, proxyAnswers: proxy.answered },
      leaderTerms: checker.terms.length,
      replicaRestarts: restarts,
      controlPlaneRestarts: planeRestarts,
      convergence,
      invariants: invariantCounts(checker.violations),
      violations,
      passed: checker.violations.length === 0,
      ...(checker.violations.length ? { keptFolder: cluster.dir } : {}),
    };
  } finally {
    process.off('SIGINT', interrupt).off('SIGTERM', interrupt);
    checker.stop();
    await replicas.stopAll();
    await proxy.close();
    await cluster.stop(checker.violations.length > 0);
  }
}

/** Waits until every object converged (or the bound passed, each one left counting as a violation). */
async function converge(checker: Checker, workload: Workload, healed: number, history: History): Promise<SoakReport['convergence']> {
  const firstConverged = new Map<string, number>();
  const deadline = healed + CONVERGENCE_BOUND_MS;
  for (;;) {
    const objects = [...checker.owners.values()];
    const pending = objects.filter((o) => !converged(o, checker, workload)).map(describeJson);
    const orphans = checker.orphans();
    for (const o of objects) if (!pending.includes(describeJson(o)) && !firstConverged.has(describeJson(o))) firstConverged.set(describeJson(o), Date.now() - healed);
    if (!pending.length && !orphans.length) {
      const slowest = [...firstConverged].sort((a, b) => b[1] - a[1])[0];
      const allSeconds = Math.round((Date.now() - healed) / 100) / 10;
      history.add('soak', `converged: ${objects.length} objects in ${allSeconds} s`);
      return { boundSeconds: CONVERGENCE_BOUND_MS / 1000, allSeconds, slowest: slowest && { object: slowest[0], seconds: Math.round(slowest[1] / 100) / 10 } };
    }
    if (Date.now() > deadline) {
      for (const p of pending) checker.violate('convergence', `${p} did not converge within ${CONVERGENCE_BOUND_MS / 1000} s: ${explain(checker, p)}`);
      for (const o of orphans) checker.violate('convergence', `${o} still outlives its owner ${CONVERGENCE_BOUND_MS / 1000} s after the faults stopped`);
      return { boundSeconds: CONVERGENCE_BOUND_MS / 1000 };
    }
    await sleep(2000);
  }
}

function explain(checker: Checker, described: string): string {
  const o = [...checker.owners.values()].find((x) => describeJson(x) === described);
  if (!o) return 'gone';
  const ready = readyCondition(o);
  return `generation ${o.metadata.generation}, observed ${o.status?.observedGeneration}, Ready ${ready?.status ?? 'missing'} (${ready?.reason ?? ''}: ${String((ready as { message?: string } | undefined)?.message ?? '').slice(0, 200)})${o.metadata.deletionTimestamp ? ', being deleted' : ''}`;
}

/**
 * Converged: deleted ones gone (a Database whose final snapshot failed waits for a person,
 * as documented), and the rest with the status of their latest generation and Ready, or the
 * Conflict their planted neighbour must cause, or any verdict for a Database whose Job the soak failed.
 */
function converged(o: Json, checker: Checker, workload: Workload): boolean {
  const failedJob = o.kind === 'Database' && [...checker.jobs.values()].some((j) => j.metadata.name.startsWith(`${o.metadata.name}-`) && isFailed(j));
  if (o.metadata.deletionTimestamp) return o.kind === 'Database' && failedJob;
  if (o.status?.observedGeneration !== o.metadata.generation) return false;
  const ready = readyCondition(o);
  if (!ready) return false;
  if (workload.conflicted.has(describeJson(o))) return ready.status === 'False' && ready.reason === 'Conflict';
  return failedJob || ready.status === 'True';
}

/** A Job that gave up (its backoffLimit spent), not one that failed a Pod and retries. */
function isFailed(job: Json): boolean {
  return ((job.status?.conditions ?? []) as { type: string; status: string }[]).some((c) => c.type === 'Failed' && c.status === 'True');
}

export { NS };
