import { setTimeout as sleep } from 'node:timers/promises';
import { AnyKind } from '../../core/contract/kind';
import { KubeRest } from '../../kube/rest';
import { Logger } from '../log';
import { CertificateKeeper, CertificateOptions, TlsMaterial } from './certificates';
import { CertManagerSecret } from './cert-manager';
import { CaInjector } from './inject';
import { ValidationCaInjector } from './inject-validation';
import { validatedKinds, versionedCrdNames, WebhookCertificates, WEBHOOK_SERVICE } from '../../core/install/webhook';
import { OperatorNames } from '../../core/install/identity';
import { ConversionServer } from './server';

export interface ConversionWebhookOptions {
  /** Whose webhook: its Secret, its CA's name and its field managers are the operator's. */
  readonly operator: OperatorNames;
  readonly kinds: readonly AnyKind[];
  readonly withoutExtraGroups?: readonly string[];
  /** The controller's namespace: where the Secret is, and the Service the certificate names. */
  readonly namespace: string;
  readonly port: number;
  readonly host: string;
  /** Local mode: the API server posts reviews to this URL rather than to the Service. */
  readonly url?: string;
  /** `self`: its own CA, injected into the CRDs; `cert-manager`: the Secret cert-manager writes, nothing injected. @default 'self' */
  readonly certificates?: WebhookCertificates;
  /** @default the operator's webhookSecret (certManager.secretName with cert-manager) */
  readonly secretName?: string;
  /** @default WEBHOOK_SERVICE */
  readonly serviceName?: string;
  /** Lifetimes and intervals (tests use seconds). */
  readonly timing?: Pick<CertificateOptions, 'caLifetimeMs' | 'servingLifetimeMs' | 'settleMs' | 'checkIntervalMs'>;
}

/** Where the served certificate comes from: the controller's own keeper, or cert-manager's Secret. */
interface CertificateSource {
  readonly checkIntervalMs: number;
  sync(): Promise<TlsMaterial>;
}

/**
 * The conversion webhook of one replica: its certificates (shared by all replicas through the
 * Secret), the HTTPS server, and the CA injected into the CRDs; then, each check interval, the
 * Secret read again (renewing what is due), a renewed certificate served, and the CRDs' bundle
 * put back if it changed or was removed. With cert-manager it only reads cert-manager's
 * Secret and serves what it holds; cert-manager renews it and its cainjector fills caBundle.
 */
export class ConversionWebhook {
  private readonly source: CertificateSource;
  /** None with cert-manager: its cainjector owns caBundle. */
  private readonly injector?: CaInjector;
  /** The ValidatingWebhookConfiguration's, when a kind has a `validate` hook (none with cert-manager either). */
  private readonly validationInjector?: ValidationCaInjector;
  readonly crdNames: readonly string[];
  private readonly server: ConversionServer;
  private stopping = false;
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  /** Whether it serves and the CRDs trust its CA: /readyz waits for it. */
  ready = false;
  /** The port it listens on, once started. */
  port?: number;

  constructor(
    rest: KubeRest,
    private readonly options: ConversionWebhookOptions,
    private readonly log: Logger,
  ) {
    this.crdNames = versionedCrdNames(options.kinds, options.withoutExtraGroups);
    if (options.certificates === 'cert-manager') {
      if (options.url) throw new Error('a webhook URL (local mode) needs the controller\u2019s own certificates: cert-manager\u2019s name the Service, and its cainjector sets no URL');
      const { namespace, timing } = options;
      this.source = new CertManagerSecret(rest, { namespace, secretName: options.secretName ?? options.operator.certManager.secretName, certificateName: options.operator.certManager.certificate, checkIntervalMs: timing?.checkIntervalMs }, log);
    } else {
      const injector = (this.injector = new CaInjector(rest, this.crdNames, options.url, log, options.operator.caInjector));
      const validation = (this.validationInjector = validatedKinds(options.kinds).length ? new ValidationCaInjector(rest, options.url, log, options.operator) : undefined);
      this.source = new CertificateKeeper(
        rest,
        { namespace: options.namespace, operator: options.operator, secretName: options.secretName ?? options.operator.webhookSecret, serviceName: options.serviceName ?? WEBHOOK_SERVICE, ...options.timing },
        log,
        async (ca) => (await injector.trusts(ca)) && ((await validation?.trusts(ca)) ?? true),
      );
    }
    this.server = new ConversionServer({ kinds: options.kinds, port: options.port, host: options.host }, log);
  }

  /**
   * Resolves once it serves and the CA is injected (false if stopped first); retries with
   * backoff while the API server or the Secret is not there yet, saying why.
   */
  async start(): Promise<boolean> {
    for (let attempt = 0; !this.stopping; attempt++) {
      try {
        const tls = await this.source.sync();
        this.port ??= await this.server.start(tls);
        this.server.use(tls);
        await this.inject(tls.caBundle);
        this.ready = true;
        const certificates = this.options.certificates ?? 'self';
        this.log.info('conversion webhook serving', { port: this.port, crds: this.crdNames, validates: validatedKinds(this.options.kinds).map((kind) => kind.plural), certificates, ...(this.options.url ? { url: this.options.url } : {}) });
        this.schedule();
        return true;
      } catch (err) {
        const delay = Math.min(30_000, 1000 * 2 ** attempt);
        this.log.warn('conversion webhook not serving yet; retrying', { retryInMs: delay, error: err as Error });
        await sleep(delay);
      }
    }
    return false;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.ticking;
    await this.server.stop();
    this.ready = false;
  }

  private async inject(caBundle: string): Promise<void> {
    await this.injector?.inject(caBundle);
    await this.validationInjector?.inject(caBundle);
  }

  private schedule(): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => this.schedule());
    }, this.source.checkIntervalMs);
  }

  private async tick(): Promise<void> {
    try {
      const tls = await this.source.sync();
      if (this.stopping) return;
      this.server.use(tls);
      await this.inject(tls.caBundle);
    } catch (err) {
      // What is served stays valid for a third of its life: retry at the next check.
      this.log.warn('conversion webhook: could not renew or inject; retrying at the next check', { error: err as Error });
    }
  }
}
