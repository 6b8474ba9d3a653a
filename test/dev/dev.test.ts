import * as k8s from '@kubernetes/client-node';
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { ControlPlaneState, readState, startControlPlane, stopControlPlane } from '../../src/testing/controlplane/controlplane';
import { freePort, isAlive } from '../../src/testing/controlplane/processes';
import { eventually } from '../../src/testing/cluster';

// `npm run dev` as a developer runs it (compiled by pretest), against control planes of this
// file's own: the dev controller serves every namespace, so it must not meet the shared one.
const root = join(__dirname, '..', '..');
const GROUP_OF = { ExchangeRate: 'operators.brennerm.github.io/v1', Guitar: 'kool.karmalabs.local/v1' } as const;

interface DevRun {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
  /** The pids it printed for its controller and UI, every start. */
  readonly childPids: () => number[];
  /** Resolves with the first output line matching `pattern`, searched from `from` (an offset in the output). */
  waitFor(pattern: RegExp, timeoutMs: number, from?: number): Promise<RegExpMatchArray>;
}

function startDev(env: Record<string, string>): DevRun {
  let output = '';
  const child = spawn(process.execPath, [join(root, 'lib', 'scripts', 'dev', 'dev-loop.js')], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  // 'close', not 'exit': the last lines ("dev: stopped; ...") may still be unread when the process exits.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    child,
    exited,
    output: () => output,
    childPids: () => [...output.matchAll(/^dev: (?:controller|ui) started \(pid (\d+)\)$/gm)].map((m) => Number(m[1])),
    async waitFor(pattern, timeoutMs, from = 0) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = output.slice(from).match(pattern);
        if (match) return match;
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`dev never printed ${pattern}; its output:\n${output.slice(-4000)}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
  };
}

/** SIGINT, as Ctrl-C sends it; the exit code. */
async function interrupt(dev: DevRun): Promise<number | null> {
  dev.child.kill('SIGINT');
  const timer = setTimeout(() => dev.child.kill('SIGKILL'), 90_000);
  const code = await dev.exited;
  clearTimeout(timer);
  return code;
}

/** Every process whose command line names `dir` (the control plane's, the controller's and the UI's do), as pid and command. */
function processesNaming(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      if (command.includes(dir)) found.push(`${pid}: ${command}`);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Waits until no process names `dir` (the control plane's watchdog may take a second to notice); fails listing those left. */
async function expectNothingRunning(dir: string, timeoutMs: number): Promise<void> {
  await eventually('every process dev started gone', async () => (processesNaming(dir).length === 0 ? true : undefined), timeoutMs).catch(() => {
    throw new Error(`still running:\n${processesNaming(dir).join('\n')}`);
  });
}

/** Whatever a failed test left: dev, its children, the control plane, the folder. */
async function cleanUp(dev: DevRun | undefined, dir: string): Promise<void> {
  if (dev?.child.exitCode === null) dev.child.kill('SIGKILL');
  for (const pid of dev?.childPids() ?? []) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  await stopControlPlane(join(dir, 'cluster'));
  rmSync(dir, { recursive: true, force: true });
}

describe('npm run dev, starting its own control plane', () => {
  let dir: string;
  let dev: DevRun;
  let plane: ControlPlaneState;
  let objects: ObjectClient;
  let uiPort: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dev-test-'));
    mkdirSync(join(dir, 'watched'));
    uiPort = await freePort();
    dev = startDev({ CLUSTER_DIR: join(dir, 'cluster'), DEV_WATCH: join(dir, 'watched'), DEV_UI_PORT: String(uiPort) });
    await dev.waitFor(/^dev: ready/m, 240_000);
    plane = readState(join(dir, 'cluster'))!;
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(plane.kubeconfig);
    objects = new ObjectClient(new KubeRest(kc), 'dev-test');
  }, 300_000);

  afterAll(() => cleanUp(dev, dir), 60_000);

  it('prints what to run next: the kubeconfig, the category of all kinds, the UI\u2019s URL', () => {
    expect(dev.output()).toContain(`export KUBECONFIG=${join(dir, 'cluster', 'kubeconfig')}`);
    expect(dev.output()).toContain('kubectl get all-operators -A');
    expect(dev.output()).toContain(`guitar UI: http://127.0.0.1:${uiPort}/`);
    expect(dev.output()).toMatch(/fake rate provider at http:\/\/127\.0\.0\.1:\d+/);
  });

  it.each(Object.keys(GROUP_OF) as (keyof typeof GROUP_OF)[])('serves the example %s until it is Ready', async (kind) => {
    const list = await objects.rest.request<{ items: (KubeObject & { status?: { conditions?: { type: string; status: string }[] } })[] }>(
      'GET',
      `/apis/${GROUP_OF[kind]}/namespaces/operator-examples/${kind.toLowerCase()}s`,
    );
    expect(list.items.length).toBeGreaterThan(0);
    for (const item of list.items) {
      await eventually(`${kind} ${item.metadata.name} Ready`, async () => {
        const current = await objects.get<typeof item>(item);
        return current.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined;
      });
    }
  });

  it('applies no Deployment: the controller and the UI run from source instead', async () => {
    const list = await objects.rest.request<{ items: KubeObject[] }>('GET', '/apis/apps/v1/namespaces/cdk8s-operators/deployments');
    expect(list.items).toEqual([]);
  });

  it('serves the guitar UI, showing the example guitar', async () => {
    const res = await fetch(`http://127.0.0.1:${uiPort}/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('stratocaster');
  });

  it('rebuilds and restarts the controller and the UI when a watched file changes', async () => {
    const before = dev.childPids();
    const from = dev.output().length;
    writeFileSync(join(dir, 'watched', 'new-kind.ts'), 'export {};\n');
    await dev.waitFor(/^dev: restarted controller and ui \(after a change in .*new-kind\.ts\)$/m, 120_000, from);
    const after = dev.childPids().slice(before.length);
    expect(after).toHaveLength(2);
    for (const pid of before) expect(isAlive(pid)).toBe(false);
    for (const pid of after) expect(isAlive(pid)).toBe(true);
    await expect(fetch(`http://127.0.0.1:${uiPort}/healthz`).then((r) => r.status)).resolves.toBe(200);
  }, 150_000);

  it('stops everything on Ctrl-C (SIGINT), the control plane it started too', async () => {
    const pids = [...dev.childPids(), ...plane.processes.map((p) => p.pid)];
    expect(await interrupt(dev)).toBe(0);
    expect(dev.output()).toMatch(/^dev: stopped; nothing left running$/m);
    expect(pids.filter(isAlive)).toEqual([]);
    await expectNothingRunning(dir, 5_000);
    expect(existsSync(join(dir, 'cluster', 'state.json'))).toBe(false);
  }, 120_000);
});

