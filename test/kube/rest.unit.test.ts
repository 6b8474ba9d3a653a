import * as k8s from '@kubernetes/client-node';
import { Agent, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { KubeRest } from '../../src/kube/rest';

describe('KubeRest', () => {
  it('names itself in the User-Agent of every request, so an audit log tells its requests from others\u2019', async () => {
    const seen: (string | undefined)[] = [];
    // What a request carries on the wire, as any server sees it.
    const server = createServer((req, res) => {
      seen.push(req.headers['user-agent']);
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      // Plain HTTP on loopback: client-node allows it only with TLS verification off.
      clusters: [{ name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 'x' }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
    try {
      await new KubeRest(kc).request('GET', '/version');
    } finally {
      server.close();
    }
    const { version } = require('../../package.json') as { version: string }; // eslint-disable-line @typescript-eslint/no-require-imports
    expect(seen).toEqual([`cdk8s-operators/${version}`]);
  });

  it.each([
    ['a server URL with a path prefix (a proxy\u2019s)', '127.0.0.1', '/proxy/k8s/'],
    ['an IPv6 server address', '::1', ''],
  ])('sends each request to %s, the query encoded', async (_case, host, prefix) => {
    const paths: string[] = [];
    const server = createServer((req, res) => {
      paths.push(req.url!);
      res.setHeader('content-type', 'application/json');
      res.end('{"kind":"Status"}');
    });
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    const { port } = server.address() as AddressInfo;
    const rest = new KubeRest({ server: `http://${host.includes(':') ? `[${host}]` : host}:${port}${prefix}`, prepare: async () => ({ headers: {}, agent: new Agent() }) });
    try {
      expect(await rest.request('GET', '/api/v1/configmaps', { query: { labelSelector: 'a=b,c in (d)', limit: undefined } })).toEqual({ kind: 'Status' });
    } finally {
      server.close();
    }
    expect(paths).toEqual([`${prefix.replace(/\/$/, '')}/api/v1/configmaps?labelSelector=a%3Db%2Cc+in+%28d%29`]);
  });

  describe('a 429 or 5xx that asks to be retried (Retry-After), as client-go does', () => {
    /** A loopback server answering each request with the next of `answers` (the last one repeats). */
    async function serving(answers: { code: number; retryAfter?: string }[]) {
      const bodies: string[] = [];
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          bodies.push(Buffer.concat(chunks).toString());
          const { code, retryAfter } = answers[Math.min(bodies.length, answers.length) - 1];
          res.writeHead(code, { 'content-type': 'application/json', ...(retryAfter === undefined ? {} : { 'retry-after': retryAfter }) });
          res.end(JSON.stringify(code < 300 ? { kind: 'ConfigMap' } : { kind: 'Status', message: `answer ${bodies.length}`, code }));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const rest = new KubeRest({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, prepare: async () => ({ headers: {}, agent: new Agent() }) });
      return { rest, bodies, close: () => server.close() };
    }

    it('sends a write again, body and all, after the API server said it is shutting down (503) or throttled it (429)', async () => {
      const { rest, bodies, close } = await serving([{ code: 503, retryAfter: '0' }, { code: 429, retryAfter: '0' }, { code: 201 }]);
      try {
        expect(await rest.request('POST', '/api/v1/namespaces/a/configmaps', { body: { metadata: { name: 'm' } } })).toEqual({ kind: 'ConfigMap' });
      } finally {
        close();
      }
      expect(bodies).toEqual(Array(3).fill('{"metadata":{"name":"m"}}'));
    });

    it('gives up after 10 attempts with the last answer, and never retries a 5xx without Retry-After', async () => {
      const throttled = await serving([{ code: 429, retryAfter: '0' }]);
      try {
        await expect(throttled.rest.request('GET', '/api/v1/configmaps')).rejects.toThrow('GET /api/v1/configmaps: HTTP 429: answer 10');
      } finally {
        throttled.close();
      }
      const failing = await serving([{ code: 500 }, { code: 200 }]);
      try {
        await expect(failing.rest.request('PUT', '/api/v1/configmaps', { body: {} })).rejects.toThrow('HTTP 500: answer 1');
      } finally {
        failing.close();
      }
      expect(failing.bodies).toHaveLength(1);
    });
  });

  describe('an answer that stops half-way', () => {
    /** A loopback server that sends the headers and half a JSON body, then `then`s the socket. */
    async function halfAnswering(then: 'hang' | 'close') {
      const server = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '40' });
        res.write('{"kind":"ConfigMap",');
        if (then === 'close') setTimeout(() => res.socket?.destroy(), 50);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const rest = new KubeRest({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, prepare: async () => ({ headers: {}, agent: new Agent() }) });
      return {
        rest,
        close: () => {
          server.closeAllConnections();
          server.close();
        },
      };
    }

    it('fails at the request’s deadline while the body is still coming', async () => {
      const { rest, close } = await halfAnswering('hang');
      const started = Date.now();
      try {
        await expect(rest.request('GET', '/api/v1/configmaps', { timeoutMs: 300 })).rejects.toThrow();
      } finally {
        close();
      }
      expect(Date.now() - started).toBeGreaterThanOrEqual(280);
      expect(Date.now() - started).toBeLessThan(5000);
    });

    it('fails, rather than waits for ever, when the server closes the connection mid-body', async () => {
      const { rest, close } = await halfAnswering('close');
      try {
        await expect(rest.request('GET', '/api/v1/configmaps', { timeoutMs: 30_000 })).rejects.toThrow();
      } finally {
        close();
      }
    });
  });
});
