// @peculiar/x509 resolves its parts through tsyringe, which needs the Reflect metadata API: load it first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { KeyObject, randomBytes, webcrypto } from 'node:crypto';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;

/**
 * A self-signed serving certificate made in memory at start, never stored, as controller-runtime
 * makes for its secure metrics server when given no certificate: the traffic is encrypted and the
 * bearer token never crosses the network in clear; a scraper that cannot verify it skips the
 * verification (the ServiceMonitor says so) (docs/security.md#metrics).
 */
export async function selfSignedServing(names: { dns: readonly string[]; ips: readonly string[] }, lifetimeMs = 365 * 24 * 3600 * 1000): Promise<{ cert: string; key: string }> {
  const keys = await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
  const now = new Date();
  const serial = randomBytes(16);
  // Positive and at most 20 octets, as RFC 5280 asks.
  serial[0] = (serial[0] & 0x7f) | 0x01;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial.toString('hex'),
    name: `CN=${names.dns[0] ?? 'localhost'}`,
    notBefore: now,
    notAfter: new Date(now.getTime() + lifetimeMs),
    keys,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([...names.dns.map((value) => ({ type: 'dns' as const, value })), ...names.ips.map((value) => ({ type: 'ip' as const, value }))]),
    ],
  });
  return { cert: cert.toString('pem'), key: KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }) as string };
}
