// @peculiar/x509 resolves its parts through tsyringe, which needs the Reflect metadata API: load it first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { KeyObject, randomBytes, webcrypto } from 'node:crypto';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

/**
 * A Database's own TLS, PEM: a CA made for it alone, the servers' certificate and the client
 * certificate its Jobs log in as the superuser with. The CA's key is never kept: nothing is
 * signed after the first render, so no one can mint another certificate the servers trust.
 */
export interface DatabaseTlsMaterial {
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly superuserCert: string;
  readonly superuserKey: string;
}

export interface DatabaseTlsNames {
  /** The DNS names the servers answer to (the Services, in every form clients write them). */
  readonly dns: readonly string[];
  /** The role the client certificate logs in as (its CN; pg_hba's `cert` method compares them). */
  readonly superuser: string;
  /** Names the CA, for a person reading a certificate chain. */
  readonly database: string;
}

/** Nothing renews these (the CA's key is gone), so they last; docs/kinds/database.md says how to replace them. */
const LIFETIME_MS = 10 * 365 * 24 * 3600 * 1000;
const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' } as const;

/** Loopback, for tools run inside a server's pod (`psql -h 127.0.0.1`). */
const LOOPBACK = { dns: ['localhost'], ips: ['127.0.0.1', '::1'] };

/** A positive serial number of 128 random bits (RFC 5280: at most 20 octets, non-negative). */
const serial = () => {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] & 0x7f) | 0x01;
  return bytes.toString('hex');
};

const pkcs8 = (key: webcrypto.CryptoKey) => KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }) as string;

/** A CA, a serving certificate and a superuser client certificate, ECDSA P-256 (fast to make: see docs/kinds/database.md for the cost). */
export async function newDatabaseTls(names: DatabaseTlsNames, now = new Date()): Promise<DatabaseTlsMaterial> {
  const notAfter = new Date(now.getTime() + LIFETIME_MS);
  const caKeys = await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${escapeRdn(`PostgreSQL CA of ${names.database}`)}`,
    notBefore: now,
    notAfter,
    keys: caKeys,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const authority = await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey);

  async function issue(subject: string, usage: string, names?: x509.JsonGeneralName[]): Promise<{ cert: string; key: string }> {
    const keys = await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject,
      issuer: ca.subject,
      notBefore: now,
      notAfter,
      publicKey: keys.publicKey,
      signingKey: caKeys.privateKey,
      signingAlgorithm: SIGNING_ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([usage]),
        ...(names ? [new x509.SubjectAlternativeNameExtension(names)] : []),
        authority,
      ],
    });
    return { cert: cert.toString('pem') + '\n', key: pkcs8(keys.privateKey) };
  }

  const server = await issue(`CN=${escapeRdn(names.dns[0])}`, x509.ExtendedKeyUsage.serverAuth, [
    ...[...names.dns, ...LOOPBACK.dns].map((value) => ({ type: 'dns' as const, value })),
    ...LOOPBACK.ips.map((value) => ({ type: 'ip' as const, value })),
  ]);
  const superuser = await issue(`CN=${escapeRdn(names.superuser)}`, x509.ExtendedKeyUsage.clientAuth);
  return { caCert: ca.toString('pem') + '\n', serverCert: server.cert, serverKey: server.key, superuserCert: superuser.cert, superuserKey: superuser.key };
}

/** An RFC 4514 attribute value: a Database's name may hold any character a DN gives meaning to. */
function escapeRdn(value: string): string {
  return value.replace(/[\\,+"<>;=]/g, '\\$&').replace(/^[ #]|[ ]$/g, '\\$&');
}
