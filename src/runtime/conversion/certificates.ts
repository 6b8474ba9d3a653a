// @peculiar/x509 resolves its parts through tsyringe, which needs the Reflect metadata API: load it first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createPrivateKey, createPublicKey, KeyObject, randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import { resourcePath, SECRETS } from '../../kube/paths';
import { KubeError, KubeRest } from '../../kube/rest';
import { Logger } from '../log';
import { CertificateState, nextStep, Step } from './renewal';
import { serviceDnsNames } from '../../core/install/webhook';
import { OperatorNames } from '../../core/install/identity';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

/**
 * The webhook's own CA and serving certificate, kept in a Secret of the controller's namespace
 * that every replica shares (no cert-manager): made when absent, renewed before expiry without
 * downtime (see renewal.ts). Keys: `ca.crt` the CA bundle (the CA that signs, plus the
 * previous one during a rotation), `ca.key` the signing CA's key, `tls.crt`/`tls.key` the
 * serving certificate. Keys are ECDSA P-256 (fast to make) and never logged.
 */

export interface CertificateOptions {
  /** The controller's namespace, where the Secret is. */
  readonly namespace: string;
  readonly secretName: string;
  /** The operator's: the Secret's field manager, its part-of label and its CA's name derive from it. */
  readonly operator: OperatorNames;
  /** The webhook's Service: the serving certificate names `<service>.<namespace>.svc[.cluster.local]`, and localhost and 127.0.0.1. */
  readonly serviceName: string;
  /** @default one year */
  readonly caLifetimeMs?: number;
  /** @default 90 days (and never past the CA's end) */
  readonly servingLifetimeMs?: number;
  /** How long a new CA is in the bundle before a certificate it signed is served. @default twice checkIntervalMs */
  readonly settleMs?: number;
  /** How often the Secret is read again (another replica may have renewed it). @default one minute */
  readonly checkIntervalMs?: number;
}

/** What the webhook serves and what the CRDs must trust, PEM. */
export interface TlsMaterial {
  readonly caBundle: string;
  readonly cert: string;
  readonly key: string;
}

const DAY = 24 * 3600 * 1000;
const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' } as const;

interface Parsed {
  readonly pem: string;
  readonly cert: X509Certificate;
  readonly id: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
}

interface SecretObject {
  metadata: { name: string; namespace: string; resourceVersion?: string; [key: string]: unknown };
  type?: string;
  data?: Record<string, string>;
  [key: string]: unknown;
}

/** The names the serving certificate holds: the Service's DNS names, and loopback for a local control plane. */
export function servingNames(serviceName: string, namespace: string): { dns: string[]; ips: string[] } {
  return { dns: [...serviceDnsNames(serviceName, namespace), 'localhost'], ips: ['127.0.0.1'] };
}

export class CertificateKeeper {
  private readonly caLifetimeMs: number;
  private readonly servingLifetimeMs: number;
  private readonly settleMs: number;
  readonly checkIntervalMs: number;
  private readonly path: string;
  private readonly secretPath: string;

  constructor(
    private readonly rest: KubeRest,
    private readonly options: CertificateOptions,
    private readonly log: Logger,
    /** Whether every CRD the webhook serves trusts this CA (PEM) already: a serving certificate from a new CA waits for it. */
    private readonly trusted: (caPem: string) => Promise<boolean>,
  ) {
    this.caLifetimeMs = options.caLifetimeMs ?? 365 * DAY;
    this.servingLifetimeMs = options.servingLifetimeMs ?? 90 * DAY;
    this.checkIntervalMs = options.checkIntervalMs ?? 60_000;
    this.settleMs = options.settleMs ?? 2 * this.checkIntervalMs;
    this.path = resourcePath(SECRETS, { namespace: options.namespace });
    this.secretPath = resourcePath(SECRETS, { namespace: options.namespace, name: options.secretName });
  }

  private get where(): string {
    return `Secret ${this.options.namespace}/${this.options.secretName}`;
  }

  /**
   * Reads the Secret, makes it or renews what is due, and returns what to serve now. Another
   * replica writing at the same time makes ours a conflict: read again and decide again.
   */
  async sync(now: () => Date = () => new Date()): Promise<TlsMaterial> {
    for (let attempt = 0; ; attempt++) {
      let secret = await this.read();
      if (!secret) {
        secret = await this.create(await this.fresh(now()));
        if (!secret) continue; // Another replica made it first: use theirs.
      }
      // A few steps at most (new CA, drop one, new serving certificate); a bound in case of a lifetime too short to ever settle.
      let conflict = false;
      for (let steps = 0; steps < 5 && !conflict; steps++) {
        const state = this.inspect(secret);
        const data = await this.apply(nextStep(state.decisions, now(), this.settleMs), state, now());
        if (!data) return material(secret);
        const written = await this.update(secret, data);
        // A conflict: another replica wrote first; read again.
        if (written) secret = written;
        else conflict = true;
      }
      if (!conflict) return material(secret);
      if (attempt > 10) throw new Error(`${this.where}: gave up after ${attempt} conflicting writes by other replicas`);
    }
  }

