/**
 * `npm run bench`: how the ExchangeRate controller performs against a private local control
 * plane. Prints figures; it is not a test and CI does not run it.
 *
 *   A  throughput: N ExchangeRates created until all are Ready, against N ConfigMaps created
 *      directly with the same client and concurrency (the API server's own pace);
 *   B  idle writes: API writes the controller sends in an idle window with a short resync;
 *   C  memory: the controller process's RSS with 0, and each of --memory-objects, ExchangeRates.
 */
import * as k8s from '@kubernetes/client-node';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { KubeObject, ObjectClient } from '../src/kube/objects';
import { KubeError, KubeRest } from '../src/kube/rest';
import { UserError } from '../src/core/errors';
import { OptionSpec } from '../src/commands/command-line';
import { engineOptions } from '../src/commands/controller-options';
import { ControlPlaneState, startControlPlane, stopControlPlane } from '../src/testing/controlplane/controlplane';
import { FakeRateProvider, startRateProvider } from '../test/support/rate-provider';
import { ControllerProcess, startController } from '../test/support/controller-process';
import { Conversion, installCrds } from './setup';
import { Watched } from './watched';
import {
  benchOptions,
  byLabel,
  fixed,
  forEachLimited,
  isTransient,
  parseMetrics,
  processMemory,
  Sample,
  secondsSince,
  sleep,
  Spread,
  spread,
  table,
  total,
  waitUntil,
  withRetries,
} from './support';
import { PRODUCT_IDENTITY } from '../src/product';

/** The options of `npm run bench` (its ExchangeRate figures). */
export const EXCHANGE_RATE_OPTIONS: OptionSpec[] = [
  { name: 'objects', type: 'integer', default: '1000', description: 'Figure A: objects created per run (and kept Ready for figure B).' },
  { name: 'repeat', type: 'integer', default: '3', description: 'Figure A: runs of each measurement; the median and min/max are shown.' },
  { name: 'concurrency', type: 'integer', default: '16', description: 'Creates in flight at once, for ExchangeRates and ConfigMaps alike.' },
  { name: 'workers', type: 'integer', default: '4', description: 'The controller\u2019s --workers.' },
  { name: 'idle', type: 'duration', default: '10m', description: 'Figure B: the idle window over which API writes are counted.' },
  { name: 'resync-period', type: 'duration', default: '1m', description: 'Figures A and B: the controller\u2019s --resync-period, short so every object is resynced in the window.' },
  { name: 'memory-objects', type: 'list', default: '1000,10000', description: 'Figure C: ExchangeRate counts at which the controller\u2019s RSS is sampled.' },
  { name: 'memory-settle', type: 'duration', default: '30s', description: 'Figure C: wait after all objects are Ready before sampling RSS (sampled each second over the last 10 s).' },
];

const NS = 'bench';
const ER_API = 'operators.brennerm.github.io/v1';
const ER_PATH = `/apis/${ER_API}/namespaces/${NS}/exchangerates`;
const CM_PATH = `/api/v1/namespaces/${NS}/configmaps`;
/** Marks the ConfigMaps the benchmark creates itself, so one deletecollection removes them. */
const DIRECT_LABEL = 'bench.cdk8s-operators/direct';
const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];
/** Pairs the fake provider quotes; the objects cycle through them, so the controller fetches each once. */
const PAIRS = [['EUR', 'USD'], ['EUR', 'GBP'], ['EUR', 'CHF'], ['EUR', 'JPY'], ['USD', 'EUR'], ['USD', 'CAD']];
const PROGRESS_EVERY_MS = 10_000;

interface Params {
  readonly objects: number;
  readonly repeat: number;
  readonly concurrency: number;
  readonly workers: number;
  readonly idleMs: number;
  readonly resyncMs: number;
  readonly memoryObjects: number[];
  readonly memorySettleMs: number;
}

type ExchangeRate = KubeObject & {
  metadata: { generation?: number };
  status?: { observedGeneration?: number; conditions?: { type: string; status: string }[] };
};

