import { CRDS_PATH as CRDS } from '../../kube/discovery';
import { KubeError, KubeRest } from '../../kube/rest';
import { Logger } from '../log';
import { splitPem } from './certificates';

/**
 * Puts the webhook's CA bundle into `spec.conversion.webhook.clientConfig.caBundle` of the
 * CRDs of the served kinds that have versions (each of their served groups), by name, and no
 * other CRD. In a cluster it server-side applies the caBundle alone under its own field
 * manager, so the CRD's owner (GitOps, Helm) neither owns it nor sees it as drift. With a URL
 * (a local control plane, where no Service routes to this process) it points the CRD at it.
 */

interface LiveCrd {
  spec?: { conversion?: { strategy?: string; webhook?: { clientConfig?: { caBundle?: string; url?: string; service?: unknown } } } };
}


export class CaInjector {
  constructor(
    private readonly rest: KubeRest,
    readonly crdNames: readonly string[],
    /** Where the API server reaches the webhook when it is not the CRD's Service (local mode); none: keep the Service. */
    private readonly url: string | undefined,
    private readonly log: Logger,
    /** The operator's own manager of the caBundle (OperatorNames.caInjector), so a GitOps apply of the CRD neither owns nor removes it. */
    private readonly fieldManager: string,
  ) {}

  /** Injects the bundle into each CRD whose live one differs; throws naming the CRD it could not write. */
  async inject(caBundle: string): Promise<void> {
    const encoded = Buffer.from(caBundle, 'utf8').toString('base64');
    for (const name of this.crdNames) {
      const path = `${CRDS}/${encodeURIComponent(name)}`;
      let live: LiveCrd | undefined;
      try {
        live = await this.rest.request<LiveCrd | undefined>('GET', path, { notFoundAsUndefined: true });
      } catch (err) {
        throw new Error(`cannot read CRD ${name} to inject the webhook's CA: ${(err as Error).message}`);
      }
      // Not installed yet (GitOps may install it later): the next check injects it.
      if (!live) {
        this.log.info('CRD not installed yet: its CA bundle is injected once it is', { crd: name });
        continue;
      }
      const config = live.spec?.conversion?.webhook?.clientConfig;
      const urlDone = !this.url || (config?.url === this.url && config.service === undefined);
      if (config?.caBundle === encoded && urlDone) continue;
      try {
        if (this.url) {
          // A JSON merge patch, not server-side apply: SSA cannot remove a field another manager
          // owns (the installer's `service`), and the API server refuses url and service together.
          await this.rest.request('PATCH', path, {
            body: { spec: { conversion: { webhook: { clientConfig: { service: null, url: this.url, caBundle: encoded } } } } },
            contentType: 'application/merge-patch+json',
            query: { fieldManager: this.fieldManager },
          });
        } else {
          await this.rest.request('PATCH', path, {
            body: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name }, spec: { conversion: { webhook: { clientConfig: { caBundle: encoded } } } } },
            contentType: 'application/apply-patch+yaml',
            query: { fieldManager: this.fieldManager, force: 'true' },
          });
        }
      } catch (err) {
        const rbac = err instanceof KubeError && err.code === 403 ? ' (the controller needs get and patch on it, by name)' : '';
        throw new Error(`cannot inject the webhook's CA into CRD ${name}${rbac}: ${(err as Error).message}`);
      }
      this.log.info('injected the webhook CA bundle', { crd: name, cas: splitPem(caBundle).length, ...(this.url ? { url: this.url } : {}) });
    }
  }

  /** Whether every CRD's caBundle holds this CA (PEM) already. */
  async trusts(caPem: string): Promise<boolean> {
    const wanted = normalize(caPem);
    for (const name of this.crdNames) {
      const live = await this.rest.request<LiveCrd | undefined>('GET', `${CRDS}/${encodeURIComponent(name)}`, { notFoundAsUndefined: true });
      if (!live) continue; // No CRD: nothing to convert for.
      const bundle = Buffer.from(live.spec?.conversion?.webhook?.clientConfig?.caBundle ?? '', 'base64').toString('utf8');
      if (!splitPem(bundle).some((pem) => normalize(pem) === wanted)) return false;
    }
    return true;
  }
}

/** A PEM without its whitespace, to compare two. */
export function normalize(pem: string): string {
  return pem.replace(/\s+/g, '');
}
