/**
 * The public face for authoring a kind: the contract, the schema builders and the kit a kind's
 * definition, controller steps, options, monitoring, versions and validation cases use.
 * Light on purpose: a controller loads it at start, so nothing here loads cdk8s, constructs or
 * cdk8s-plus-27 (the constructs' own kit is ./constructs). See docs/building-an-operator.md#the-public-face.
 */

// The contract (src/core/contract/kind.ts): a kind's definition, its constructs loaded at first use, its controller hooks.
export { CHILD_VERBS, constructsOnFirstUse, ObservationError, apiVersionOf } from '../core/contract/kind';
export { validateResource } from '../core/contract/validation';
export type {
  AcceptedBreak,
  AnyKind,
  CacheReader,
  ChildRef,
  ChildState,
  Clock,
  Collection,
  CustomResource,
  InstallContext,
  KindCondition,
  KindConstructs,
  KindController,
  KindDefinition,
  KindEvent,
  KindOption,
  KubeJson,
  ObjectMeta,
  ObservationProblem,
  ObserverContext,
  OwnerReference,
  Permission,
  Query,
  ReadyVerdict,
  ReconcileOutcome,
  RelatedWatch,
  Verb,
  WakeAt,
} from '../core/contract/kind';
export type { ObjectRule, PrinterColumn } from '../core/contract/version-layout';
export type { ValidationResult } from '../core/contract/validation';

// The schema builders: one declaration gives the CRD's schema, the TypeScript type and the controller's validation.
export { s, asList, schemaOf, matchesRule } from '../schema';
export type { Infer, InferInput, Rule, Schema, FieldError } from '../schema';

// The kit: status, options, names and labels, child policies, durations and times, monitoring, versions, opt-ins.
export { commonStatusProperties } from '../core/kit/status';
export type { Condition } from '../core/kit/status';
export { optionValue } from '../core/contract/options';
export type { OptionSpec, OptionValue } from '../core/contract/options';
export { childName, labelValue, withoutEngineLabels, MAX_LABEL_LENGTH, OWNER_KIND_LABEL, OWNER_NAME_LABEL } from '../core/kit/names';
export { ADOPT_EXISTING_ANNOTATION, CREATE_ONLY_ANNOTATION, KEEP_ON_DELETE_ANNOTATION } from '../core/kit/child-policy';
export { parseDuration } from '../core/kit/duration';
export { metaTime } from '../kube/time';
export { matchesLabels } from '../kube/discovery';
export { anyOf, statusListGauge, OBJECT_CONDITION_METRIC } from '../core/contract/monitoring';
export type { AlertRule, KindMetricNames, KindMonitoring, ObjectGauge, Severity } from '../core/contract/monitoring';
export type { KindVersion } from '../core/contract/version-layout';
export { imageRepository } from '../core/contract/rendered-shapes';
export type { HostAccess, RenderedShapes } from '../core/contract/rendered-shapes';
export { optedIn } from '../core/contract/opt-ins';
export type { KindOptIn } from '../core/contract/opt-ins';

// Validation and preview: an object checked as the API server checks it, its children rendered as the controller renders them (cdk8s loads at the first render).
export { previewChildren, renderChildren } from '../core/render';
export type { Manifest } from '../core/render';

// The validation table a kind keeps beside its schema (validation-cases.ts), which the test kit runs.
export type { InvalidCase, ValidationCase, ValidationCases } from '../core/contract/validation-cases';
