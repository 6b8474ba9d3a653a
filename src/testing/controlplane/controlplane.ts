import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ApiEndpoint, apiRequest } from './api';
import { readServingCa, writeCredentials, writeKubeconfig } from './credentials';
import { writeKwokStages } from './kwok-stages';
import { freePort, ManagedProcess, sleep, startProcess, stillRunning, stopProcesses } from './processes';
import { loopbackApiServerFlags, Release, releaseOfBinaries, sameRelease, storageMigrationFlags } from './release';

/** What a running control plane leaves in its directory, so another process can use or stop it. */
export interface ControlPlaneState {
  readonly kubeconfig: string;
  readonly server: string;
  readonly logDir: string;
  readonly processes: ManagedProcess[];
  /** The Kubernetes release it runs (absent in the state of a control plane started before it was recorded). */
  readonly release?: Release;
}

/** The fake node kwok manages: Pods scheduled onto it become Ready or Succeeded without a kubelet. */
export const FAKE_NODE_NAME = 'kwok-node-0';

/** kube-controller-manager's controllers that our kinds and their children rely on. */
const CONTROLLERS = [
  'garbage-collector-controller',
  'namespace-controller',
  'deployment-controller',
  'replicaset-controller',
  'statefulset-controller',
  'daemonset-controller',
  'job-controller',
  'cronjob-controller',
  'ttl-after-finished-controller',
  'disruption-controller',
  'endpointslice-controller',
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  'root-ca-certificate-publisher-controller',
  'persistentvolume-binder-controller',
  // Without these, a bound claim's and a volume's protection finalizers are never lifted, and
  // a namespace holding claims never finishes deleting.
  'persistentvolumeclaim-protection-controller',
  'persistentvolume-protection-controller',
  'pod-garbage-collector-controller',
  // A real cluster's built-in edit, admin and view roles gain our kinds through aggregation: the
  // tests that act as a namespace's editor (test/support/tenancy.ts) see what its users really get.
  'clusterrole-aggregation-controller',
  // A ValidatingAdmissionPolicy's type check (status.typeChecking), as a real cluster reports it (test/security/controller-policy.test.ts).
  'validatingadmissionpolicy-status-controller',
];

const STARTUP_TIMEOUT_MS = 120_000;
const stateFile = (dir: string) => join(dir, 'state.json');

/** The checkout's root, whether this file runs from src/ (ts-jest) or lib/src/ (compiled); the engine package's root when it runs from the package. */
export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

/**
 * The control plane's Go modules, build script and kwok stages: test/controlplane/ of the
 * checkout, which the engine package carries at the same path (scripts/package/).
 */
export function controlPlaneAssets(): string {
  return join(repoRoot(), 'test', 'controlplane');
}

/** A compiled program beside this module: here when it runs compiled (lib/ or the package), in lib/ when ts-jest runs it from src/. */
function compiledBeside(name: string): string {
  return __filename.endsWith('.js') ? join(__dirname, name) : join(repoRoot(), 'lib', 'src', 'testing', 'controlplane', name);
}

/**
 * Starts the watchdog (watchdog.ts, compiled into lib/ by `npm run build`) beside `processes`:
 * when `parent` dies without stopping them (killed, timed out), it stops them.
 */
export function startWatchdog(processes: readonly ManagedProcess[], parent = process.pid): void {
  spawn(process.execPath, [compiledBeside('watchdog.js'), String(parent), JSON.stringify(processes)], { detached: true, stdio: 'ignore' }).unref();
}

/**
 * Builds the binaries of `kubernetesVersion` if needed (cached outside the repo) and returns
 * their directory. Under a lock: test runs started together on a new machine wait for one
 * build rather than each compiling its own (seven at once took the cores for half an hour).
 */
export function controlPlaneBinaries(kubernetesVersion = process.env.KUBERNETES_VERSION): string {
  const lock = join(tmpdir(), `cdk8s-operators-controlplane-build-${process.getuid?.() ?? 0}.lock`);
  const env = { ...process.env, KUBERNETES_VERSION: kubernetesVersion ?? '' };
  const output = execFileSync('flock', [lock, 'bash', join(controlPlaneAssets(), 'build.sh')], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'inherit'] });
  return output.trim().split('\n').at(-1)!;
}

export function readState(dir: string): ControlPlaneState | undefined {
  return existsSync(stateFile(dir)) ? (JSON.parse(readFileSync(stateFile(dir), 'utf8')) as ControlPlaneState) : undefined;
}

