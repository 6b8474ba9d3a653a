import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { resourcePath, SECRETS } from '../../kube/paths';
import { KubeRest } from '../../kube/rest';
import { Logger } from '../log';
import { TlsMaterial } from './certificates';

/**
 * A certificate as cert-manager keeps it (the webhook's, the metrics server's): its Certificate writes `tls.crt`,
 * `tls.key` and `ca.crt` into a Secret of the controller's namespace, renews them there, and
 * its cainjector puts `ca.crt` into the CRDs' caBundle. The controller only reads the Secret
 * (get, by name): it makes no CA, writes no Secret and injects nothing. Read again every check
 * interval, so a renewed certificate is served without a restart. Keys are never logged.
 */
export interface CertManagerSecretOptions {
  readonly namespace: string;
  readonly secretName: string;
  /** The Certificate that writes the Secret, named in errors. */
  readonly certificateName: string;
  /** What the certificate serves, for the log. @default 'webhook' */
  readonly serves?: string;
  /** @default one minute */
  readonly checkIntervalMs?: number;
}

interface Secret {
  data?: Record<string, string>;
}

export class CertManagerSecret {
  readonly checkIntervalMs: number;

  constructor(
    private readonly rest: KubeRest,
    private readonly options: CertManagerSecretOptions,
    private readonly log: Logger,
  ) {
    this.checkIntervalMs = options.checkIntervalMs ?? 60_000;
  }

  private get where(): string {
    return `Secret ${this.options.namespace}/${this.options.secretName}`;
  }

  /** What the Secret holds now; throws naming the Secret and the key that is missing or wrong. */
  async sync(): Promise<TlsMaterial> {
    const path = resourcePath(SECRETS, { namespace: this.options.namespace, name: this.options.secretName });
    const secret = await this.rest.request<Secret | undefined>('GET', path, { notFoundAsUndefined: true });
    if (!secret) {
      throw new Error(`${this.where} does not exist yet: cert-manager writes it for the Certificate ${this.options.namespace}/${this.options.certificateName} (is cert-manager installed and the Certificate Ready?)`);
    }
    const data = Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
    const missing = ['tls.crt', 'tls.key', 'ca.crt'].filter((key) => !data[key]?.trim());
    if (missing.length) throw new Error(`${this.where}: expected the keys tls.crt, tls.key and ca.crt that cert-manager writes; ${missing.join(', ')} missing or empty`);
    checkPair(data['tls.crt'], data['tls.key'], this.where);
    this.log.debug(`${this.options.serves ?? 'webhook'} certificate read from cert-manager\u2019s Secret`, { secret: this.where });
    return { caBundle: data['ca.crt'], cert: data['tls.crt'], key: data['tls.key'] };
  }
}

/** tls.crt must be a certificate and tls.key its private key: a half-renewed or hand-edited Secret is refused, not served. */
function checkPair(certPem: string, keyPem: string, where: string): void {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch (err) {
    throw new Error(`${where}: tls.crt is not a PEM certificate (${(err as Error).message})`);
  }
  let spki: Buffer;
  try {
    spki = createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'der' });
  } catch (err) {
    throw new Error(`${where}: tls.key is not a PEM private key (${(err as Error).message})`);
  }
  if (!spki.equals(cert.publicKey.export({ type: 'spki', format: 'der' }))) throw new Error(`${where}: tls.key is not the key of tls.crt`);
}