  /** The Secret's new data for one step; undefined when nothing is to be written now. */
  private async apply(step: Step, state: Inspected, now: Date): Promise<Record<string, string> | undefined> {
    switch (step.action) {
      case 'none':
        return undefined;
      case 'wait':
        this.log.debug('webhook certificate: waiting', { why: step.why });
        return undefined;
      case 'drop-cas': {
        this.log.info(`webhook certificate: dropping expired CAs from the bundle of ${this.where}`, { count: step.ids.length });
        const bundle = state.cas.filter((ca) => !step.ids.includes(ca.id));
        return { ...state.data, 'ca.crt': pemOf(bundle) };
      }
      case 'new-ca': {
        const ca = await this.newCa(now);
        const keep = state.cas.filter((c) => c.notAfter > now);
        this.log.info('webhook certificate: new CA', { why: step.why, notAfter: ca.notAfter.toISOString(), bundle: keep.length + 1 });
        // The signing CA first, then the one it replaces, kept while what that one signed is served.
        return { ...state.data, 'ca.crt': pemOf([ca, ...keep]), 'ca.key': ca.keyPem };
      }
      case 'new-serving': {
        const signer = state.signer!;
        if (step.needsTrust && !(await this.trusted(signer.pem))) {
          this.log.info('webhook certificate: waiting until the CRDs trust the new CA', { why: step.why });
          return undefined;
        }
        const serving = await this.newServing(signer, state.signerKey!, now);
        this.log.info('webhook certificate: new serving certificate', { why: step.why, notAfter: serving.notAfter.toISOString() });
        return { ...state.data, 'tls.crt': serving.pem, 'tls.key': serving.keyPem };
      }
    }
  }

  private async read(): Promise<SecretObject | undefined> {
    return this.rest.request<SecretObject | undefined>('GET', this.secretPath, { notFoundAsUndefined: true });
  }