interface RunningController {
  readonly label: string;
  readonly process: ControllerProcess;
  readonly args: string[];
  /** /healthz and /readyz. */
  readonly port: number;
  /** /metrics, plain HTTP (--metrics-secure=false). */
  readonly metricsPort: number;
  metrics(): Promise<Sample[]>;
  /** Throws, naming the log, when the controller has exited. */
  assertAlive(): void;
}

interface ThroughputRun {
  readonly run: number;
  readonly directCreatedS: number;
  readonly exchangeRatesCreatedS: number;
  readonly exchangeRatesReadyS: number;
}

interface MemorySample {
  readonly exchangeRates: number;
  readonly rssMiB: number;
  readonly peakRssMiB: number;
  readonly controlPlaneRssMiB: number;
}

const log = (text: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${text}\n`);

/** Go-style text of a duration in ms, as the flags take it. */
function durationText(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

function paramsOf(values: Record<string, unknown>): Params {
  const memoryObjects = (values['memory-objects'] as string[]).map((text) => {
    const n = Number(text);
    if (!Number.isSafeInteger(n) || n < 1) throw new UserError(`--memory-objects: expected positive integers, got "${text}"`);
    return n;
  });
  return {
    objects: values.objects as number,
    repeat: values.repeat as number,
    concurrency: values.concurrency as number,
    workers: values.workers as number,
    idleMs: values.idle as number,
    resyncMs: values['resync-period'] as number,
    memoryObjects: [...new Set(memoryObjects)].sort((a, b) => a - b),
    memorySettleMs: values['memory-settle'] as number,
  };
}

/** How long all of `count` new objects may take to become Ready before the benchmark gives up. */
const readyTimeoutMs = (count: number) => 120_000 + 100 * count;

class Bench {
  private plane?: ControlPlaneState;
  private rest!: KubeRest;
  private objects!: ObjectClient;
  private provider?: FakeRateProvider;
  private conversion?: Conversion;
  private readonly controllers: RunningController[] = [];
  private cleaning?: Promise<void>;
  private readonly planeDir: string;

  constructor(
    private readonly params: Params,
    readonly workDir: string,
  ) {
    this.planeDir = join(workDir, 'controlplane');
    mkdirSync(this.planeDir);
  }

  /** The longest the whole benchmark may run: every bounded wait, plus room. */
  get timeLimitMs(): number {
    const { objects, repeat, idleMs, memoryObjects, memorySettleMs } = this.params;
    const runs = repeat * (2 * readyTimeoutMs(objects) + 600_000);
    const memory = memoryObjects.reduce((sum, count) => sum + readyTimeoutMs(count) + memorySettleMs + 20_000, 0) + 600_000;
    return 15 * 60_000 + runs + idleMs + 240_000 + memory;
  }

  async run(): Promise<Record<string, unknown>> {
    const { params } = this;
    log(`starting a private control plane in ${this.planeDir}`);
    this.plane = await startControlPlane(this.planeDir);
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(this.plane.kubeconfig);
    this.rest = new KubeRest(kc);
    this.objects = new ObjectClient(this.rest, 'cdk8s-operators-bench');
    this.conversion = await installCrds(this.objects);
    await this.objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    this.provider = await startRateProvider();
    const machine = await this.machine();

    let controller = await this.launchController('throughput', ['--resync-period', durationText(params.resyncMs)]);
    const throughput = await this.figureA(controller);
    const idle = await this.figureB(controller);
    await controller.process.stop();
    await this.cleanNamespace();
    // A fresh process with the default resync, so the samples hold the caches and not the churn of a 1m resync.
    controller = await this.launchController('memory', []);
    const memory = await this.figureC(controller);

    return {
      date: new Date().toISOString(),
      machine,
      parameters: {
        ...params,
        idle: durationText(params.idleMs),
        resyncPeriod: durationText(params.resyncMs),
        memorySettle: durationText(params.memorySettleMs),
        controllers: this.controllers.map((c) => ({ label: c.label, args: c.args.map((a) => a.replace(this.workDir, '<workdir>')) })),
      },
      figureA: throughput,
      figureB: idle,
      figureC: memory,
      files: { workDir: this.workDir, controllerLogs: this.controllers.map((c) => c.process.logFile), controlPlaneLogs: this.plane.logDir },
    };
  }

  /** Stops everything started, in reverse order; safe to call more than once and after a partial start. */
  cleanup(): Promise<void> {
    this.cleaning ??= (async () => {
      for (const c of this.controllers) await c.process.stop().catch((err) => log(`stopping controller ${c.label}: ${err}`));
      await this.provider?.close().catch((err) => log(`closing the rate provider: ${err}`));
      await this.conversion?.close().catch((err) => log(`closing the conversion webhook: ${err}`));
      await stopControlPlane(this.planeDir).catch((err) => log(`stopping the control plane: ${err}`));
    })();
    return this.cleaning;
  }

  private async machine() {
    const version = await this.rest.request<{ gitVersion: string }>('GET', '/version');
    return {
      cores: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
      kernel: `${process.platform} ${release()}`,
      node: process.version,
      kubeApiServer: version.gitVersion,
    };
  }

  // ---- Figure A ----

  private async figureA(controller: RunningController) {
    const { objects, repeat } = this.params;
    const runs: ThroughputRun[] = [];
    for (let run = 1; run <= repeat; run++) {
      log(`figure A, run ${run}/${repeat}: ${objects} ConfigMaps created directly`);
      const directCreatedS = await this.createConfigMaps(objects);
      await this.cleanNamespace();
      log(`figure A, run ${run}/${repeat}: ${objects} ExchangeRates until all are Ready`);
      const er = await this.createExchangeRatesUntilReady(controller, 0, objects);
      runs.push({ run, directCreatedS, exchangeRatesCreatedS: er.createdS, exchangeRatesReadyS: er.readyS });
      log(`  direct ${fixed(directCreatedS)} s; ExchangeRates created in ${fixed(er.createdS)} s, all Ready after ${fixed(er.readyS)} s`);
      // The last run's objects stay, Ready, for figure B.
      if (run < repeat) await this.cleanNamespace();
    }
    const direct = spread(runs.map((r) => r.directCreatedS));
    const ready = spread(runs.map((r) => r.exchangeRatesReadyS));
    const created = spread(runs.map((r) => r.exchangeRatesCreatedS));
    return { runs, directCreatedS: direct, exchangeRatesCreatedS: created, exchangeRatesReadyS: ready, ratioReadyToDirect: ready.median / direct.median };
  }

  /** Seconds until `count` ConfigMaps are created directly (each POST returned: persisted). */
  private async createConfigMaps(count: number): Promise<number> {
    const start = performance.now();
    await forEachLimited(count, this.params.concurrency, (i) => this.create(configMap(i)));
    const seconds = secondsSince(start);
    const made = await this.list(CM_PATH, { labelSelector: DIRECT_LABEL });
    if (made && made.length !== count) throw new Error(`expected ${count} ConfigMaps after creating them, found ${made.length}`);
    return seconds;
  }

  /**
   * Creates ExchangeRates er-<from>..er-<to - 1> and waits, through a watch, until all `to` of
   * them are Ready=True with observedGeneration == generation. Times from the first create.
   */
  private async createExchangeRatesUntilReady(controller: RunningController, from: number, to: number) {
    const watched = new Watched<ExchangeRate>(this.rest, ER_PATH, isReadyAndCurrent);
    await watched.start();
    try {
      const start = performance.now();
      let createdS: number | undefined;
      let createError: unknown;
      const creating = forEachLimited(to - from, this.params.concurrency, (i) => this.create(exchangeRate(from + i))).then(
        () => void (createdS = secondsSince(start)),
        (err) => void (createError = err),
      );
      let lastProgress = performance.now();
      await watched.until(`${to} ExchangeRates to be Ready with observedGeneration == generation (controller log: ${controller.process.logFile})`, to, readyTimeoutMs(to - from), () => {
        if (createError) throw createError;
        controller.assertAlive();
        if (performance.now() - lastProgress > PROGRESS_EVERY_MS) {
          lastProgress = performance.now();
          log(`  ${watched.counts.matching}/${to} Ready, ${watched.counts.exist} exist, ${fixed(secondsSince(start), 0)} s`);
        }
      });
      const readyS = secondsSince(start);
      await creating;
      if (createError) throw createError;
      return { createdS: createdS!, readyS };
    } finally {
      watched.stop();
    }
  }

  // ---- Figure B ----

  private async figureB(controller: RunningController) {
    const { idleMs, resyncMs, objects } = this.params;
    const writes = (samples: Sample[]) => total(samples, 'cdk8s_operators_api_requests_total', (l) => WRITE_METHODS.includes(l.method));
    // The window opens once the last status writes and Events of figure A have gone out.
    let last = -1;
    let stableSince = performance.now();
    await waitUntil('the controller to stop writing after figure A', 180_000, 1000, async () => {
      const now = writes(await controller.metrics());
      if (now !== last) [last, stableSince] = [now, performance.now()];
      return performance.now() - stableSince >= 10_000 ? true : undefined;
    });

    log(`figure B: idle window of ${durationText(idleMs)} with --resync-period ${durationText(resyncMs)} and ${objects} ExchangeRates Ready`);
    const before = await controller.metrics();
    const providerBefore = this.provider!.requests();
    const start = performance.now();
    let lastProgress = start;
    while (performance.now() - start < idleMs) {
      await sleep(Math.min(5000, idleMs - (performance.now() - start)));
      controller.assertAlive();
      if (performance.now() - lastProgress >= 60_000) {
        lastProgress = performance.now();
        log(`  ${fixed(secondsSince(start) / 60, 1)} of ${fixed(idleMs / 60_000, 1)} min; writes so far ${writes(await controller.metrics()) - writes(before)}`);
      }
    }
    const windowS = secondsSince(start);
    const after = await controller.metrics();
    const stillReady = ((await this.list(ER_PATH)) as ExchangeRate[] | undefined)?.filter(isReadyAndCurrent).length;

    const delta = (name: string, label: string): Record<string, number> => {
      const [a, b] = [byLabel(after, name, label), byLabel(before, name, label)];
      return Object.fromEntries(Object.keys(a).map((k) => [k, a[k] - (b[k] ?? 0)] as const).filter(([, v]) => v !== 0));
    };
    const requestsByMethod = delta('cdk8s_operators_api_requests_total', 'method');
    const reconcilesByResult = delta('cdk8s_operators_reconciles_total', 'result');
    return {
      windowS,
      exchangeRates: objects,
      exchangeRatesReadyAfter: stillReady,
      writeRequests: WRITE_METHODS.reduce((sum, m) => sum + (requestsByMethod[m] ?? 0), 0),
      requestsByMethod,
      reconciles: Object.values(reconcilesByResult).reduce((a, b) => a + b, 0),
      reconcilesByResult,
      expectedResyncs: Math.round((objects * idleMs) / resyncMs),
      childWrites: total(after, 'cdk8s_operators_child_writes_total') - total(before, 'cdk8s_operators_child_writes_total'),
      rateProviderRequests: this.provider!.requests() - providerBefore,
    };
  }

  // ---- Figure C ----

  private async figureC(controller: RunningController) {
    const samples: MemorySample[] = [await this.sampleMemory(controller, 0)];
    let have = 0;
    for (const count of this.params.memoryObjects) {
      log(`figure C: ${count} ExchangeRates (adding ${count - have})`);
      await this.createExchangeRatesUntilReady(controller, have, count);
      have = count;
      samples.push(await this.sampleMemory(controller, count));
    }
    const resyncDefault = engineOptions(PRODUCT_IDENTITY).find((o) => o.name === 'resync-period')?.default;
    return { controllerResyncPeriod: `${resyncDefault} (default)`, samples };
  }

  /** Waits --memory-settle, sampling VmRSS every second over its last 10 s; the median stands. */
  private async sampleMemory(controller: RunningController, exchangeRates: number): Promise<MemorySample> {
    const window = Math.min(10_000, this.params.memorySettleMs);
    await sleep(this.params.memorySettleMs - window);
    const rss: number[] = [];
    const plane: number[] = [];
    const pid = controller.process.child.pid!;
    for (let t = 0; t < window || rss.length === 0; t += 1000) {
      controller.assertAlive();
      rss.push(processMemory(pid).rssMiB);
      plane.push(this.plane!.processes.filter((p) => p.name === 'kube-apiserver' || p.name === 'etcd').reduce((sum, p) => sum + processMemory(p.pid).rssMiB, 0));
      await sleep(1000);
    }
    const sample = { exchangeRates, rssMiB: spread(rss).median, peakRssMiB: processMemory(pid).peakMiB, controlPlaneRssMiB: spread(plane).median };
    log(`  controller RSS ${fixed(sample.rssMiB, 1)} MiB with ${exchangeRates} ExchangeRates (peak so far ${fixed(sample.peakRssMiB, 1)} MiB)`);
    return sample;
  }

  // ---- The cluster and the controller ----

  private async launchController(label: string, extra: string[]): Promise<RunningController> {
    const args = [
      '--kubeconfig', this.plane!.kubeconfig,
      '--kinds', 'exchangerates',
      '--leader-election=false',
      '--http-port', '0',
      // Plain HTTP: the figures are the controller's work, not the metrics' authorization (docs/security.md#metrics).
      '--metrics-secure=false',
      '--exchange-rate-url', this.provider!.url, '--exchange-rate-allow-http',
      '--workers', String(this.params.workers),
      ...extra,
    ];
    const proc = startController(args, join(this.workDir, `controller-${label}.log`));
    const assertAlive = () => {
      if (proc.child.exitCode !== null || proc.child.signalCode !== null) {
        throw new Error(`controller ${label} exited (${proc.child.exitCode ?? proc.child.signalCode}); its log: ${proc.logFile}`);
      }
    };
    const lines = () => jsonLines(proc.logFile);
    const controller: RunningController = {
      label,
      process: proc,
      args,
      port: 0,
      metricsPort: 0,
      assertAlive,
      metrics: async () => {
        const res = await fetch(`http://127.0.0.1:${controller.metricsPort}/metrics`, { signal: AbortSignal.timeout(10_000) });
        if (!res.ok) throw new Error(`GET /metrics of controller ${label}: HTTP ${res.status}`);
        return parseMetrics(await res.text());
      },
    };
    this.controllers.push(controller);
    const port = await waitUntil(`controller ${label} to log "controller starting" with its httpPort (log: ${proc.logFile})`, 60_000, 100, async () => {
      assertAlive();
      const started = lines().find((l) => l.msg === 'controller starting');
      return typeof started?.httpPort === 'number' ? started.httpPort : undefined;
    });
    Object.assign(controller, { port, metricsPort: lines().find((l) => l.msg === 'controller starting')!.metricsPort });
    // /readyz says the caches are synced, but only of the kinds already started: wait for "serving" first.
    await waitUntil(`controller ${label} to serve ExchangeRates (log: ${proc.logFile})`, 60_000, 200, async () => {
      assertAlive();
      return lines().some((l) => l.msg === 'serving' && l.kind === 'ExchangeRate') ? true : undefined;
    });
    await waitUntil(`controller ${label} to answer /readyz with 200`, 60_000, 200, async () => {
      assertAlive();
      const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
      return res?.status === 200 ? true : undefined;
    });
    log(`controller ${label} ready: pid ${proc.child.pid}, http port ${port}, args ${extra.join(' ') || '(defaults)'}`);
    return controller;
  }

  /** POST with retries of transient failures; an AlreadyExists after a retried POST means the first one landed. */
  private create(object: KubeObject): Promise<void> {
    return withRetries(async (attempt) => {
      try {
        await this.objects.create(object);
      } catch (err) {
        if (attempt > 0 && err instanceof KubeError && err.code === 409) return;
        throw err;
      }
    });
  }

  /** The items of a collection, or undefined when the API server failed transiently (a poll tries again). */
  private async list(path: string, query: Record<string, string> = {}): Promise<KubeObject[] | undefined> {
    try {
      return (await this.rest.request<{ items: KubeObject[] }>('GET', path, { query, timeoutMs: 60_000 })).items;
    } catch (err) {
      if (isTransient(err)) return undefined;
      throw err;
    }
  }

  /** Deletes every ExchangeRate and ConfigMap the benchmark made, and waits until they (and the owned ConfigMaps) are gone. */
  private async cleanNamespace(): Promise<void> {
    await withRetries(() => this.rest.request('DELETE', ER_PATH, { timeoutMs: 600_000 }));
    await withRetries(() => this.rest.request('DELETE', CM_PATH, { query: { labelSelector: DIRECT_LABEL }, timeoutMs: 600_000 }));
    await waitUntil(`the ExchangeRates and ConfigMaps of namespace ${NS} to be deleted`, 600_000, 1000, async () => {
      const [ers, cms] = [await this.list(ER_PATH), await this.list(CM_PATH)];
      if (!ers || !cms) return undefined;
      return ers.length === 0 && cms.every((cm) => cm.metadata.name === 'kube-root-ca.crt') ? true : undefined;
    });
  }
}

