import { KubeObject } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { Informer } from '../../src/runtime/informer';
import { createLogger } from '../../src/runtime/log';
import { forgetSecretValues, MAX_SECRET_VALUES, rememberSecret } from '../../src/runtime/secret-values';
import { eventually, suiteNamespace, testKubeConfig } from '../../src/testing/cluster';
import { testObjects } from '../support/manifests';

/** A pino logger (createLogger) whose lines are captured as written. */
function capture() {
  const lines: string[] = [];
  return { log: createLogger({ level: 'debug', write: (line) => lines.push(line) }), lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

afterEach(forgetSecretValues);

describe('the log redacts secrets', () => {
  it('by field name: key, tls.key, apiKey, credentials, cookie, data, stringData, binaryData', () => {
    const { log, lines, parsed } = capture();
    log.info('request', { key: 'k-value', 'tls.key': 'pem-value', apiKey: 'api-value', credentials: { user: 'u-value' }, headers: { cookie: 'c-value', 'Set-Cookie': 'sc-value' }, data: 'd-value', stringData: 's-value', binaryData: 'b-value', kind: 'ConfigMap' });
    expect(parsed()[0]).toMatchObject({ key: '[redacted]', 'tls.key': '[redacted]', apiKey: '[redacted]', credentials: '[redacted]', headers: { cookie: '[redacted]', 'Set-Cookie': '[redacted]' }, data: '[redacted]', kind: 'ConfigMap' });
    for (const value of ['k-value', 'pem-value', 'api-value', 'u-value', 'c-value', 'sc-value', 'd-value', 's-value', 'b-value']) expect(lines[0]).not.toContain(value);
  });

  it('by kind: everything of a Secret object but its identity and type, whatever its fields are named', () => {
    const { log, lines, parsed } = capture();
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'team-a' }, type: 'Opaque', data: { pw: 'aHVudGVyMg==' }, extra: { anything: 'odd-field-value' } };
    log.warn('left alone', { child: secret, list: [secret] });
    expect(parsed()[0].child).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'team-a' }, type: 'Opaque', data: '[redacted]', extra: '[redacted]' });
    expect(lines[0]).not.toContain('odd-field-value');
    expect(lines[0]).not.toContain('aHVudGVyMg==');
  });

  it('by value: a value of a Secret read or written, wherever it appears, encoded or not, in fields, messages and errors', () => {
    rememberSecret({ data: { password: Buffer.from('correct-horse-battery').toString('base64'), pem: Buffer.from('-----BEGIN KEY-----\nMIIEsecretline\n-----END KEY-----').toString('base64') }, stringData: { token: 'plain-api-token-42' } });
    const { log, lines } = capture();
    log.info('connecting with correct-horse-battery', {
      url: 'https://user:correct-horse-battery@db.example',
      note: `stored ${Buffer.from('correct-horse-battery').toString('base64')}`,
      quoted: 'the line MIIEsecretline leaked',
      header: 'X-Api: plain-api-token-42',
      error: new Error('login failed for correct-horse-battery'),
      kind: 'Database',
    });
    const line = lines[0];
    for (const value of ['correct-horse-battery', Buffer.from('correct-horse-battery').toString('base64'), 'MIIEsecretline', 'plain-api-token-42']) expect(line).not.toContain(value);
    expect(JSON.parse(line)).toMatchObject({ msg: 'connecting with [redacted]', url: 'https://user:[redacted]@db.example', error: { message: 'login failed for [redacted]' }, kind: 'Database' });
  });

  it('by value: leaves short, common values alone, and remembers at most MAX_SECRET_VALUES', () => {
    rememberSecret({ stringData: { enabled: 'true', user: 'admin' } });
    const { log, parsed } = capture();
    log.info('admin enabled: true');
    expect(parsed()[0].msg).toBe('admin enabled: true');
    // Each value is kept as given and base64-encoded: two a Secret key.
    for (let i = 0; i <= MAX_SECRET_VALUES / 2; i++) rememberSecret({ stringData: { v: `value-number-${i}` } });
    log.info('value-number-0 value-number-1');
    expect(parsed()[1].msg).toBe('value-number-0 [redacted]');
  });
});

describe('the Secrets an informer reads, on the real API server', () => {
  const namespace = suiteNamespace('log-secrets');

  it('have their values redacted from every log line once read', async () => {
    const objects = testObjects();
    await objects.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'read-me', namespace: namespace.name }, stringData: { password: 'read-by-the-informer' } } as KubeObject);
    const { log, lines } = capture();
    const informer = new Informer(new KubeRest(testKubeConfig()), { path: `/api/v1/namespaces/${namespace.name}/secrets` }, log);
    informer.start();
    try {
      await eventually('the informer to sync', async () => (informer.hasSynced ? true : undefined));
      log.error('the API server said: password "read-by-the-informer" is wrong');
      expect(lines.at(-1)).toContain('password \\"[redacted]\\" is wrong');
      expect(lines.join('\n')).not.toContain('read-by-the-informer');
    } finally {
      informer.stop();
    }
  });
});
