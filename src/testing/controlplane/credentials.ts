import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';

/** Files the API server and controller manager need to authenticate users and sign tokens. */
export interface ControlPlaneCredentials {
  /** Bearer token of a `system:masters` user; never printed or logged. */
  readonly adminToken: string;
  readonly tokenFile: string;
  readonly serviceAccountPublicKey: string;
  readonly serviceAccountPrivateKey: string;
}

export function writeCredentials(dir: string): ControlPlaneCredentials {
  const adminToken = randomBytes(32).toString('hex');
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${adminToken},admin,admin-uid,"system:masters"\n`, { mode: 0o600 });

  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  const serviceAccountPublicKey = join(dir, 'service-account.pub');
  const serviceAccountPrivateKey = join(dir, 'service-account.key');
  writeFileSync(serviceAccountPublicKey, publicKey);
  writeFileSync(serviceAccountPrivateKey, privateKey, { mode: 0o600 });
  return { adminToken, tokenFile, serviceAccountPublicKey, serviceAccountPrivateKey };
}

/**
 * The self-signed serving certificate kube-apiserver writes into its cert dir is a chain:
 * the serving certificate, then the CA that signed it. Clients trust that CA.
 */
export function readServingCa(certDir: string): string {
  const chain = readFileSync(join(certDir, 'apiserver.crt'), 'utf8');
  const blocks = chain.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
  const ca = blocks.at(-1);
  if (!ca) throw new Error(`no certificate in ${join(certDir, 'apiserver.crt')}`);
  return ca;
}

export function writeKubeconfig(path: string, server: string, caPem: string, token: string): void {
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'local', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
    users: [{ name: 'admin', user: { token } }],
    contexts: [{ name: 'local', context: { cluster: 'local', user: 'admin' } }],
    'current-context': 'local',
  };
  writeFileSync(path, stringify(kubeconfig), { mode: 0o600 });
}
