import { CertManagerSecret } from './conversion/cert-manager';
import { Logger } from './log';
import { MetricsServer } from './metrics-server';

/**
 * The metrics server's certificate from cert-manager's Secret (--metrics-certificates=cert-manager),
 * so that Prometheus verifies the controller by the CA in that Secret (the ServiceMonitor's
 * tlsConfig.ca) instead of skipping the check. Read at start and every check interval, served
 * once it is there and whenever cert-manager renews it, without a restart. Until the Secret can
 * be read the server keeps its self-signed certificate: scrapes stay encrypted and
 * authorized, and the log says why (once per reason, not at every check).
 */
export class MetricsCertificate {
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private served?: string;
  private lastProblem?: string;

  constructor(
    private readonly secret: CertManagerSecret,
    private readonly server: MetricsServer,
    private readonly log: Logger,
  ) {}

  /** Reads the Secret now, then at every check interval. */
  start(): Promise<void> {
    return this.check();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async check(): Promise<void> {
    try {
      const tls = await this.secret.sync();
      if (this.stopped) return;
      if (tls.cert !== this.served || this.lastProblem !== undefined) {
        this.server.use(tls);
        this.log.info(this.served === undefined ? 'metrics server serves cert-manager\u2019s certificate' : 'metrics server serves the renewed certificate');
        this.served = tls.cert;
      }
      this.lastProblem = undefined;
    } catch (err) {
      const problem = (err as Error).message;
      if (problem !== this.lastProblem) this.log.warn('metrics server: cert-manager\u2019s certificate cannot be read; serving the one it has meanwhile', { error: err as Error });
      this.lastProblem = problem;
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.check(), this.secret.checkIntervalMs).unref();
  }
}
