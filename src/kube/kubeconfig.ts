import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { UserError } from '../core/errors';
import { clientNodeConnection, Headers, keepAlivePool, KubeConnection, TlsOptions } from './connection';

/**
 * Finds the cluster the way kubectl does and connects to it without @kubernetes/client-node,
 * whose import alone costs the controller about 50 MiB of memory and 0.4 s of start-up for
 * what is, in a Pod, a token file and a CA. Credentials that run code or talk to a cloud
 * (exec and auth-provider plugins, proxy-url) are left to client-node, loaded only then.
 */

/** Where a Pod finds its ServiceAccount's token and the cluster's CA. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** Bound tokens rotate (kubelet refreshes them well before expiry); client-go reads the file again each minute too. */
const TOKEN_REREAD_MS = 60_000;

export interface LoadOptions {
  /** An explicit kubeconfig file (--kubeconfig); otherwise the Pod's identity, then $KUBECONFIG, then ~/.kube/config. */
  readonly kubeconfig?: string;
  /** For tests: where the in-cluster token and CA are. */
  readonly serviceAccountDir?: string;
  /**
   * Only the server and its CA, no credentials of the process's own: every request then carries
   * a caller's (e.g. a web UI forwarding each user's bearer token), so nothing it sends acts as
   * the process. In a Pod, only ca.crt need be mounted.
   */
  readonly anonymous?: boolean;
}

export async function loadKubeConnection(options: LoadOptions, env: NodeJS.ProcessEnv): Promise<KubeConnection> {
  const anonymous = options.anonymous ?? false;
  if (options.kubeconfig) return fromKubeconfigFiles([options.kubeconfig], true, anonymous);
  if (env.KUBERNETES_SERVICE_HOST) return inCluster(env, options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR, anonymous);
  const files = env.KUBECONFIG ? env.KUBECONFIG.split(':').filter(Boolean) : [join(homedir(), '.kube', 'config')];
  return fromKubeconfigFiles(files, false, anonymous);
}

function inCluster(env: NodeJS.ProcessEnv, dir: string, anonymous: boolean): KubeConnection {
  const host = env.KUBERNETES_SERVICE_HOST!;
  const port = env.KUBERNETES_SERVICE_PORT ?? '443';
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const ca = readFile(join(dir, 'ca.crt'), 'the in-cluster CA');
  return tlsConnection(server, { ca }, anonymous ? async () => ({}) : tokenFile(join(dir, 'token')));
}

interface ClusterEntry {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
  'proxy-url'?: string;
}

interface UserEntry {
  token?: string;
  tokenFile?: string;
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  username?: string;
  password?: string;
  as?: string;
  'as-groups'?: string[];
  exec?: unknown;
  'auth-provider'?: unknown;
}

/** A file path in a kubeconfig is relative to that kubeconfig's folder. */
type Located<T> = T & { readonly from: string };

/**
 * The files merged as kubectl merges $KUBECONFIG: the first file to name a context, cluster or
 * user wins, and the first current-context set wins.
 */