function exchangeRate(i: number): KubeObject {
  const [base, currency] = PAIRS[i % PAIRS.length];
  return { apiVersion: ER_API, kind: 'ExchangeRate', metadata: { name: `er-${i}`, namespace: NS }, spec: { base, currency } };
}

/** About what the controller writes for an ExchangeRate, so both sides store alike. */
function configMap(i: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `direct-${i}`, namespace: NS, labels: { [DIRECT_LABEL]: 'true' } },
    data: { base: 'EUR', currency: 'USD', rate: '1.0512', date: '2026-11-20' },
  };
}

function isReadyAndCurrent(o: ExchangeRate): boolean {
  const ready = o.status?.conditions?.find((c) => c.type === 'Ready');
  return ready?.status === 'True' && o.status?.observedGeneration === o.metadata.generation;
}

/** The JSON lines of a log so far; a line still being written is skipped, and a log not yet opened has none. */
function jsonLines(file: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // Partial: the rest arrives with the next read.
    }
  }
  return out;
}

// ---- The report ----

function report(results: Record<string, unknown>): string {
  const r = results as {
    machine: Awaited<ReturnType<Bench['machine']>>;
    parameters: Params & { idle: string; resyncPeriod: string; memorySettle: string };
    figureA: Awaited<ReturnType<Bench['figureA']>>;
    figureB: Awaited<ReturnType<Bench['figureB']>>;
    figureC: Awaited<ReturnType<Bench['figureC']>>;
  };
  const { machine: m, parameters: p, figureA: a, figureB: b, figureC: c } = r;
  const row = (what: string, s: Spread) => [what, fixed(s.median), fixed(s.min), fixed(s.max), fixed(p.objects / s.median, 0)];
  return [
    '',
    '== cdk8s-operators controller benchmark ==',
    table([
      ['Machine', `${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB RAM, ${m.kernel}`],
      ['Software', `Node ${m.node}, kube-apiserver ${m.kubeApiServer} (private control plane on 127.0.0.1, etcd without fsync)`],
      ['Parameters', `--objects ${p.objects} --repeat ${p.repeat} --concurrency ${p.concurrency} --workers ${p.workers} --resync-period ${p.resyncPeriod}`],
      ['', `--idle ${p.idle} --memory-objects ${p.memoryObjects.join(',')} --memory-settle ${p.memorySettle}`],
    ]),
    '',
    `Figure A: throughput, ${p.objects} objects created ${p.concurrency} at a time, ${p.repeat} runs (seconds; objects/s at the median)`,
    table([
      ['', 'median', 'min', 'max', 'obj/s'],
      row('ConfigMaps created directly (API server pace)', a.directCreatedS),
      row('ExchangeRates created (POSTs returned)', a.exchangeRatesCreatedS),
      row('ExchangeRates all Ready, observedGeneration current', a.exchangeRatesReadyS),
    ]),
    `Ratio controller/direct (median Ready / median direct): ${fixed(a.ratioReadyToDirect)}×  (Ready is seen through a watch)`,
    '',
    `Figure B: idle writes, ${b.exchangeRates} ExchangeRates Ready, ${fixed(b.windowS / 60, 1)} min window, --resync-period ${p.resyncPeriod}`,
    table([
      ['API writes sent (POST/PUT/PATCH/DELETE)', `${b.writeRequests}`, '(goal: 0)'],
      ['API requests by method', JSON.stringify(b.requestsByMethod)],
      ['Reconciles in the window', `${b.reconciles}`, `(about ${b.expectedResyncs} resyncs expected: objects × idle / resync; ${JSON.stringify(b.reconcilesByResult)})`],
      ['Children applied or pruned', `${b.childWrites}`],
      ['Rate provider requests', `${b.rateProviderRequests}`],
      ['ExchangeRates still Ready afterwards', `${b.exchangeRatesReadyAfter}`],
    ]),
    '',
    `Figure C: controller RSS (VmRSS, median of samples each second over the last ${durationText(Math.min(10_000, p.memorySettleMs))} of ${p.memorySettle} after all are Ready; a fresh controller, --resync-period ${c.controllerResyncPeriod})`,
    table([
      ['ExchangeRates', 'RSS MiB', 'peak MiB', 'kube-apiserver+etcd MiB (excluded)'],
      ...c.samples.map((s) => [`${s.exchangeRates}`, fixed(s.rssMiB, 1), fixed(s.peakRssMiB, 1), fixed(s.controlPlaneRssMiB, 1)]),
    ]),
    perObject(c.samples),
    '',
  ].join('\n');
}

