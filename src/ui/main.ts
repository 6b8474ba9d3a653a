import { loadKubeConnection } from '../kube/kubeconfig';
import { UserError } from '../core/errors';
import { commandOptions, KUBECONFIG_OPTION, OptionSpec } from '../runtime/config';
import { createLogger, LOG_LEVEL_OPTION, LogLevel } from '../runtime/log';
import { Identities } from './acting-as';
import { buildUiServer } from './server';

export const UI_OPTIONS: readonly OptionSpec[] = [
  KUBECONFIG_OPTION,
  { name: 'namespace', type: 'list', description: 'Show and change guitars in these namespaces only; all by default.' },
  { name: 'port', type: 'integer', min: 0, default: '8080', description: 'Port of the page (and /healthz, /readyz); 0 picks a free one.' },
  { name: 'host', type: 'string', default: '0.0.0.0', description: 'Address to listen on.' },
  { name: 'user-header', type: 'string', description: 'Act as the user an authenticating proxy names in this header (e.g. X-Forwarded-User), through impersonation; requests without it are refused.' },
  { name: 'trust-proxy', type: 'boolean', default: 'false', description: 'Believe X-Forwarded-Proto and X-Forwarded-Host from a proxy in front (the CSRF cookie becomes Secure behind TLS; changes must come from the public host).' },
  LOG_LEVEL_OPTION,
];

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const HEADER_NAME = /^[A-Za-z0-9-]+$/;

/** `cdk8s-operators ui`: serves the guitar page until SIGTERM or SIGINT. */
export async function runUi(args: string[], env: NodeJS.ProcessEnv, out: (text: string) => void): Promise<number> {
  const options = commandOptions('cdk8s-operators ui', 'Serves the guitar web page until SIGTERM or SIGINT.', UI_OPTIONS, args, env, out);
  if (!options) return 0;
  const level = options['log-level'] as LogLevel;
  const namespaces = (options.namespace as string[] | undefined) ?? [];
  const bad = namespaces.find((ns) => !DNS_LABEL.test(ns));
  if (bad !== undefined) throw new UserError(`--namespace: expected namespace names (lowercase letters, digits and -), got "${bad}"`);
  const userHeader = options['user-header'] as string | undefined;
  if (userHeader !== undefined && !HEADER_NAME.test(userHeader)) throw new UserError(`--user-header: expected an HTTP header name like X-Forwarded-User, got "${userHeader}"`);

  const log = createLogger({ level, base: { component: 'ui' } });
  const connection = await loadKubeConnection({ kubeconfig: options.kubeconfig as string | undefined }, env);

  const { app } = await buildUiServer(new Identities(connection), { namespaces, userHeader, trustProxy: options['trust-proxy'] as boolean }, log);
  await app.listen({ port: options.port as number, host: options.host as string });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  log.info('ui listening', { port, namespaces: namespaces.length ? namespaces : 'all', actingAs: userHeader ? `the user in ${userHeader}` : 'its own identity' });

  return new Promise<number>((resolve) => {
    const shutdown = (signal: string) => {
      log.info('stopping', { why: signal });
      void app.close().then(() => resolve(0));
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
}
