import { readFileSync } from 'node:fs';
import { createLogger, loadKubeConnection, LOG_LEVEL_OPTION, LogLevel } from '../engine/client';
import { commandOptions, KUBECONFIG_OPTION, OptionSpec, UserError } from '../engine/operator';
import { Identities } from './acting-as';
import { AUTH_MODES, AuthMode, UiAuth } from './auth';
import { buildUiServer } from './server';

export const UI_OPTIONS: readonly OptionSpec[] = [
  KUBECONFIG_OPTION,
  { name: 'namespace', type: 'list', description: 'Show and change guitars in these namespaces only; all by default.' },
  { name: 'port', type: 'integer', min: 0, default: '8080', description: 'Port of the page (and /healthz, /readyz); 0 picks a free one.' },
  { name: 'host', type: 'string', default: '0.0.0.0', description: 'Address to listen on.' },
  {
    name: 'auth',
    type: 'string',
    choices: AUTH_MODES,
    default: 'token',
    description:
      'With whose rights requests run: token (each user\u2019s own bearer token, from an authenticating proxy\u2019s Authorization header or the login form; the UI holds no credentials), impersonate (the user a verified proxy names, among --impersonate-users) or service-account (the UI\u2019s own, for whoever reaches it).',
  },
  { name: 'user-header', type: 'string', description: 'impersonate: the header the authenticating proxy names the user in (e.g. X-Forwarded-User).' },
  { name: 'impersonate-users', type: 'list', description: 'impersonate: the only users the UI may act as.' },
  { name: 'proxy-secret-file', type: 'string', description: 'impersonate: a file holding the secret the proxy sends in --proxy-secret-header; requests without it are refused.' },
  { name: 'proxy-secret-header', type: 'string', default: 'X-Proxy-Secret', description: 'impersonate: the header the proxy sends its secret in.' },
  { name: 'max-streams', type: 'integer', default: '200', description: 'Live-update connections open at once, in all; 429 beyond.' },
  { name: 'max-streams-per-user', type: 'integer', default: '5', description: 'Live-update connections open at once per user; 429 beyond.' },
  { name: 'trust-proxy', type: 'boolean', default: 'false', description: 'Believe X-Forwarded-Proto and X-Forwarded-Host from a proxy in front (the CSRF cookie becomes Secure behind TLS; changes must come from the public host).' },
  LOG_LEVEL_OPTION,
];

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const HEADER_NAME = /^[A-Za-z0-9-]+$/;
const IMPERSONATION_OPTIONS = ['user-header', 'impersonate-users', 'proxy-secret-file'];

/** The --auth mode and what it needs, each missing or misplaced option named. */
function authOf(options: Record<string, unknown>): UiAuth {
  const mode = options.auth as AuthMode;
  if (mode !== 'impersonate') {
    const stray = IMPERSONATION_OPTIONS.find((name) => options[name] !== undefined);
    if (stray) throw new UserError(`--${stray}: only taken with --auth=impersonate (got --auth=${mode})`);
    return { mode };
  }
  const missing = IMPERSONATION_OPTIONS.filter((name) => options[name] === undefined || (options[name] as string[]).length === 0);
  if (missing.length) throw new UserError(`--auth=impersonate: also needs ${missing.map((m) => `--${m}`).join(', ')}`);
  const userHeader = options['user-header'] as string;
  const proxySecretHeader = options['proxy-secret-header'] as string;
  for (const [name, value] of [['user-header', userHeader], ['proxy-secret-header', proxySecretHeader]]) {
    if (!HEADER_NAME.test(value)) throw new UserError(`--${name}: expected an HTTP header name like X-Forwarded-User, got "${value}"`);
  }
  const users = options['impersonate-users'] as string[];
  const system = users.find((u) => u.startsWith('system:'));
  // The system: names are the cluster's own components and service accounts, never a person behind the proxy.
  if (system) throw new UserError(`--impersonate-users: expected people's user names, got the system identity "${system}"`);
  let proxySecret: string;
  try {
    proxySecret = readFileSync(options['proxy-secret-file'] as string, 'utf8').trim();
  } catch (err) {
    throw new UserError(`--proxy-secret-file: cannot read it: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (proxySecret.length < 16) throw new UserError('--proxy-secret-file: expected a secret of at least 16 characters');
  return { mode, userHeader, users, proxySecret, proxySecretHeader };
}

/** `cdk8s-operators ui`: serves the guitar page until SIGTERM or SIGINT. */
export async function runUi(args: string[], env: NodeJS.ProcessEnv, out: (text: string) => void): Promise<number> {
  const options = commandOptions('cdk8s-operators ui', 'Serves the guitar web page until SIGTERM or SIGINT.', UI_OPTIONS, args, env, out);
  if (!options) return 0;
  const level = options['log-level'] as LogLevel;
  const namespaces = (options.namespace as string[] | undefined) ?? [];
  const bad = namespaces.find((ns) => !DNS_LABEL.test(ns));
  if (bad !== undefined) throw new UserError(`--namespace: expected namespace names (lowercase letters, digits and -), got "${bad}"`);
  const auth = authOf(options);

  const log = createLogger({ level, base: { component: 'ui' } });
  // With users' tokens the UI sends no credentials of its own: only the server and its CA.
  const connection = await loadKubeConnection({ kubeconfig: options.kubeconfig as string | undefined, anonymous: auth.mode === 'token' }, env);

  const { app } = await buildUiServer(
    new Identities(connection),
    { namespaces, auth, trustProxy: options['trust-proxy'] as boolean, maxStreams: options['max-streams'] as number, maxStreamsPerUser: options['max-streams-per-user'] as number },
    log,
  );
  await app.listen({ port: options.port as number, host: options.host as string });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const actingAs = { token: 'each user\u2019s token', impersonate: `the user in ${auth.mode === 'impersonate' ? auth.userHeader : ''}`, 'service-account': 'its own identity' }[auth.mode];
  log.info('ui listening', { port, namespaces: namespaces.length ? namespaces : 'all', actingAs });

  return new Promise<number>((resolve) => {
    const shutdown = (signal: string) => {
      log.info('stopping', { why: signal });
      void app.close().then(() => resolve(0));
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
}
