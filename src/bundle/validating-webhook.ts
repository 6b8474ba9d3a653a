import { ApiObjectProps } from 'cdk8s';
import { crdName, servedIdentities } from '../core/groups';
import { AnyKind } from '../core/contract/kind';
import { OperatorNames } from '../core/install/identity';
import { servedVersionNames } from '../core/contract/versions';
import { validatedKinds } from '../core/install/webhook';
import type { WebhookClientConfig } from './crd';

/** The seconds the API server waits for a verdict: a hook is pure and fast, so well under its 30 s. */
export const VALIDATION_TIMEOUT_SECONDS = 10;

/**
 * The ValidatingWebhookConfiguration of the kinds with a `validate` hook: one webhook per served
 * identity (main and extra groups), for creates and updates of the objects themselves (not their
 * status), every served version seen as the hub's (matchPolicy Equivalent), refused when the
 * controller cannot answer (failurePolicy Fail: an unchecked object would be worse than a late
 * one). The API server runs it after the CRD's schema and CEL rules. None when no kind has a hook.
 */
export function validatingWebhookManifest(
  kinds: readonly AnyKind[],
  clientConfig: WebhookClientConfig,
  options: { readonly names: OperatorNames; readonly withoutExtraGroups?: readonly string[]; readonly annotations?: Record<string, string> },
): (ApiObjectProps & { metadata: { name: string } }) | undefined {
  const identities = validatedKinds(kinds).flatMap((kind) => servedIdentities(kind, options.withoutExtraGroups));
  if (!identities.length) return undefined;
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: options.names.validatingWebhook, labels: { 'app.kubernetes.io/part-of': options.names.partOf }, ...(options.annotations ? { annotations: { ...options.annotations } } : {}) },
    webhooks: identities.map((identity) => ({
      name: `validate.${crdName(identity)}`,
      clientConfig,
      rules: [{ apiGroups: [identity.group], apiVersions: servedVersionNames(identity), operations: ['CREATE', 'UPDATE'], resources: [identity.plural], scope: identity.scope }],
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      timeoutSeconds: VALIDATION_TIMEOUT_SECONDS,
    })),
  };
}