describe('npm run dev, killed without a chance to clean up (SIGKILL)', () => {
  let dir: string;
  let dev: DevRun | undefined;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'dev-test-'));
    mkdirSync(join(dir, 'watched'));
  });

  afterAll(() => cleanUp(dev, dir), 60_000);

  it('still leaves nothing running: the controller and the UI stop, and so does the control plane it started', async () => {
    dev = startDev({ CLUSTER_DIR: join(dir, 'cluster'), DEV_WATCH: join(dir, 'watched'), DEV_UI_PORT: String(await freePort()) });
    await dev.waitFor(/^dev: ready/m, 240_000);
    expect(processesNaming(dir).length).toBeGreaterThan(2);
    dev.child.kill('SIGKILL');
    await dev.exited;
    await expectNothingRunning(dir, 30_000);
  }, 300_000);
});

describe('npm run dev, with a control plane already running (npm run cluster:up)', () => {
  let dir: string;
  let plane: ControlPlaneState;
  let dev: DevRun | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dev-test-'));
    plane = await startControlPlane(join(dir, 'cluster'), { storage: true });
  }, 180_000);

  afterAll(() => cleanUp(dev, dir), 60_000);

  it('uses it, and leaves it running on Ctrl-C', async () => {
    mkdirSync(join(dir, 'watched'));
    dev = startDev({ CLUSTER_DIR: join(dir, 'cluster'), DEV_WATCH: join(dir, 'watched'), DEV_UI_PORT: String(await freePort()) });
    await dev.waitFor(/^dev: ready/m, 180_000);
    expect(dev.output()).toContain(`using the control plane already running in ${join(dir, 'cluster')}`);
    const children = dev.childPids();
    expect(await interrupt(dev)).toBe(0);
    expect(dev.output()).toContain(`the control plane in ${join(dir, 'cluster')} keeps running`);
    expect(children.filter(isAlive)).toEqual([]);
    expect(plane.processes.filter((p) => !isAlive(p.pid)).map((p) => p.name)).toEqual([]);
  }, 240_000);
});
