/**
 * The install as a Helm chart (loads cdk8s), apart from ./synth so that an app that writes no
 * chart loads none of it. A workload beside the controller comes with its values, modes and
 * notes as a ChartCompanion a kind declares (KindDefinition.companions): the generator names none.
 * See docs/building-an-operator.md#the-public-face.
 */
export { writeHelmChart } from '../gitops/helm/chart';
export type { HelmChartInput } from '../gitops/helm/chart';
export type { OperatorChartBuilder, OperatorVariant } from '../gitops/helm/operator-template';
export { variantBundleProps, variantCompanions } from '../gitops/helm/companion';
export type { ChartCompanion, ChartExpressions } from '../core/contract/companion';
export { HelmExpressions } from '../gitops/helm/expressions';
export { strictSchema } from '../gitops/helm/values';
