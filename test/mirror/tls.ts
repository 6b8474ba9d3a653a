import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A throw-away certificate authority and a server certificate it signed for 127.0.0.1. */
export interface TestTls {
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Made with the openssl command in `dir`; valid for a day, so nothing outlives a test run. */
export function makeTestTls(dir: string): TestTls {
  const file = (name: string) => join(dir, name);
  openssl(['req', '-x509', ...EC_KEY, '-keyout', file('ca.key'), '-out', file('ca.crt'), '-days', '1', '-subj', '/CN=cdk8s-operators test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign']);
  openssl(['req', ...EC_KEY, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=127.0.0.1']);
  writeFileSync(file('server.ext'), 'subjectAltName = IP:127.0.0.1\nextendedKeyUsage = serverAuth\n');
  openssl(['x509', '-req', '-in', file('server.csr'), '-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-CAcreateserial',
    '-out', file('server.crt'), '-days', '1', '-extfile', file('server.ext')]);
  return { caFile: file('ca.crt'), certFile: file('server.crt'), keyFile: file('server.key') };
}
