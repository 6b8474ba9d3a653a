/** The conversion webhook's names and CRDs, which the runtime (src/runtime/conversion/) and the install (src/bundle) agree on. */
import { crdName, servedIdentities } from './groups';
import { AnyKind } from './kind';
import { hasVersions } from './versions';

/** The Secret in the controller's namespace holding the webhook's CA and serving certificate. */
export const WEBHOOK_TLS_SECRET = 'cdk8s-operators-webhook-tls';
/** The Service in front of the controllers' webhook port; the serving certificate names it. */
export const WEBHOOK_SERVICE = 'controller-webhook';
/** The container port of the HTTPS server (443 on the Service). */
export const WEBHOOK_PORT = 9443;
/** Where the API server posts ConversionReviews. */
export const WEBHOOK_PATH = '/convert';
/** The field manager of the injected `caBundle`: its own, so a GitOps apply of the CRD neither owns nor removes it. */
export const CA_INJECTOR = 'cdk8s-operators-ca-injector';

/** The CRD names the webhook converts for: every served identity of every kind with versions (the bundle's RBAC names them too). */
export function versionedCrdNames(kinds: readonly AnyKind[], withoutExtraGroups: readonly string[] = []): string[] {
  return kinds.filter(hasVersions).flatMap((kind) => servedIdentities(kind, withoutExtraGroups).map(crdName));
}