async function fromKubeconfigFiles(files: readonly string[], explicit: boolean, anonymous: boolean): Promise<KubeConnection> {
  let currentContext: string | undefined;
  const contexts = new Map<string, Located<{ cluster?: string; user?: string }>>();
  const clusters = new Map<string, Located<ClusterEntry>>();
  const users = new Map<string, Located<UserEntry>>();
  const read: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      // kubectl skips a missing file of $KUBECONFIG; an explicit --kubeconfig must exist.
      if (!explicit && (err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw new UserError(`cannot load the kubeconfig ${file}: ${(err as Error).message}`);
    }
    read.push(file);
    const from = dirname(resolve(file));
    // The YAML parser loads only for a kubeconfig file: a controller in a Pod uses its service account.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const doc = ((require('yaml') as typeof import('yaml')).parse(text) ?? {}) as Record<string, unknown>;
    currentContext ??= (doc['current-context'] as string | undefined) || undefined;
    // Entries are `{ name, <field>: {...} }`, e.g. `{ name: dev, cluster: { server: ... } }`.
    const add = <T>(into: Map<string, Located<T>>, list: unknown, field: string) => {
      for (const entry of (list ?? []) as Record<string, unknown>[]) {
        const name = entry?.name as string | undefined;
        if (name && !into.has(name)) into.set(name, { ...((entry[field] ?? {}) as T), from });
      }
    };
    add(contexts, doc.contexts, 'context');
    add(clusters, doc.clusters, 'cluster');
    add(users, doc.users, 'user');
  }
  const where = (read.length ? read : files).join(':');
  if (!read.length) throw new UserError(`no kubeconfig: ${where} does not exist; pass --kubeconfig, set KUBECONFIG, or run in a cluster`);
  if (!currentContext) throw new UserError(`the kubeconfig ${where} has no current-context`);
  const context = contexts.get(currentContext);
  if (!context) throw new UserError(`the kubeconfig ${where}: current-context "${currentContext}" is not among its contexts`);
  const cluster = context.cluster ? clusters.get(context.cluster) : undefined;
  if (!cluster?.server) throw new UserError(`the kubeconfig ${where}: context "${currentContext}" names no cluster with a server`);
  const named: Located<UserEntry> = (context.user ? users.get(context.user) : undefined) ?? { from: cluster.from };
  const user: Located<UserEntry> = anonymous ? { from: named.from } : named;

  if (anonymous && cluster['proxy-url']) throw new UserError(`the kubeconfig ${where}: proxy-url is not supported without credentials of its own`);
  // Credentials that run code or need a proxy: client-node's job, as before.
  if (user.exec || user['auth-provider'] || cluster['proxy-url']) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { KubeConfig } = require('@kubernetes/client-node') as typeof import('@kubernetes/client-node');
    // The files we read, merged as above: the first current-context set wins.
    const [first, ...rest] = read.map((file) => Object.assign(new KubeConfig(), { file }));
    first.loadFromFile(first.file);
    for (const more of rest) {
      more.loadFromFile(more.file);
      first.mergeConfig(more, Boolean(first.currentContext));
    }
    return clientNodeConnection(first);
  }

  const pem = (data: string | undefined, path: string | undefined, what: string, base: string) =>
    data ? Buffer.from(data, 'base64') : path ? readFile(resolve(base, path), what) : undefined;
  const tls = {
    ca: pem(cluster['certificate-authority-data'], cluster['certificate-authority'], 'the cluster CA', cluster.from),
    cert: pem(user['client-certificate-data'], user['client-certificate'], 'the client certificate', user.from),
    key: pem(user['client-key-data'], user['client-key'], 'the client key', user.from),
    rejectUnauthorized: cluster['insecure-skip-tls-verify'] !== true,
    servername: cluster['tls-server-name'],
  };
  // Like kubectl: one Impersonate-Group line per group (node:http sends a list that way).
  const impersonation: Headers = {
    ...(user.as ? { 'Impersonate-User': user.as } : {}),
    ...(user['as-groups']?.length ? { 'Impersonate-Group': user['as-groups'] } : {}),
  };
  const credentials = user.tokenFile ? tokenFile(resolve(user.from, user.tokenFile)) : async () => authorization(user);
  return tlsConnection(cluster.server.replace(/\/$/, ''), tls, async () => ({ ...(await credentials()), ...impersonation }));
}

function authorization(user: UserEntry): Record<string, string> {
  if (user.token) return { authorization: `Bearer ${user.token}` };
  if (user.username !== undefined && user.password !== undefined) return { authorization: `Basic ${Buffer.from(`${user.username}:${user.password}`).toString('base64')}` };
  return {};
}

/** A bearer token read from a file, read again once it is a minute old. */
function tokenFile(path: string): () => Promise<Record<string, string>> {
  let token = '';
  let readAt = -Infinity;
  return async () => {
    if (performance.now() - readAt > TOKEN_REREAD_MS) {
      token = readFile(path, 'the token').toString('utf8').trim();
      readAt = performance.now();
    }
    return { authorization: `Bearer ${token}` };
  };
}

function tlsConnection(server: string, tls: TlsOptions, headers: () => Promise<Headers>): KubeConnection {
  const agent = keepAlivePool(server, tls);
  return {
    server,
    async prepare() {
      return { headers: await headers(), agent };
    },
  };
}

function readFile(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new UserError(`cannot read ${what} ${path}: ${(err as Error).message}`);
  }
}
