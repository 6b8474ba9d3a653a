import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { AnyKind } from '../../src/core/contract/kind';
import { createLogger } from '../../src/runtime/log';
import { ConversionServer } from '../../src/runtime/conversion/server';
import { selfSigned } from './self-signed';

/** A conversion webhook on loopback, as the API servers of the tests reach it. */
export interface LocalConversion {
  readonly url: string;
  /** The PEM of its self-signed certificate, base64: the CRDs' caBundle. */
  readonly caBundle: string;
  close(): Promise<void>;
}

/**
 * The product's conversion server for `kinds` with a self-signed certificate for 127.0.0.1:
 * one for a whole test run (test/controlplane/global-setup.ts), which every control plane of
 * the run points its CRDs at (see installCrds), so that test files running side by side do
 * not move the CRDs between controllers of their own.
 */
export async function startLocalConversion(kinds: readonly AnyKind[]): Promise<LocalConversion> {
  const { cert, key } = selfSigned();
  const server = new ConversionServer({ kinds, port: 0, host: '127.0.0.1' }, createLogger({ level: 'warn' }));
  const port = await server.start({ caBundle: cert, cert, key });
  return { url: `https://127.0.0.1:${port}/convert`, caBundle: Buffer.from(cert).toString('base64'), close: () => server.stop() };
}

/** Where the run's conversion webhook is (set by the global setup), for CRDs applied in a test. */
export function runConversion(): { url: string; caBundle: string } | undefined {
  const { TEST_CONVERSION_URL: url, TEST_CONVERSION_CA_BUNDLE: caBundle } = process.env;
  return url && caBundle ? { url, caBundle } : undefined;
}

/** The certificate a webhook on 127.0.0.1:`port` presents, as PEM (checked against `ca`, for 127.0.0.1). */
export function presentedCertificate(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca }, () => {
      const pem = new X509Certificate(socket.getPeerX509Certificate()!.raw).toString();
      socket.end();
      resolve(pem);
    });
    socket.once('error', reject);
  });
}
