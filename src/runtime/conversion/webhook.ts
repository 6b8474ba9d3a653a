import { setTimeout as sleep } from 'node:timers/promises';
import { AnyKind } from '../../core/kind';
import { KubeRest } from '../../kube/rest';
import { Logger } from '../log';
import { CertificateKeeper, CertificateOptions } from './certificates';
import { CaInjector } from './inject';
import { versionedCrdNames, WEBHOOK_SERVICE, WEBHOOK_TLS_SECRET } from '../../core/webhook';
import { ConversionServer } from './server';

export interface ConversionWebhookOptions {
  readonly kinds: readonly AnyKind[];
  readonly withoutExtraGroups?: readonly string[];
  /** The controller's namespace: where the Secret is, and the Service the certificate names. */
  readonly namespace: string;
  readonly port: number;
  readonly host: string;
  /** Local mode: the API server posts reviews to this URL rather than to the Service. */
  readonly url?: string;
  /** @default WEBHOOK_TLS_SECRET */
  readonly secretName?: string;
  /** @default WEBHOOK_SERVICE */
  readonly serviceName?: string;
  /** Lifetimes and intervals (tests use seconds). */
  readonly timing?: Pick<CertificateOptions, 'caLifetimeMs' | 'servingLifetimeMs' | 'settleMs' | 'checkIntervalMs'>;
}

/**
 * The conversion webhook of one replica: its certificates (shared by all replicas through the
 * Secret), the HTTPS server, and the CA injected into the CRDs; then, each check interval, the
 * Secret read again (renewing what is due), a renewed certificate served, and the CRDs' bundle
 * put back if it changed or was removed.
 */
export class ConversionWebhook {
  private readonly keeper: CertificateKeeper;
  private readonly injector: CaInjector;
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
    this.injector = new CaInjector(rest, versionedCrdNames(options.kinds, options.withoutExtraGroups), options.url, log);
    this.keeper = new CertificateKeeper(
      rest,
      { namespace: options.namespace, secretName: options.secretName ?? WEBHOOK_TLS_SECRET, serviceName: options.serviceName ?? WEBHOOK_SERVICE, ...options.timing },
      log,
      (ca) => this.injector.trusts(ca),
    );
    this.server = new ConversionServer({ kinds: options.kinds, port: options.port, host: options.host }, log);
  }

  /** The CRDs it injects, by name. */
  get crdNames(): readonly string[] {
    return this.injector.crdNames;
  }

  /**
   * Resolves once it serves and the CA is injected (false if stopped first); retries with
   * backoff while the API server or the Secret is not there yet, saying why.
   */
  async start(): Promise<boolean> {
    for (let attempt = 0; !this.stopping; attempt++) {
      try {
        const tls = await this.keeper.sync();
        this.port ??= await this.server.start(tls);
        this.server.use(tls);
        await this.injector.inject(tls.caBundle);
        this.ready = true;
        this.log.info('conversion webhook serving', { port: this.port, crds: this.injector.crdNames, ...(this.options.url ? { url: this.options.url } : {}) });
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

  private schedule(): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => this.schedule());
    }, this.keeper.checkIntervalMs);
  }

  private async tick(): Promise<void> {
    try {
      const tls = await this.keeper.sync();
      if (this.stopping) return;
      this.server.use(tls);
      await this.injector.inject(tls.caBundle);
    } catch (err) {
      // What is served stays valid for a third of its life: retry at the next check.
      this.log.warn('conversion webhook: could not renew or inject; retrying at the next check', { error: err as Error });
    }
  }
}
