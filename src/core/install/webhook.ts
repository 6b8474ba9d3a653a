/** The conversion webhook's names and CRDs, which the runtime (src/runtime/conversion/) and the install (src/bundle) agree on. */
import { crdName, servedIdentities } from '../groups';
import { AnyKind } from '../contract/kind';
import { hasVersions } from '../contract/versions';

/** The Service in front of the controllers' webhook port; the serving certificate names it. */
export const WEBHOOK_SERVICE = 'controller-webhook';
/** The DNS names of the webhook's Service, which its serving certificate holds (whoever makes it). */
export function serviceDnsNames(serviceName: string, namespace: string): string[] {
  return [`${serviceName}.${namespace}.svc`, `${serviceName}.${namespace}.svc.cluster.local`];
}
/** The container port of the HTTPS server (443 on the Service). */
export const WEBHOOK_PORT = 9443;
/** Where the API server posts ConversionReviews. */
export const WEBHOOK_PATH = '/convert';
/** Where the API server posts the AdmissionReviews of kinds with a `validate` hook, on the same server. */
export const VALIDATE_PATH = '/validate';

/** The CRD names the webhook converts for: every served identity of every kind with versions (the bundle's RBAC names them too). */
export function versionedCrdNames(kinds: readonly AnyKind[], withoutExtraGroups: readonly string[] = []): string[] {
  return kinds.filter(hasVersions).flatMap((kind) => servedIdentities(kind, withoutExtraGroups).map(crdName));
}

/** The kinds whose objects the webhook validates at admission: those with a `validate` hook. */
export function validatedKinds(kinds: readonly AnyKind[]): AnyKind[] {
  return kinds.filter((kind) => kind.validate !== undefined);
}

/** Whether the controller serves the webhook at all: some kind converts or validates through it. */
export function needsWebhook(kinds: readonly AnyKind[]): boolean {
  return kinds.some((kind) => hasVersions(kind) || kind.validate !== undefined);
}

/**
 * Who makes the webhook's certificates: `self`, the controller's own CA (no cert-manager
 * needed), or `cert-manager`, whose Certificate writes the serving certificate into a Secret
 * and whose cainjector fills the CRDs' caBundle. Synth's --webhook-certificates, the Helm value
 * webhookCertificates and the controller's --webhook-certificates all take these.
 */
export const WEBHOOK_CERTIFICATES = ['self', 'cert-manager'] as const;
export type WebhookCertificates = (typeof WEBHOOK_CERTIFICATES)[number];

/** cainjector copies the CA of the Certificate's Secret named here (`<namespace>/<name>`) into the annotated CRD's caBundle; the names are the operator's (OperatorNames.certManager). */
export const INJECT_CA_ANNOTATION = 'cert-manager.io/inject-ca-from';
