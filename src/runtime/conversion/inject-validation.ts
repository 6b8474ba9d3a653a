import { KubeError, KubeRest } from '../../kube/rest';
import { Logger } from '../log';
import { splitPem } from './certificates';
import { normalize } from './inject';
import { VALIDATE_PATH } from '../../core/install/webhook';
import { OperatorNames } from '../../core/install/identity';

/** The ValidatingWebhookConfigurations of the cluster (admissionregistration.k8s.io/v1). */
export const VALIDATING_WEBHOOKS_PATH = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';

interface LiveConfiguration {
  webhooks?: { name: string; clientConfig?: { caBundle?: string; url?: string; service?: unknown } }[];
}

/**
 * Puts the webhook's CA bundle into every webhook of the ValidatingWebhookConfiguration the
 * bundle installs for kinds with a `validate` hook (OperatorNames.validatingWebhook, by name, and no other),
 * as CaInjector does for the CRDs: in a cluster a server-side apply of the caBundles alone under
 * its own field manager; with a URL (local mode) a strategic merge patch pointing them at it.
 */
export class ValidationCaInjector {
  private readonly name: string;
  private readonly path: string;
  private readonly fieldManager: string;
  /** The /validate URL of local mode, beside the conversion URL given. */
  private readonly url?: string;

  constructor(
    private readonly rest: KubeRest,
    conversionUrl: string | undefined,
    private readonly log: Logger,
    operator: OperatorNames,
  ) {
    this.name = operator.validatingWebhook;
    this.path = `${VALIDATING_WEBHOOKS_PATH}/${this.name}`;
    this.fieldManager = operator.caInjector;
    if (conversionUrl) {
      const url = new URL(conversionUrl);
      url.pathname = VALIDATE_PATH;
      this.url = url.toString();
    }
  }

  async inject(caBundle: string): Promise<void> {
    const encoded = Buffer.from(caBundle, 'utf8').toString('base64');
    let live: LiveConfiguration | undefined;
    try {
      live = await this.rest.request<LiveConfiguration | undefined>('GET', this.path, { notFoundAsUndefined: true });
    } catch (err) {
      throw new Error(`cannot read ValidatingWebhookConfiguration ${this.name} to inject the webhook's CA: ${(err as Error).message}`);
    }
    if (!live) {
      this.log.info('ValidatingWebhookConfiguration not installed yet: its CA bundle is injected once it is', { name: this.name });
      return;
    }
    const webhooks = live.webhooks ?? [];
    const done = (config: { caBundle?: string; url?: string; service?: unknown } = {}) => config.caBundle === encoded && (!this.url || (config.url === this.url && config.service === undefined));
    if (webhooks.every((webhook) => done(webhook.clientConfig))) return;
    try {
      if (this.url) {
        // Strategic merge keys the list by name, and `service: null` removes what the installer set (url and service cannot go together).
        await this.rest.request('PATCH', this.path, {
          body: { webhooks: webhooks.map(({ name }) => ({ name, clientConfig: { service: null, url: this.url, caBundle: encoded } })) },
          contentType: 'application/strategic-merge-patch+json',
          query: { fieldManager: this.fieldManager },
        });
      } else {
        await this.rest.request('PATCH', this.path, {
          body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: this.name }, webhooks: webhooks.map(({ name }) => ({ name, clientConfig: { caBundle: encoded } })) },
          contentType: 'application/apply-patch+yaml',
          query: { fieldManager: this.fieldManager, force: 'true' },
        });
      }
    } catch (err) {
      const rbac = err instanceof KubeError && err.code === 403 ? ' (the controller needs get and patch on it, by name)' : '';
      throw new Error(`cannot inject the webhook's CA into ValidatingWebhookConfiguration ${this.name}${rbac}: ${(err as Error).message}`);
    }
    this.log.info('injected the webhook CA bundle', { validatingWebhookConfiguration: this.name, webhooks: webhooks.length, cas: splitPem(caBundle).length, ...(this.url ? { url: this.url } : {}) });
  }

  /** Whether every webhook's caBundle holds this CA (PEM) already; none installed trusts it. */
  async trusts(caPem: string): Promise<boolean> {
    const live = await this.rest.request<LiveConfiguration | undefined>('GET', this.path, { notFoundAsUndefined: true });
    const wanted = normalize(caPem);
    return (live?.webhooks ?? []).every((webhook) => splitPem(Buffer.from(webhook.clientConfig?.caBundle ?? '', 'base64').toString('utf8')).some((pem) => normalize(pem) === wanted));
  }
}