export function isRunning(state: ControlPlaneState): boolean {
  return state.processes.every(stillRunning);
}

/**
 * The control plane of `npm run cluster:up` and `npm run dev` in `dir`: the one running there
 * already (`started` false), else a new one with storage (after stopping what is left of one
 * that stopped half-way); `starting` is called before a start, which takes a while. Storage
 * (a default StorageClass) needs this checkout's lib/test/controlplane/storage.js.
 */
export async function upLocalControlPlane(dir: string, starting: () => void = () => undefined, options: Pick<ControlPlaneOptions, 'storage'> = { storage: true }): Promise<{ state: ControlPlaneState; started: boolean }> {
  mkdirSync(dir, { recursive: true });
  const running = readState(dir);
  if (running && isRunning(running)) {
    const asked = process.env.KUBERNETES_VERSION;
    if (asked && running.release && !sameRelease(running.release, asked)) {
      throw new Error(`the control plane in ${dir} runs Kubernetes ${running.release.version}, not KUBERNETES_VERSION=${asked}: stop it first (npm run cluster:down)`);
    }
    return { state: running, started: false };
  }
  if (running) await stopControlPlane(dir);
  starting();
  return { state: await startControlPlane(dir, options), started: true };
}

export interface ControlPlaneOptions {
  /**
   * The Kubernetes release: a minor build.sh has a module for (`1.37`, `1.36`) or its exact
   * version. Default: KUBERNETES_VERSION, else build.sh's default (1.37).
   */
  readonly kubernetesVersion?: string;
  /**
   * Also run the storage process (storage.ts): a default StorageClass and a provisioner that
   * gives each claim a volume, as kind and k3d have. Default false: tests that need volumes on
   * the shared control plane start a provisioner of their own, for their namespace.
   */
  readonly storage?: boolean;
  /**
   * Serve the StorageVersionMigration API and run its migrator (true) or not (false); default:
   * as the release's default cluster does (1.37: both, GA; 1.36: neither, beta and off). See
   * storageMigrationFlags in release.ts for the flags each release needs. The migrator needs
   * the garbage collector, whose graph it uses, which CONTROLLERS has.
   */
  readonly storageVersionMigration?: boolean;
}

/**
 * Starts etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok on
 * 127.0.0.1 with fresh ports, data and credentials under `dir` (and the storage process when
 * asked for), and returns once the API server is ready, the fake node is Ready, the default
 * ServiceAccount exists and, with storage, the default StorageClass.
 */
