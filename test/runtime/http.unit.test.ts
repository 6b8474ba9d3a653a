import { Agent, request } from 'node:http';
import { HealthServer } from '../../src/runtime/http';
import { Metrics } from '../../src/runtime/metrics';
import { MetricsServer } from '../../src/runtime/metrics-server';

/** A real request on the loopback interface; node's own client, so nothing hides what the server sent. */
function call(port: number, method: string, path: string): Promise<{ status: number; type?: string; body: string; allow?: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body, allow: res.headers.allow }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HealthServer', () => {
  let ready = false;
  let live = true;
  const server = new HealthServer({ port: 0, host: '127.0.0.1', ready: () => ready, live: () => live });
  let port: number;

  beforeAll(async () => {
    port = await server.start();
  });
  afterAll(() => server.stop());

  it('binds a free port for port 0', () => {
    expect(port).toBeGreaterThan(0);
  });

  it('answers /healthz with 200 ok, and 503 once live() is false', async () => {
    expect(await call(port, 'GET', '/healthz')).toMatchObject({ status: 200, body: 'ok', type: 'text/plain; charset=utf-8' });
    live = false;
    try {
      expect(await call(port, 'GET', '/healthz')).toMatchObject({ status: 503, body: 'not live' });
    } finally {
      live = true;
    }
  });

  it('answers /readyz with 503 "not ready" until ready() turns true, and back', async () => {
    expect(await call(port, 'GET', '/readyz')).toMatchObject({ status: 503, body: 'not ready' });
    ready = true;
    expect(await call(port, 'GET', '/readyz')).toMatchObject({ status: 200, body: 'ok' });
    ready = false;
    expect(await call(port, 'GET', '/readyz')).toMatchObject({ status: 503, body: 'not ready' });
  });

  it('serves no metrics: they have a port of their own', async () => {
    expect(await call(port, 'GET', '/metrics')).toMatchObject({ status: 404, body: 'not found' });
  });

  it('answers 404 for any other path and 405 for other methods', async () => {
    expect(await call(port, 'GET', '/')).toMatchObject({ status: 404, body: 'not found' });
    expect(await call(port, 'GET', '/healthz/extra')).toMatchObject({ status: 404 });
    expect(await call(port, 'POST', '/nope')).toMatchObject({ status: 404 });
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      expect(await call(port, method, '/readyz')).toMatchObject({ status: 405, body: 'method not allowed', allow: 'GET, HEAD' });
    }
  });

  it('answers HEAD like GET, without a body', async () => {
    expect(await call(port, 'HEAD', '/healthz')).toMatchObject({ status: 200, body: '' });
  });

  it('answers 503 when a check throws, without crashing', async () => {
    const throwing = new HealthServer({ port: 0, host: '127.0.0.1', ready: () => { throw new Error('cache broken'); } });
    const p = await throwing.start();
    try {
      expect(await call(p, 'GET', '/readyz')).toMatchObject({ status: 503, body: '/readyz failed: cache broken' });
      expect(await call(p, 'GET', '/healthz')).toMatchObject({ status: 200 });
    } finally {
      await throwing.stop();
    }
  });

  it('stops listening on stop(), closes kept-alive connections, and can be stopped twice', async () => {
    const other = new HealthServer({ port: 0, host: '127.0.0.1', ready: () => true });
    const p = await other.start();
    // A keep-alive connection left open would hold server.close() up without closeAllConnections.
    const agent = new Agent({ keepAlive: true });
    await new Promise((resolve) => request({ host: '127.0.0.1', port: p, path: '/healthz', agent }, (res) => res.resume().on('end', resolve)).end());
    await other.stop();
    await other.stop();
    agent.destroy();
    await expect(call(p, 'GET', '/healthz')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('rejects start() with a clear error when the port is taken', async () => {
    const clash = new HealthServer({ port, host: '127.0.0.1', ready: () => true });
    await expect(clash.start()).rejects.toThrow(`the health server cannot listen on 127.0.0.1:${port}: listen EADDRINUSE`);
    await expect(server.start()).rejects.toThrow('the health server is already started');
  });

  it('listens on 0.0.0.0 by default', async () => {
    const any = new HealthServer({ port: 0, ready: () => true });
    const p = await any.start();
    try {
      expect(await call(p, 'GET', '/healthz')).toMatchObject({ status: 200 });
      expect((any as unknown as { listener: { server: { address(): { address: string } } } }).listener.server.address().address).toBe('0.0.0.0');
    } finally {
      await any.stop();
    }
  });
});

describe('MetricsServer with --metrics-secure=false', () => {
  const metrics = new Metrics();
  metrics.counter('reconcile_total', 'Reconciles.', ['kind']).inc({ kind: 'Guitar' });
  const server = new MetricsServer({ port: 0, host: '127.0.0.1', metrics });
  let port: number;
  beforeAll(async () => {
    port = await server.start();
  });
  afterAll(() => server.stop());

  it('serves /metrics in the exposition format over plain HTTP, query string ignored; nothing else', async () => {
    const response = await call(port, 'GET', '/metrics?x=1');
    expect(response).toMatchObject({ status: 200, type: 'text/plain; version=0.0.4; charset=utf-8' });
    expect(response.body).toBe(metrics.render());
    expect(response.body).toContain('reconcile_total{kind="Guitar"} 1\n');
    expect(await call(port, 'GET', '/healthz')).toMatchObject({ status: 404 });
    expect(await call(port, 'POST', '/metrics')).toMatchObject({ status: 405, allow: 'GET, HEAD' });
  });
});
