import * as k8s from '@kubernetes/client-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { CATEGORY } from '../../src/bundle/crd';
import { ObjectClient } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { ControlPlaneState, repoRoot, startWatchdog, stopControlPlane, upLocalControlPlane } from '../../src/testing/controlplane/controlplane';
import { freePort } from '../../src/testing/controlplane/processes';
import { applyBundle } from '../../test/support/apply-bundle';
import { FakeRateProvider, startRateProvider } from '../../test/support/rate-provider';
import { DevChild } from './children';
import { buildAndSynth, portIsFree, waitForHttp } from './steps';
import { watchTrees } from './watch';

/**
 * `npm run dev`: the live loop for developers of kinds. A local control plane (the one of
 * `npm run cluster:up` when it runs, else one started alike, storage included), the bundle
 * with every kind's example applied, and the controller and the guitar UI running from lib/,
 * rebuilt and restarted whenever src/ changes.
 * SIGINT or SIGTERM stops all it started, leaving a control plane that was running before.
 *
 * Environment: CLUSTER_DIR (default .cluster/), EXCHANGE_RATE_URL (default: a fake provider
 * in this process), DEV_UI_PORT (default 8080, or a free port when that is taken),
 * DEV_WATCH (folders to watch, separated by ':'; default src/).
 */
const FIELD_MANAGER = 'cdk8s-operators-dev';
const DEBOUNCE_MS = 300;
/** The controller and the UI run from source instead of the image: dist/'s Deployments are not applied. */
const RUN_FROM_SOURCE = (o: { kind: string }) => o.kind === 'Deployment';

class Stopping extends Error {}

const root = repoRoot();
const say = (line: string) => process.stdout.write(`${line}\n`);
/** A path as the developer would type it: relative inside the checkout. */
const shown = (path: string) => (path.startsWith(`${root}/`) ? relative(root, path) : path);
const clusterDir = resolve(process.env.CLUSTER_DIR ?? join(root, '.cluster'));
const watchDirs = (process.env.DEV_WATCH ?? join(root, 'src')).split(':').filter(Boolean);
const work = mkdtempSync(join(tmpdir(), 'cdk8s-operators-dev-'));

let stopping = false;
let plane: ControlPlaneState | undefined;
let startedPlane = false;
let provider: FakeRateProvider | undefined;
let watcher: { close(): Promise<void> } | undefined;
/** Where the controller serves conversion, on loopback; the dev CRDs point there. */
let webhookPort = 0;
let webhookUrl = '';
const children: DevChild[] = [];

/** Throws once a signal asked to stop, so that startup goes no further. */
function check(): void {
  if (stopping) throw new Stopping();
}

async function controlPlane(): Promise<ControlPlaneState> {
  const { state, started } = await upLocalControlPlane(clusterDir, () => say(`dev: starting a local control plane in ${clusterDir}`));
  startedPlane = started;
  // Should dev die without its clean-up (SIGKILL, a crash), the control plane it started stops too.
  if (started) startWatchdog(state.processes);
  else say(`dev: using the control plane already running in ${clusterDir} (it keeps running after dev)`);
  return state;
}

/** Synthesizes the bundle with the examples and applies it; false (and said why) when that failed. */
async function synthAndApply(objects: ObjectClient, build: boolean): Promise<boolean> {
  const dist = await buildAndSynth(root, work, build, say);
  if (!dist) return false;
  try {
    const applied = await applyBundle(objects, dist, { skip: RUN_FROM_SOURCE, webhook: { url: webhookUrl } });
    say(`dev: applied ${applied.length} objects (CRDs, the operator without its Deployments, the examples)`);
    return true;
  } catch (err) {
    say(`dev: applying the bundle failed: ${(err as Error).message}`);
    return false;
  }
}

/** The port asked for in DEV_UI_PORT; else 8080 when it is free, else any free one. */
async function choosePort(asked: string | undefined): Promise<number> {
  if (asked !== undefined && asked !== '') {
    const port = Number(asked);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`DEV_UI_PORT: expected a port number from 1 to 65535, got "${asked}"`);
    return port;
  }
  return (await portIsFree(8080)) ? 8080 : freePort();
}

/** Stops the controller and the UI and starts them from the new lib/; resolves once the UI answers again. */
async function restart(uiUrl: string, why: string): Promise<void> {
  await Promise.all(children.map((c) => c.stop()));
  if (stopping) return;
  for (const c of children) c.start();
  await waitForHttp(`${uiUrl}healthz`, 30_000).catch((err: Error) => say(`dev: ${err.message}`));
  say(`dev: restarted ${children.map((c) => c.name).join(' and ')} (${why})`);
}