export async function startControlPlane(dir: string, options: ControlPlaneOptions = {}): Promise<ControlPlaneState> {
  const bin = controlPlaneBinaries(options.kubernetesVersion);
  const release = releaseOfBinaries(bin);
  const svm = storageMigrationFlags(release, options.storageVersionMigration);
  const logDir = join(dir, 'logs');
  const certDir = join(dir, 'certs');
  for (const d of [logDir, certDir]) mkdirSync(d, { recursive: true });
  rmSync(join(dir, 'etcd'), { recursive: true, force: true });
  const credentials = writeCredentials(dir);
  const [etcdPort, etcdPeerPort, apiPort, controllerManagerPort, schedulerPort] = await Promise.all(
    Array.from({ length: 5 }, freePort),
  );

  const processes: ManagedProcess[] = [];
  const start = (name: string, args: string[]) => processes.push(startProcess(name, join(bin, name), args, logDir));
  const kubeconfig = join(dir, 'kubeconfig');
  const server = `https://127.0.0.1:${apiPort}`;
  const state: ControlPlaneState = { kubeconfig, server, logDir, processes, release };
  const saveState = () => writeFileSync(stateFile(dir), JSON.stringify(state, null, 2));

  try {
    const etcdUrl = `http://127.0.0.1:${etcdPort}`;
    const peerUrl = `http://127.0.0.1:${etcdPeerPort}`;
    start('etcd', [
      '--name=local',
      `--data-dir=${join(dir, 'etcd')}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=local=${peerUrl}`,
      '--unsafe-no-fsync=true',
      '--log-level=warn',
    ]);
    saveState();
    await waitFor('etcd to answer /health', processes, async () => (await fetch(`${etcdUrl}/health`)).ok);

    start('kube-apiserver', [
      `--etcd-servers=${etcdUrl}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      `--cert-dir=${certDir}`,
      '--authorization-mode=RBAC',
      `--token-auth-file=${credentials.tokenFile}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${credentials.serviceAccountPublicKey}`,
      `--service-account-signing-key-file=${credentials.serviceAccountPrivateKey}`,
      '--service-cluster-ip-range=10.96.0.0/16',
      '--allow-privileged=true',
      '--profiling=false',
      ...loopbackApiServerFlags(release),
      ...svm.apiServer,
    ]);
    saveState();
    // The file exists a moment before its chain (the serving certificate, then the CA) is written into it.
    await waitFor('kube-apiserver to write its serving certificate', processes, () => existsSync(join(certDir, 'apiserver.crt')) && readFileSync(join(certDir, 'apiserver.crt'), 'utf8').split('-----END CERTIFICATE-----').length > 2);
    const caPem = readServingCa(certDir);
    const endpoint: ApiEndpoint = { server, caPem, token: credentials.adminToken };
    await waitFor('kube-apiserver to answer /readyz with ok', processes, async () => (await apiRequest(endpoint, 'GET', '/readyz')).body === 'ok');
    writeKubeconfig(kubeconfig, server, caPem, credentials.adminToken);
    const caFile = join(dir, 'ca.crt');
    writeFileSync(caFile, caPem);

    const delegatedAuth = [`--kubeconfig=${kubeconfig}`, `--authentication-kubeconfig=${kubeconfig}`, `--authorization-kubeconfig=${kubeconfig}`];
    start('kube-controller-manager', [
      ...delegatedAuth,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${controllerManagerPort}`,
      '--use-service-account-credentials=false',
      `--controllers=${[...CONTROLLERS, ...svm.controllers].join(',')}`,
      ...svm.controllerManager,
      `--service-account-private-key-file=${credentials.serviceAccountPrivateKey}`,
      `--root-ca-file=${caFile}`,
    ]);
    start('kube-scheduler', [...delegatedAuth, '--leader-elect=false', '--bind-address=127.0.0.1', `--secure-port=${schedulerPort}`]);
    const stages = writeKwokStages(join(bin, 'kwok-stages'), controlPlaneAssets(), join(dir, 'kwok-stages'));
    start('kwok', [
      `--kubeconfig=${kubeconfig}`,
      '--manage-all-nodes=false',
      '--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake',
      '--cidr=10.0.0.0/16',
      '--node-ip=127.0.0.1',
      ...stages.map((file) => `--config=${file}`),
    ]);
    saveState();

    await createFakeNode(endpoint);
    await waitFor(`node ${FAKE_NODE_NAME} to be Ready`, processes, async () => nodeIsReady(await apiRequest(endpoint, 'GET', `/api/v1/nodes/${FAKE_NODE_NAME}`)));
    await untaintFakeNode(endpoint);
    await waitFor('the default ServiceAccount', processes, async () => (await apiRequest(endpoint, 'GET', '/api/v1/namespaces/default/serviceaccounts/default')).status === 200);
    if (options.storage) {
      processes.push(startProcess('storage', process.execPath, [join(repoRoot(), 'lib', 'test', 'controlplane', 'storage.js'), kubeconfig, join(dir, 'volumes')], logDir));
      saveState();
      await waitFor('the storage process to install the default StorageClass', processes, async () => hasDefaultStorageClass(await apiRequest(endpoint, 'GET', '/apis/storage.k8s.io/v1/storageclasses')));
    }
    return state;
  } catch (err) {
    await stopProcesses(processes);
    throw err;
  }
}

/**
 * Stops one process (e.g. kube-apiserver) and starts it again with the same arguments, as a
 * node reboot or an upgrade would; returns once it is back (for the API server: /readyz ok).
 */
export async function restartProcess(dir: string, name: string, down: () => Promise<void> = async () => undefined): Promise<void> {
  const state = readState(dir);
  const index = state?.processes.findIndex((p) => p.name === name) ?? -1;
  if (!state || index < 0) throw new Error(`no process ${name} in the control plane in ${dir}`);
  const old = state.processes[index];
  await stopProcesses([old]);
  await down();
  state.processes[index] = startProcess(name, old.binary, old.args, state.logDir);
  writeFileSync(stateFile(dir), JSON.stringify(state, null, 2));
  if (name === 'kube-apiserver') {
    const endpoint: ApiEndpoint = { server: state.server, caPem: readFileSync(join(dir, 'ca.crt'), 'utf8'), token: readAdminToken(dir) };
    await waitFor('kube-apiserver to answer /readyz with ok again', state.processes, async () => (await apiRequest(endpoint, 'GET', '/readyz')).body === 'ok');
  }
}

