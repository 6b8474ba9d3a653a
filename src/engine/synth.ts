/**
 * The public face for synthesizing an install (loads cdk8s): the CRDs, the operator's bundle
 * (RBAC, Deployment, the admission policy that fences it, companions), the declared resources and
 * their previews, Argo CD's health checks, monitoring, the Helm chart and the CRDs' compatibility
 * guard. See docs/building-an-operator.md#the-public-face.
 */

// The CRDs and the operator's bundle.
export { CustomResourceDefinitions } from '../bundle/crd';
export type { CustomResourceDefinitionsProps, WebhookClientConfig } from '../bundle/crd';
export { OperatorBundle } from '../bundle/operator';
export type { Companion, OperatorBundleProps } from '../bundle/operator';
export { ControllerPolicy } from '../bundle/controller-policy';
export { webhookServiceConfig } from '../bundle/deployment';
export { injectCaFrom } from '../bundle/cert-manager';
export { WEBHOOK_CERTIFICATES } from '../core/install/webhook';
export type { WebhookCertificates } from '../core/install/webhook';
export { controllerImage, IMAGE_DIGEST_PATTERN } from '../bundle/version';
export { projectVersion } from '../core/install/version';
export { installOptions } from '../core/contract/options';
export { optInSynthOptions, optInsTurnedOn } from '../core/contract/opt-ins';
export { checkNamespaceNames, namespacedKinds } from '../core/install/namespaced';
export { checkWithoutExtraGroups, crdName, isExtraIdentity } from '../core/groups';
export { convertObject } from '../core/contract/versions';

// The team's resources (src/instances/), checked as the controller checks them, and their previews.
export { checkDeclared, instanceName, loadInstances, scratchChart } from '../gitops/instances';
export type { BuiltInObject, Instance } from '../gitops/instances';
export { BUILT_IN_KINDS } from '../gitops/yaml-documents';
export { previewNotes, sampledHeader } from '../gitops/preview-notes';

// Argo CD, monitoring, Helm, and the CRDs' compatibility with the ones users run.
export { argoCdHealthPatch } from '../gitops/argocd-health';
export { MONITORING_DIR, monitoringFiles, monitoringObjects } from '../monitoring/manifests';
export { DEFAULT_CRD_BASELINE } from '../bundle/crd-compat/baseline';
export { guardCrds } from '../bundle/crd-compat/guard';
export { crdChangesMarkdown } from '../bundle/crd-compat/accepted-breaks';