async function start(): Promise<void> {
  plane = await controlPlane();
  check();
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(plane.kubeconfig);
  const objects = new ObjectClient(new KubeRest(kc), FIELD_MANAGER);
  let rateUrl = process.env.EXCHANGE_RATE_URL;
  if (!rateUrl) {
    provider = await startRateProvider();
    rateUrl = provider.url;
  }
  check();
  webhookPort = await freePort();
  webhookUrl = `https://127.0.0.1:${webhookPort}/convert`;
  if (!(await synthAndApply(objects, false))) throw new Error('the first synth and apply failed (see above)');
  check();

  const uiPort = await choosePort(process.env.DEV_UI_PORT);
  const bin = join(root, 'bin', 'cdk8s-operators');
  const kubeconfig = `--kubeconfig=${plane.kubeconfig}`;
  const env = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${JSON.stringify(join(__dirname, 'orphan-guard.js'))}`.trim() };
  children.push(
    // It serves conversion on loopback, where the CRDs point (no Service routes to this machine).
    new DevChild('controller', [bin, 'controller', kubeconfig, '--leader-election=false', '--http-port=0', '--metrics-port=0', '--conversion-webhook=true', `--webhook-url=${webhookUrl}`, `--webhook-port=${webhookPort}`, '--webhook-host=127.0.0.1'], { ...env, EXCHANGE_RATE_URL: rateUrl, ...(provider ? { EXCHANGE_RATE_ALLOW_HTTP: 'true' } : {}) }, say, () => stopping),
    // Only on this machine, on loopback: the UI acts with the control plane's admin credentials, without a login (an explicit opt-in).
    new DevChild('ui', [bin, 'ui', kubeconfig, '--host=127.0.0.1', `--port=${uiPort}`, '--auth=service-account'], env, say, () => stopping),
  );
  for (const c of children) c.start();
  const uiUrl = `http://127.0.0.1:${uiPort}/`;
  await waitForHttp(`${uiUrl}healthz`, 30_000);
  check();

  watcher = watchTrees(watchDirs, DEBOUNCE_MS, async (changed) => {
    const what = changed.map(shown).slice(0, 3).join(', ') + (changed.length > 3 ? ', ...' : '');
    say(`dev: changed: ${what}; rebuilding`);
    if (stopping) return;
    if (await synthAndApply(objects, true)) await restart(uiUrl, `after a change in ${what}`);
    else say('dev: kept the running controller and UI; fix the error and save again');
  });

  say(
    [
      `dev: ready: the controller and the guitar UI run from source and restart when ${watchDirs.map(shown).join(', ')} changes`,
      `  export KUBECONFIG=${plane.kubeconfig}`,
      `  kubectl get ${CATEGORY} -A`,
      `  guitar UI: ${uiUrl}`,
      provider
        ? `  ExchangeRates ask a fake rate provider at ${rateUrl} (EXCHANGE_RATE_URL=<url> npm run dev asks a real one)`
        : `  ExchangeRates ask ${rateUrl}`,
      `  Ctrl-C stops everything dev started${startedPlane ? ', the control plane too' : '; the control plane it found keeps running (npm run cluster:down stops it)'}`,
    ].join('\n'),
  );
}

async function shutdown(why: string, code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  say(`dev: ${why}: stopping`);
  await startup.catch(() => undefined);
  await watcher?.close();
  await Promise.all(children.map((c) => c.stop()));
  await provider?.close();
  if (startedPlane) await stopControlPlane(clusterDir);
  rmSync(work, { recursive: true, force: true });
  say(`dev: stopped${startedPlane || !plane ? '; nothing left running' : `; the control plane in ${clusterDir} keeps running`}`);
  process.exit(code);
}

process.on('SIGINT', () => void shutdown('SIGINT', 0));
process.on('SIGTERM', () => void shutdown('SIGTERM', 0));
// The terminal closed: Node's default would exit at once, leaving what dev started.
process.on('SIGHUP', () => void shutdown('SIGHUP', 0));
const startup = start();
startup.catch((err: Error) => {
  if (err instanceof Stopping) return;
  say(`dev: ${err.message}`);
  void shutdown('startup failed', 1);
});
