import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { auditVerdict } from '../../scripts/audit-dependencies';

// CI's dependency audit as it runs: the real `npm audit` over this repository's lockfile, with
// an advisory service on loopback (the registry's own cannot be reached from here) that answers
// as the registry's does, so each outcome is seen end to end.
const root = join(__dirname, '..', '..');
const script = join(root, 'lib', 'scripts', 'audit-dependencies.js');

/** An advisory service: its answer to the bulk query, and what it was asked. */
async function advisoryService(answer: { status: number; body?: unknown }): Promise<{ url: string; asked: () => Record<string, string[]>; close: () => Promise<void> }> {
  let asked: Record<string, string[]> = {};
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/-/npm/v1/security/advisories/bulk') {
        const body = Buffer.concat(chunks);
        asked = JSON.parse((req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body).toString('utf8')) as Record<string, string[]>;
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body === undefined ? '' : JSON.stringify(answer.body));
      } else {
        // Package documents (npm asks for them to say whether a fix exists): none here.
        res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, asked: () => asked, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function audit(registry: string, ...args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, '--registry', registry, ...args], { cwd: root, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

const AXIOS_ADVISORY = { id: 4242, url: 'https://advisories.example/4242', title: 'Server-side request forgery', severity: 'high', vulnerable_versions: '<=1.21.1', cwe: ['CWE-918'], cvss: { score: 7.5, vectorString: null } };

describe('npm run audit:dependencies', () => {
  it('fails on a known vulnerability in a production dependency, naming the package, its range, the severity and the advisory', async () => {
    const service = await advisoryService({ status: 200, body: { axios: [AXIOS_ADVISORY] } });
    try {
      const { code, output } = await audit(service.url);
      expect(code).toBe(1);
      expect(output).toContain('axios <=1.21.1 (high): Server-side request forgery, https://advisories.example/4242');
      // Only what the image ships is asked about: the production dependencies, not the test tools.
      const asked = Object.keys(service.asked());
      expect(asked).toEqual(expect.arrayContaining(['axios', 'fastify', 'pino', '@kubernetes/client-node']));
      expect(asked).not.toContain('jest');
      expect(asked).not.toContain('eslint');
    } finally {
      await service.close();
    }
  }, 150_000);

  it('passes when no advisory matches', async () => {
    const service = await advisoryService({ status: 200, body: {} });
    try {
      const { code, output } = await audit(service.url);
      expect(output).toContain('no known vulnerability in the production dependencies');
      expect(code).toBe(0);
    } finally {
      await service.close();
    }
  }, 150_000);

  it('says loudly that nothing was checked when the advisory service does not answer (exit 2), and fails with --require', async () => {
    const service = await advisoryService({ status: 405 });
    try {
      const loose = await audit(service.url);
      expect(loose.code).toBe(2);
      expect(loose.output).toContain('were NOT checked: the advisory service answered 405');
      // The service's address stays out of the message.
      expect(loose.output).not.toContain('127.0.0.1');
      const strict = await audit(service.url, '--require');
      expect(strict.code).toBe(1);
    } finally {
      await service.close();
    }
  }, 150_000);

  it('reads a report without vulnerabilities, one with, and npm\u2019s error', () => {
    expect(auditVerdict('{"auditReportVersion":2,"vulnerabilities":{},"metadata":{}}')).toEqual({ outcome: 'clean' });
    expect(auditVerdict('{"statusCode":503,"message":"503 - POST https://x/-/npm"}')).toEqual({ outcome: 'unchecked', why: 'the advisory service answered 503' });
    expect(auditVerdict('not json')).toMatchObject({ outcome: 'unchecked' });
  });
});
