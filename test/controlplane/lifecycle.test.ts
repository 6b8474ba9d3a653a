import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { apiRequest } from '../../src/testing/controlplane/api';
import { readState, restartExited } from '../../src/testing/controlplane/controlplane';
import { isAlive, sleep, stillRunning } from '../../src/testing/controlplane/processes';

const run = promisify(execFile);
// The compiled CLI, exactly what `npm run cluster:up` runs; `npm test` builds it first.
const cli = join(__dirname, '..', '..', 'lib', 'test', 'controlplane', 'cli.js');

describe('npm run cluster:up / cluster:down', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cdk8s-operators-cluster-'));
  const env = { ...process.env, CLUSTER_DIR: dir };
  afterAll(async () => {
    await run(process.execPath, [cli, 'down'], { env }).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts a control plane whose kubeconfig reaches a ready API server, and stops it leaving no process', async () => {
    expect(existsSync(cli)).toBe(true);
    const up = await run(process.execPath, [cli, 'up'], { env });
    const lastLine = up.stdout.trim().split('\n').at(-1)!;
    expect(lastLine).toBe(`KUBECONFIG=${join(dir, 'kubeconfig')}`);

    const kubeconfig = parse(readFileSync(join(dir, 'kubeconfig'), 'utf8'));
    const endpoint = {
      server: kubeconfig.clusters[0].cluster.server as string,
      caPem: Buffer.from(kubeconfig.clusters[0].cluster['certificate-authority-data'], 'base64').toString(),
      token: kubeconfig.users[0].user.token as string,
    };
    expect(endpoint.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    await expect(apiRequest(endpoint, 'GET', '/readyz')).resolves.toMatchObject({ status: 200, body: 'ok' });
    const processes = readState(dir)!.processes;
    // The five of the control plane, and the storage provisioner behind its default StorageClass.
    expect(processes.map((p) => p.name).sort()).toEqual(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok', 'storage']);
    const pids = processes.map((p) => p.pid);

    const again = await run(process.execPath, [cli, 'up'], { env });
    expect(again.stdout.trim()).toBe(lastLine);
    expect(readState(dir)!.processes.map((p) => p.pid)).toEqual(pids);

    // A process that exits on its own (the chaos soak lost its scheduler so) is started again, alike.
    const scheduler = processes.find((p) => p.name === 'kube-scheduler')!;
    process.kill(scheduler.pid, 'SIGKILL');
    while (stillRunning(scheduler)) await sleep(50);
    expect(restartExited(dir).map((e) => e.name)).toEqual(['kube-scheduler']);
    const restarted = readState(dir)!.processes.find((p) => p.name === 'kube-scheduler')!;
    expect(restarted).toMatchObject({ binary: scheduler.binary, args: scheduler.args });
    expect(stillRunning(restarted)).toBe(true);
    expect(restartExited(dir)).toEqual([]);

    await run(process.execPath, [cli, 'down'], { env });
    expect([...pids, restarted.pid].filter(isAlive)).toEqual([]);
    expect(readState(dir)).toBeUndefined();
  });

  it('never takes a pid that runs another command line for a process of its own: pids are reused', () => {
    expect(isAlive(process.pid)).toBe(true);
    expect(stillRunning({ name: 'etcd', pid: process.pid, logFile: '/dev/null', binary: '/no/such/etcd', args: [] })).toBe(false);
  });
});