  /** Creates the Secret; undefined when another replica created it first (409). */
  private async create(data: Record<string, string>): Promise<SecretObject | undefined> {
    const body: SecretObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: this.options.secretName, namespace: this.options.namespace, labels: { 'app.kubernetes.io/part-of': this.options.operator.partOf, 'app.kubernetes.io/component': 'conversion-webhook' } },
      type: 'kubernetes.io/tls',
      data: encode(data),
    };
    try {
      const created = await this.rest.request<SecretObject>('POST', this.path, { body, query: { fieldManager: this.options.operator.certificatesManager } });
      this.log.info(`webhook certificate: created ${this.where} with a new CA and serving certificate`);
      return created;
    } catch (err) {
      if (err instanceof KubeError && err.code === 409) return undefined;
      throw new Error(`cannot create ${this.where}: ${(err as Error).message}`);
    }
  }

  /** Writes the Secret if nobody changed it since it was read; undefined on a conflict. */
  private async update(secret: SecretObject, data: Record<string, string>): Promise<SecretObject | undefined> {
    try {
      return await this.rest.request<SecretObject>('PUT', this.secretPath, {
        body: { ...secret, data: encode(data) },
        query: { fieldManager: this.options.operator.certificatesManager },
      });
    } catch (err) {
      if (err instanceof KubeError && err.code === 409) return undefined;
      throw new Error(`cannot update ${this.where}: ${(err as Error).message}`);
    }
  }

  /** A CA and a serving certificate it signed, for a Secret that does not exist yet. */
  private async fresh(now: Date): Promise<Record<string, string>> {
    const ca = await this.newCa(now);
    const serving = await this.newServing(ca, ca.keyPem, now);
    return { 'ca.crt': ca.pem, 'ca.key': ca.keyPem, 'tls.crt': serving.pem, 'tls.key': serving.keyPem };
  }

  private async newCa(now: Date): Promise<Parsed & { keyPem: string }> {
    const keys = await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serialNumber(),
      // A name of its own per CA, so that two CAs of one bundle are never mistaken for each other.
      name: `CN=${this.options.operator.caCommonName} ${now.toISOString()}`,
      notBefore: now,
      notAfter: new Date(now.getTime() + this.caLifetimeMs),
      keys,
      signingAlgorithm: SIGNING_ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    return { ...parse(cert.toString('pem')), keyPem: pemKey(keys.privateKey) };
  }

  private async newServing(ca: Parsed, caKeyPem: string, now: Date): Promise<Parsed & { keyPem: string }> {
    const keys = await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
    const signingKey = createPrivateKey(caKeyPem).toCryptoKey(KEY_ALGORITHM, false, ['sign']);
    const { dns, ips } = servingNames(this.options.serviceName, this.options.namespace);
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serialNumber(),
      subject: `CN=${dns[0]}`,
      issuer: new x509.X509Certificate(ca.pem).subjectName,
      notBefore: now,
      // Never past its CA: when the CA leaves the bundle, nothing it signed is still valid.
      notAfter: new Date(Math.min(now.getTime() + this.servingLifetimeMs, ca.notAfter.getTime())),
      publicKey: keys.publicKey,
      signingKey,
      signingAlgorithm: SIGNING_ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension([...dns.map((value) => ({ type: 'dns' as const, value })), ...ips.map((value) => ({ type: 'ip' as const, value }))]),
        await x509.AuthorityKeyIdentifierExtension.create(createPublicKey(caKeyPem).export({ type: 'spki', format: 'der' })),
      ],
    });
    return { ...parse(cert.toString('pem')), keyPem: pemKey(keys.privateKey) };
  }

  /** The Secret as the decisions see it; anything unreadable in it counts as missing (and is made again). */
  private inspect(secret: SecretObject): Inspected {
    const data = decode(secret.data ?? {});
    const cas = splitPem(data['ca.crt'] ?? '').flatMap((pem) => {
      const ca = tryParse(pem);
      return ca?.cert.ca ? [ca] : [];
    });
    const signerKey = data['ca.key'];
    const signer = signerKey ? cas.find((ca) => keyMatches(signerKey, ca.cert)) : undefined;
    const servingCert = tryParse(data['tls.crt'] ?? '');
    const servingKey = data['tls.key'];
    const serving = servingCert && servingKey && keyMatches(servingKey, servingCert.cert) ? servingCert : undefined;
    const issuer = serving ? cas.find((ca) => serving.cert.checkIssued(ca.cert) && serving.cert.verify(ca.cert.publicKey)) : undefined;
    const wanted = servingNames(this.options.serviceName, this.options.namespace);
    const decisions: CertificateState = {
      cas,
      signer: signer?.id,
      serving: serving && { notBefore: serving.notBefore, notAfter: serving.notAfter, issuer: issuer?.id, namesMatch: namesOf(serving.cert) === namesOfWanted(wanted) },
    };
    return { data, cas, signer, signerKey: signer ? signerKey : undefined, decisions };
  }
}

interface Inspected {
  readonly data: Record<string, string>;
  readonly cas: readonly Parsed[];
  readonly signer?: Parsed;
  readonly signerKey?: string;
  readonly decisions: CertificateState;
}

function material(secret: SecretObject): TlsMaterial {
  const data = decode(secret.data ?? {});
  return { caBundle: data['ca.crt'], cert: data['tls.crt'], key: data['tls.key'] };
}

function parse(pem: string): Parsed {
  const cert = new X509Certificate(pem);
  return { pem: cert.toString().trim() + '\n', cert, id: cert.fingerprint256, notBefore: cert.validFromDate, notAfter: cert.validToDate };
}

function tryParse(pem: string): Parsed | undefined {
  try {
    return pem ? parse(pem) : undefined;
  } catch {
    return undefined;
  }
}

function keyMatches(keyPem: string, cert: X509Certificate): boolean {
  try {
    const spki = (key: KeyObject) => key.export({ type: 'spki', format: 'der' });
    return spki(createPublicKey(createPrivateKey(keyPem))).equals(spki(cert.publicKey));
  } catch {
    return false;
  }
}

/** Node's `DNS:a, IP Address:127.0.0.1`, sorted, to compare with what is wanted. */
function namesOf(cert: X509Certificate): string {
  return (cert.subjectAltName ?? '').split(', ').sort().join(', ');
}

function namesOfWanted({ dns, ips }: { dns: string[]; ips: string[] }): string {
  return [...dns.map((d) => `DNS:${d}`), ...ips.map((ip) => `IP Address:${ip}`)].sort().join(', ');
}

export function splitPem(text: string): string[] {
  return text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)?.map((pem) => `${pem}\n`) ?? [];
}

function pemOf(certs: readonly Parsed[]): string {
  return certs.map((c) => c.pem).join('');
}

function pemKey(key: webcrypto.CryptoKey): string {
  return KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }) as string;
}

/** A positive serial number of 128 random bits, as RFC 5280 asks (at most 20 octets, non-negative). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  bytes[0] |= 0x01;
  return bytes.toString('hex');
}

function encode(data: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]));
}

function decode(data: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
}
