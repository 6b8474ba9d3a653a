import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { ClientRequest } from 'node:http';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../src/testing/controlplane/controlplane';
import { eventually } from '../../src/testing/cluster';
import { startController } from '../support/controller-process';
import { selfSigned } from '../support/self-signed';

/**
 * The conversion webhook as any Pod of the cluster reaches it (its NetworkPolicy cannot name the
 * API server): a body far over the limit is refused before it is read, reviews beyond the cap in
 * flight are refused at once, and a controller serving no versioned kind serves no webhook and
 * writes no Secret for it.
 */

const MiB = 1024 * 1024;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'webhook-limits-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The product's ConversionServer alone in a process of its own (built by npm run build), so that its memory is its own. */
async function startServer(options: { maxInFlight?: number }): Promise<{ child: ChildProcess; port: number }> {
  const server = join(repoRoot(), 'lib', 'src', 'runtime', 'conversion', 'server.js');
  const log = join(repoRoot(), 'lib', 'src', 'runtime', 'log.js');
  const script = `
    const { ConversionServer } = require(${JSON.stringify(server)});
    const { createLogger } = require(${JSON.stringify(log)});
    const server = new ConversionServer({ kinds: [], port: 0, host: '127.0.0.1', ...JSON.parse(process.env.OPTIONS) }, createLogger({ level: 'error' }));
    server.start(JSON.parse(process.env.TLS)).then((port) => process.stdout.write(port + '\\n'));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TLS: JSON.stringify(selfSigned()), OPTIONS: JSON.stringify(options) } });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const port = await eventually('the webhook to listen', async () => (/^\d+\n/.test(out) ? Number(out.trim()) : undefined), 20_000);
  return { child, port };
}

/** The process's peak resident memory so far (VmHWM), in MiB. */
function peakMiB(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

/** POSTs `size` bytes to /convert (with a Content-Length, or chunked without one); resolves with the status, whatever happens to the rest of the body. */
function post(port: number, size: number, withLength: boolean): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'content-type': 'application/json', ...(withLength ? { 'content-length': size } : {}) };
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/convert', headers, rejectUnauthorized: false, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    let answered = false;
    req.on('response', () => (answered = true));
    req.on('error', (err) => (answered ? undefined : reject(err)));
    const chunk = Buffer.alloc(MiB, 'a');
    let sent = 0;
    const more = () => {
      while (sent < size && !answered && !req.destroyed) {
        sent += MiB;
        if (!req.write(chunk)) return void req.once('drain', more);
      }
      req.end();
    };
    more();
  });
}

describe('the conversion webhook under a peer that sends too much', () => {
  it('refuses a 48 MiB body with 413, with a Content-Length or without, and grows by far less than it', async () => {
    const { child, port } = await startServer({});
    try {
      // A small review first, so that the peak counts what is loaded to serve one.
      expect((await post(port, 1, true)).status).toBe(400);
      const before = peakMiB(child.pid!);
      for (const withLength of [true, false]) {
        const answer = await post(port, 48 * MiB, withLength);
        expect(answer.status).toBe(413);
        expect(JSON.parse(answer.body).response.result).toEqual({ status: 'Failure', message: expect.stringContaining('larger than 8388608 bytes') });
      }
      const grown = peakMiB(child.pid!) - before;
      // Read as text and parsed (the old 64 MiB limit), one such body costs well over 48 MiB.
      expect(grown).toBeLessThan(24);
      expect((await post(port, 1, true)).status).toBe(400);
    } finally {
      child.kill();
    }
  });

  it('answers 429 at once beyond the reviews in flight, and serves again when they end', async () => {
    const { child, port } = await startServer({ maxInFlight: 2 });
    try {
      // Two reviews whose bodies never finish arriving hold both places. A probe below may take a
      // place a moment before a held review arrives, which is then refused: such a review is sent again.
      const held: ClientRequest[] = [];
      const hold = (slot: number): void => {
        const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/convert', headers: { 'content-type': 'application/json', 'content-length': 1000 }, rejectUnauthorized: false, agent: false });
        req.on('error', () => undefined);
        req.on('response', () => (held[slot] === req ? hold(slot) : undefined));
        req.write('{');
        held[slot] = req;
      };
      [0, 1].forEach(hold);
      await eventually('both to be in flight', async () => ((await post(port, 1, true)).status === 429 ? true : undefined), 10_000);
      const refused = await post(port, 1, true);
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.body).response.result.message).toMatch(/too many reviews at once \(2\)/);
      const ended = [...held];
      held.length = 0;
      for (const req of ended) req.destroy();
      await eventually('a place to be free again', async () => ((await post(port, 1, true)).status === 400 ? true : undefined), 10_000);
    } finally {
      child.kill();
    }
  });
});

describe('a controller that serves no kind with several versions (--kinds exchangerates)', () => {
  it('serves no conversion webhook and writes no Secret into a namespace that does not exist', async () => {
    const args = ['--kubeconfig', process.env.TEST_KUBECONFIG!, '--kinds', 'exchangerates', '--namespace', 'nothing-runs-here', '--leader-election=false', '--http-port', '0', '--leader-election-namespace', 'no-such-namespace'];
    // CONVERSION_WEBHOOK empty counts as unset: the controller decides as it would by default.
    const controller = startController(args, join(dir, 'kinds.log'), { CONVERSION_WEBHOOK: '' });
    try {
      const started = await eventually('the controller to start', async () => controller.logs().find((l) => l.msg === 'controller starting'));
      await eventually('the controller to be ready', async () => ((await fetch(`http://127.0.0.1:${started.httpPort as number}/readyz`)).status === 200 ? true : undefined));
      // The old controller retried its Secret after 1, 2 and 4 s, warning "create secrets 404" each time.
      await new Promise((resolve) => setTimeout(resolve, 8000));
      expect(started.conversionWebhook).toBe(false);
      expect(controller.logs().filter((l) => l.msg !== 'controller starting' && /webhook|secret/i.test(JSON.stringify(l)))).toEqual([]);
    } finally {
      expect(await controller.stop()).toBe(0);
    }
  });
});