/**
 * Starts again, with the same arguments, each process of the control plane in `dir` that
 * exited though nobody stopped it, as a supervisor (systemd, the kubelet for static Pods)
 * would; returns them with the last lines of their logs, which say why. Not to be called
 * while restartProcess() has a process down.
 */
export function restartExited(dir: string): { name: string; logTail: string }[] {
  const state = readState(dir);
  if (!state) return [];
  const exited = state.processes.map((p, index) => ({ p, index, logTail: '' })).filter(({ p }) => !stillRunning(p));
  for (const e of exited) {
    e.logTail = tail(e.p.logFile, 5);
    state.processes[e.index] = startProcess(e.p.name, e.p.binary, e.p.args, state.logDir);
  }
  if (exited.length) writeFileSync(stateFile(dir), JSON.stringify(state, null, 2));
  return exited.map(({ p, logTail }) => ({ name: p.name, logTail }));
}

function readAdminToken(dir: string): string {
  return readFileSync(join(dir, 'tokens.csv'), 'utf8').split(',')[0];
}

export async function stopControlPlane(dir: string): Promise<void> {
  const state = readState(dir);
  if (!state) return;
  // Reverse order: the clients go before the API server, the API server before etcd.
  await stopProcesses([...state.processes].reverse());
  rmSync(stateFile(dir), { force: true });
  rmSync(join(dir, 'etcd'), { recursive: true, force: true });
  rmSync(join(dir, 'volumes'), { recursive: true, force: true });
}

async function createFakeNode(endpoint: ApiEndpoint): Promise<void> {
  // Pods under the restricted profile ask for ephemeral storage too: without it here none would fit.
  const resources = { cpu: '32', memory: '256Gi', pods: '1000', 'ephemeral-storage': '1Ti' };
  const node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: FAKE_NODE_NAME,
      annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      labels: { 'kubernetes.io/hostname': FAKE_NODE_NAME, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', type: 'kwok' },
    },
    status: { allocatable: resources, capacity: resources },
  };
  const res = await apiRequest(endpoint, 'POST', '/api/v1/nodes', node);
  if (res.status !== 201) throw new Error(`creating node ${FAKE_NODE_NAME} failed: HTTP ${res.status} ${res.body}`);
}

/**
 * Admission taints a new node not-ready; the node-lifecycle controller would lift that once
 * the node reports Ready, but it is not run (it would also evict from a node with no kubelet).
 */
async function untaintFakeNode(endpoint: ApiEndpoint): Promise<void> {
  const res = await apiRequest(endpoint, 'PATCH', `/api/v1/nodes/${FAKE_NODE_NAME}`, { spec: { taints: null } }, 'application/merge-patch+json');
  if (res.status !== 200) throw new Error(`removing the taints of node ${FAKE_NODE_NAME} failed: HTTP ${res.status} ${res.body}`);
}

function hasDefaultStorageClass(res: { status: number; body: string }): boolean {
  if (res.status !== 200) return false;
  const classes: { metadata: { annotations?: Record<string, string> } }[] = JSON.parse(res.body).items;
  return classes.some((c) => c.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true');
}

function nodeIsReady(res: { status: number; body: string }): boolean {
  if (res.status !== 200) return false;
  const conditions: { type: string; status: string }[] = JSON.parse(res.body).status?.conditions ?? [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Polls `check` until it holds; fails early, naming the log, when a process has died. */
async function waitFor(what: string, processes: ManagedProcess[], check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  let lastError = '';
  while (Date.now() < deadline) {
    const dead = processes.find((p) => !stillRunning(p));
    if (dead) throw new Error(`${dead.name} exited while waiting for ${what}; its log: ${dead.logFile}\n${tail(dead.logFile)}`);
    try {
      if (await check()) return;
    } catch (err) {
      lastError = (err as Error).message;
    }
    await sleep(250);
  }
  const logs = processes.map((p) => p.logFile).join(', ');
  throw new Error(`timed out after ${STARTUP_TIMEOUT_MS / 1000} s waiting for ${what}${lastError ? ` (last error: ${lastError})` : ''}; logs: ${logs}`);
}

function tail(file: string, lines = 20): string {
  return existsSync(file) ? readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n') : '';
}
