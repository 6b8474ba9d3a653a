import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { loadKubeConnection } from '../../src/kube/kubeconfig';
import { KubeRest } from '../../src/kube/rest';

/** The test cluster's kubeconfig: a server, its CA inline, and a bearer token. */
const testConfig = () => parse(readFileSync(process.env.TEST_KUBECONFIG!, 'utf8'));
/** An entry of a kubeconfig's clusters, users or contexts. */
interface Entry {
  name: string;
  cluster: Record<string, string>;
  user: Record<string, unknown>;
  context: Record<string, string>;
}
const first = (config: Record<string, Entry[]>, list: string) => config[list][0];
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kubeconfig-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function version(kubeconfig: string | undefined, env: NodeJS.ProcessEnv = {}, serviceAccountDir?: string): Promise<string> {
  const rest = new KubeRest(await loadKubeConnection({ kubeconfig, serviceAccountDir }, env));
  return (await rest.request<{ gitVersion: string }>('GET', '/version')).gitVersion;
}

function write(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' || Buffer.isBuffer(content) ? content : stringify(content), { mode: 0o600 });
  return path;
}

/** The test config with its CA and token moved into files next to it, named relatively. */
function withFiles(): Record<string, unknown> {
  const config = testConfig();
  const cluster = first(config, 'clusters').cluster;
  const user = first(config, 'users').user as Record<string, string>;
  write('ca.crt', Buffer.from(cluster['certificate-authority-data'], 'base64'));
  write('token', `${user.token}\n`);
  delete cluster['certificate-authority-data'];
  cluster['certificate-authority'] = 'ca.crt';
  first(config, 'users').user = { tokenFile: 'token' };
  return config;
}

describe('loadKubeConnection: a kubeconfig read without @kubernetes/client-node', () => {
  it('connects with the inline CA and token of --kubeconfig', async () => {
    expect(await version(process.env.TEST_KUBECONFIG)).toMatch(/^v1\./);
  });

  it('reads a CA file and a token file named relative to the kubeconfig', async () => {
    expect(await version(write('config', withFiles()))).toMatch(/^v1\./);
  });

  it('merges the files of $KUBECONFIG as kubectl does: the first current-context wins, a missing file is skipped', async () => {
    const config = testConfig();
    const onlyCurrent = write('a', { apiVersion: 'v1', kind: 'Config', 'current-context': config['current-context'] });
    const everythingElse = write('b', { ...config, 'current-context': 'not-this-one' });
    expect(await version(undefined, { KUBECONFIG: `${onlyCurrent}:${join(dir, 'missing')}:${everythingElse}` })).toMatch(/^v1\./);
  });

  it('uses the Pod\u2019s ServiceAccount token and CA when running in a cluster', async () => {
    const config = testConfig();
    const server = new URL(first(config, 'clusters').cluster.server);
    const sa = mkdtempSync(join(dir, 'sa-'));
    writeFileSync(join(sa, 'ca.crt'), Buffer.from(first(config, 'clusters').cluster['certificate-authority-data'], 'base64'));
    writeFileSync(join(sa, 'token'), first(config, 'users').user.token as string);
    expect(await version(undefined, { KUBERNETES_SERVICE_HOST: server.hostname, KUBERNETES_SERVICE_PORT: server.port }, sa)).toMatch(/^v1\./);
  });

  it('sends no credentials of its own when anonymous: a kubeconfig\u2019s token is left out, and in a Pod only ca.crt is needed', async () => {
    // The API server answers a request without credentials as system:anonymous.
    const whoAmI = async (options: Parameters<typeof loadKubeConnection>[0], env: NodeJS.ProcessEnv = {}) =>
      new KubeRest(await loadKubeConnection(options, env)).request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } }).then(
        () => 'accepted',
        (err: Error) => err.message,
      );
    expect(await whoAmI({ kubeconfig: process.env.TEST_KUBECONFIG })).toBe('accepted');
    expect(await whoAmI({ kubeconfig: process.env.TEST_KUBECONFIG, anonymous: true })).toMatch(/HTTP (401|403)/);
    const config = testConfig();
    const server = new URL(first(config, 'clusters').cluster.server);
    const sa = mkdtempSync(join(dir, 'ca-only-'));
    writeFileSync(join(sa, 'ca.crt'), Buffer.from(first(config, 'clusters').cluster['certificate-authority-data'], 'base64'));
    expect(await whoAmI({ serviceAccountDir: sa, anonymous: true }, { KUBERNETES_SERVICE_HOST: server.hostname, KUBERNETES_SERVICE_PORT: server.port })).toMatch(/HTTP (401|403)/);
  });

  it('leaves an exec credential plugin to client-node, which runs it', async () => {
    const config = testConfig();
    const token = first(config, 'users').user.token as string;
    const credential = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token } });
    first(config, 'users').user = { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'sh', args: ['-c', `echo '${credential}'`], interactiveMode: 'Never' } };
    expect(await version(write('exec', config))).toMatch(/^v1\./);
  });

  it('hands an exec plugin in one of several $KUBECONFIG files to client-node, merged the same way', async () => {
    const config = testConfig();
    const token = first(config, 'users').user.token as string;
    const credential = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token } });
    const onlyCurrent = write('a', { apiVersion: 'v1', kind: 'Config', 'current-context': config['current-context'] });
    first(config, 'users').user = { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'sh', args: ['-c', `echo '${credential}'`], interactiveMode: 'Never' } };
    const everythingElse = write('b', { ...config, 'current-context': 'not-this-one' });
    expect(await version(undefined, { KUBECONFIG: `${onlyCurrent}:${everythingElse}` })).toMatch(/^v1\./);
  });

  it('impersonates the user and every group of as and as-groups, as kubectl does', async () => {
    const config = testConfig();
    Object.assign(first(config, 'users').user, { as: 'jane', 'as-groups': ['developers', 'auditors'] });
    const rest = new KubeRest(await loadKubeConnection({ kubeconfig: write('as', config) }, {}));
    const review = await rest.request<{ status: { userInfo: { username: string; groups: string[] } } }>('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    expect(review.status.userInfo.username).toBe('jane');
    expect(review.status.userInfo.groups).toEqual(expect.arrayContaining(['developers', 'auditors']));
  });

  it.each([
    ['a missing file', () => join(dir, 'nope'), /^cannot load the kubeconfig .*nope: ENOENT/],
    ['no current-context', () => write('c', { ...testConfig(), 'current-context': '' }), /has no current-context/],
    ['an unknown current-context', () => write('c', { ...testConfig(), 'current-context': 'elsewhere' }), /current-context "elsewhere" is not among its contexts/],
    ['a cluster without a server', () => write('c', { ...testConfig(), clusters: [] }), /names no cluster with a server/],
    [
      'a CA file that is not there',
      () => {
        const config = withFiles();
        rmSync(join(dir, 'ca.crt'));
        return write('c', config);
      },
      /cannot read the cluster CA .*ca\.crt: ENOENT/,
    ],
  ])('names the problem with %s', async (_what, path, message) => {
    await expect(loadKubeConnection({ kubeconfig: path() }, {})).rejects.toThrow(message);
  });

  it('says where it looked when there is no kubeconfig at all', async () => {
    await expect(loadKubeConnection({}, { KUBECONFIG: join(dir, 'none') })).rejects.toThrow(/no kubeconfig: .*none does not exist; pass --kubeconfig, set KUBECONFIG, or run in a cluster/);
  });
});