/** The RSS each further ExchangeRate adds, between the first and last non-zero counts (or from none, with one count). */
function perObject(samples: readonly MemorySample[]): string {
  const [low, high] = samples.length > 2 ? [samples[1], samples.at(-1)!] : [samples[0], samples.at(-1)!];
  if (!high || high.exchangeRates === low.exchangeRates) return '';
  const kib = ((high.rssMiB - low.rssMiB) * 1024) / (high.exchangeRates - low.exchangeRates);
  return `RSS per further ExchangeRate, from ${low.exchangeRates} to ${high.exchangeRates}: ${fixed(kib, 2)} KiB`;
}

export async function main(argv: string[]): Promise<number> {
  const params = benchOptions('bench', EXCHANGE_RATE_OPTIONS, argv, paramsOf);
  if (typeof params === 'number') return params;

  const workDir = mkdtempSync(join(tmpdir(), 'cdk8s-operators-bench-'));
  const bench = new Bench(params, workDir);
  const abort = (why: string, code: number) => {
    log(`${why}: stopping everything`);
    void bench.cleanup().finally(() => process.exit(code));
  };
  const watchdog = setTimeout(() => abort(`time limit of ${Math.round(bench.timeLimitMs / 60_000)} min reached`, 3), bench.timeLimitMs);
  process.once('SIGINT', () => abort('SIGINT', 130));
  process.once('SIGTERM', () => abort('SIGTERM', 143));
  log(`working in ${workDir} (logs and results); everything stops by itself within ${Math.round(bench.timeLimitMs / 60_000)} min`);
  try {
    const results = await bench.run();
    await bench.cleanup();
    const file = join(workDir, `results-${(results.date as string).replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(report(results));
    process.stdout.write(`Results as JSON: ${file}\n`);
    return 0;
  } catch (err) {
    log(`failed: ${(err as Error).stack ?? err}`);
    log(`logs are under ${workDir}`);
    return 1;
  } finally {
    clearTimeout(watchdog);
    await bench.cleanup();
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
