import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { FieldError, Schema } from '../../schema';
import type { OptionSpec } from './options';
import type { KindOptIn } from './opt-ins';
import type { ChartCompanion } from './companion';
import type { KindMonitoring } from './monitoring';
import type { RenderedShapes } from './rendered-shapes';
import type { KindVersion, PrinterColumn, VersionLayout } from './version-layout';
import type { CustomResource, KubeJson } from './kube-json';
import type { Clock } from './clock';

export type { CustomResource, KubeJson, ObjectMeta, OwnerReference } from './kube-json';
export type { Clock } from './clock';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** What the controller does to the children it creates: read and watch them, apply them, prune them. */
export const CHILD_VERBS: readonly Verb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

/** Access the controller needs to some resources; the bundle turns these into RBAC rules. */
export interface Permission {
  readonly apiGroup: string;
  readonly resources: readonly string[];
  readonly verbs: readonly Verb[];
  /** Only granted when the install turns on this opt-in, one the kind declares (see KindDefinition.optIns). */
  readonly optIn?: string;
  /** Only in this namespace (a Role, not a ClusterRole); the controller watches only there too. */
  readonly namespace?: string;
}

/**
 * Everything one custom resource kind is: its API identity, its one schema, what it
 * manages, and how it renders its children. The bundle, the render command and the
 * runtime only ever see kinds through this interface.
 */
export interface KindDefinition<Spec = unknown, Status = unknown, Observation = unknown> {
  /** The main API group: the one its examples, previews and the docs use. */
  readonly group: string;
  /**
   * Further API groups the kind is also served under, where an original operator's users wrote
   * another group than the main one: each is its own CRD (`<plural>.<group>`, same version,
   * names, schema, printer columns and category), with its own RBAC, and the controller serves
   * its objects alike (see `servedIdentities` in src/core/groups.ts). On by default, so that
   * old manifests apply unchanged; an install may leave one out. @default none
   */
  readonly extraGroups?: readonly string[];
  /** Its newest version, the hub: the one stored, read by the controller, and described by `spec` and `status`. */
  readonly version: string;
  /**
   * Older versions still served, each with its layout and its conversions to and from the hub
   * (see src/core/contract/versions.ts). The CRD then converts through the controller's webhook. @default none
   */
  readonly olderVersions?: readonly KindVersion[];
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly scope: 'Namespaced' | 'Cluster';
  /**
   * Whether the controller may serve this kind in some namespaces only (--namespace, the
   * namespaced install): its children and every collection it reads live in its objects' own
   * namespaces, so that Roles there are all it needs. A cluster-scoped kind never can.
   * @default false
   */
  readonly servesNamespaces?: boolean;
  /**
   * What the install lets cluster users do through the built-in roles: `edit` aggregates reading
   * into view and writing into edit and admin; `view` aggregates reading only, and writing goes
   * into a ClusterRole of its own (`<operator>:<plural>:edit`) that an administrator binds
   * to whom they choose, for a kind whose objects act beyond any namespace (e.g. on every node).
   * @default 'edit'
   */
  readonly userAccess?: 'edit' | 'view';
  /** What the kind is for; the CRD's top-level description. */
  readonly description: string;
  /** Its spec's schema (the type a manifest may write is the schema's input type: see declareResource). */
  readonly spec: Schema<Spec, unknown>;
  readonly status: Schema<Status, unknown>;
  /** Fields beside `spec` at the top level of the object, for legacy layouts. */
  readonly legacyTopLevel?: VersionLayout['legacyTopLevel'];
  /** CEL rules over the whole object (used with legacyTopLevel); `field` is the top-level field the error names. */
  readonly objectRules?: VersionLayout['objectRules'];
  /** Where the spec of a raw object is, before validation; defaults to `object.spec` at path `spec`. */
  readonly specOf?: VersionLayout['specOf'];
  readonly printerColumns: readonly PrinterColumn[];
  /**
   * Breaks of its CRD made on purpose, each let through by synth's CRD compatibility check (the
   * one finding it names) and listed with its reason in dist/CHANGES-crds.md, the release notes of
   * the CRDs (docs/evolving-a-kind.md). @default none
   */
  readonly acceptedBreaks?: readonly AcceptedBreak[];
  /** The child resources it creates and the access it needs to anything else. */
  readonly manages: readonly Permission[];
  /**
   * What it does only where the install turns it on (access no install should grant by default),
   * each with the flags and the Helm value users turn it on with; a permission or watch names one
   * by `optIn`. See KindOptIn. @default none
   */
  readonly optIns?: readonly KindOptIn[];
  /**
   * The workloads the install puts beside the controller for this kind (e.g. a web UI of its
   * objects), each with its Helm values, modes and notes: installed only where the kind (or
   * another kind declaring the same companion) is served, switched by `<key>.enabled` in the
   * chart. A function that requires their modules, called by synth only, so that a controller
   * loading the kind loads none of their constructs; it returns the same objects each call
   * (module constants). See ChartCompanion. @default none
   */
  readonly companions?: () => readonly ChartCompanion[];
  /**
   * What its children may look like (images, ServiceAccounts, host access): the install's
   * admission policy refuses the controller anything no kind declares (see RenderedShapes).
   * @default Pods of no image, no host access
   */
  readonly renders?: RenderedShapes;
  /** The finalizer the controller puts on each object, where children cannot be owned (other namespaces) or need a last step. */
  readonly finalizer?: string;
  /** Objects the kind needs installed once beside the operator (e.g. a namespace for its children). */
  readonly install?: (scope: Construct, context: InstallContext) => void;
  /** Declares one example resource under `scope` (with the typed class `cdk8s import` made from our CRD). */
  readonly example?: (scope: Construct, namespace: string) => ApiObject;
  /** What the controller does for the kind beyond rendering; none means render and apply only. */
  readonly controller?: KindController<Spec, Status, Observation>;
  /** Gauges of its objects and alerts of its own, beside the engine's generic ones (see src/core/contract/monitoring.ts). */
  readonly monitoring?: KindMonitoring;
  /**
   * Checks CEL cannot express (parsing a cron expression, a reference to look up): called with
   * the spec (validated by the schema, in the hub's version) and the whole object, it returns
   * the problems found, each naming its field (`spec.schedule`), or none. The controller's
   * webhook serves it at admission (POST /validate) for creates and for updates that change
   * the spec, after the API server has checked the CRD's schema and CEL rules; the bundle
   * then installs a ValidatingWebhookConfiguration for the kind (failurePolicy Fail). Keep it
   * fast and pure: no API calls, no clock, no secret in a message. @default none
   */
  readonly validate?: (spec: Spec, resource: CustomResource<Spec>) => readonly FieldError[];
  /**
   * Adds the children of one (validated) resource under `scope`. `clock` is the engine's (the
   * real time unless a test sets another): a child that records a time reads it there.
   */
  readonly render: (scope: Construct, resource: CustomResource<Spec>, observation?: Observation, clock?: Clock) => void;
}

/**
 * What a kind's `constructs` module exports: the parts of the kind that build constructs.
 * Its definition loads that module only when one of them is first used (see
 * `constructsOnFirstUse`), so a controller that renders none of the kind's objects never loads
 * cdk8s or cdk8s-plus-27's generated classes, and a kind costs memory only once it is served.
 */
export interface KindConstructs<Spec = unknown, Observation = unknown> {
  readonly render: KindDefinition<Spec, unknown, Observation>['render'];
  readonly example?: KindDefinition['example'];
  readonly install?: KindDefinition['install'];
}

/**
 * The construct entry points of a kind's definition, each loading the kind's constructs module
 * (`load`, a `require` of it) at its first call. `example` and `install` are declared only
 * when the kind has them, which it says here since the module is not loaded to find out.
 */
export function constructsOnFirstUse<Spec, Observation>(
  load: () => KindConstructs<Spec, Observation>,
  has: { readonly example?: boolean; readonly install?: boolean } = {},
): Pick<KindDefinition<Spec, unknown, Observation>, 'render' | 'example' | 'install'> {
  return {
    render: (scope, resource, observation, clock) => load().render(scope, resource, observation, clock),
    ...(has.example ? { example: (scope: Construct, namespace: string) => load().example!(scope, namespace) } : {}),
    ...(has.install ? { install: (scope: Construct, context: InstallContext) => load().install!(scope, context) } : {}),
  };
}

/** An option a kind adds to the controller's flags and environment variables. */
/** An option of the controller that a kind adds (a flag and its variable); see OptionSpec. */
export type KindOption = OptionSpec;

/** What a kind's observer is given once, when the controller starts. */
export interface ObserverContext {
  /** The parsed values of the kind's options (durations in milliseconds). */
  readonly options: Readonly<Record<string, unknown>>;
  /** The engine's caches of the kind's children and related collections: read these, never LIST per reconcile. */
  readonly caches: CacheReader;
  /** What time it is: the real time unless a test sets another; read it rather than `new Date()`. */
  readonly clock: Clock;
}

/**
 * When an object wants to be reconciled again although nothing changed: a time (a Date or
 * milliseconds since the epoch; one past, or 0, means now), or `'never'` (undefined alike):
 * then only a change, or the periodic resync, reconciles it.
 */
export type WakeAt = Date | number | 'never' | undefined;

/** A collection of the API, e.g. `{ apiGroup: '', resource: 'configmaps' }`. */
export interface Collection {
  readonly apiGroup: string;
  readonly resource: string;
}

/** Part of a collection: one namespace (or all) and a label selector (or none). */
export interface Query {
  /** Only this namespace's objects; every namespace when absent. */
  readonly namespace?: string;
  /** Equality selector, e.g. `{ team: 'a' }`. */
  readonly labels?: Readonly<Record<string, string>>;
}

/** Read access to what the engine watches, as cached objects (JSON as the API server sent it). */
export interface CacheReader {
  /** One object of a child or related collection, by `namespace/name` (or `name`). */
  get(collection: Collection, key: string): KubeJson | undefined;
  /** The cached objects of a collection that match the query. */
  list(collection: Collection, query?: Query): KubeJson[];
  /**
   * The owner's own children as the engine's index of children by owner has them: the cached
   * objects of its child collections (`manages`; only `collection`'s when given) whose labels
   * name this owner and that no other object controls (a Job a built-in CronJob made from a
   * template of ours is that CronJob's). No scan of the collection, no filter by hand.
   */
  childrenOf(owner: KubeJson, collection?: Collection): KubeJson[];
}

/**
 * A collection the kind reads but does not own (controller-runtime's `Watches`): the engine
 * keeps it cached, and a change to one of its objects queues the kind's objects that read it.
 */
export interface RelatedWatch<Spec> extends Collection {
  /** Only watched when the install turns on this opt-in, one the kind declares (see KindDefinition.optIns). */
  readonly optIn?: string;
  /**
   * The parts of the collection one resource reads. Each distinct query gets its own
   * label-selected watch, shared by every resource that asks for it, and a change in it
   * queues exactly those resources. Absent: the whole collection is watched once and any
   * change queues every resource of the kind (fit for small collections such as namespaces).
   */
  readonly queries?: (resource: CustomResource<Spec>, options: Readonly<Record<string, unknown>>) => readonly Query[];
  /** Cache only the objects' metadata (which exist, their labels), e.g. Secrets whose values the kind must not hold. */
  readonly metadataOnly?: boolean;
}

/** A child as rendered: its kind, name and namespace. */
export interface ChildRef {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
}

/**
 * An observation that failed in a way the user should read in status, e.g. a provider that is
 * down: the render is skipped and every child left as it is. To report a failure and still
 * render and prune, return it through KindController.problem instead.
 */
export class ObservationError extends Error {
  constructor(
    /** A CamelCase reason for the Ready condition. */
    readonly reason: string,
    message: string,
    /** Whether trying again can help without a change to the object (a provider that is down: yes). */
    readonly retry = true,
  ) {
    super(message);
  }
}

/** How a child stands, by the rules kstatus applies to built-in kinds. */
export interface ChildState {
  /** `Kind namespace/name`, for messages; match on `kind` and `name`, not on this text. */
  readonly child: string;
  /** The child's kind, e.g. `DaemonSet`. */
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly ready: boolean;
  /** Why it is not ready yet, e.g. `1 of 3 replicas ready`. */
  readonly message?: string;
  /** It will not become ready by itself (a failed Job). */
  readonly failed?: boolean;
}

/** What the engine did with the rendered children, for the kind's status and Ready verdict. */
export interface ReconcileOutcome {
  /** Children rendered and served (applied or already matching). */
  readonly served: readonly KubeJson[];
  /** Objects of a rendered child's name that something else manages: left alone (`Kind namespace/name`). */
  readonly conflicts: readonly string[];
  /** The served children's own readiness. */
  readonly children: readonly ChildState[];
}

/** An Event a kind records about one of its objects (events.k8s.io, as `kubectl events` shows it). */
export interface KindEvent {
  readonly type: 'Normal' | 'Warning';
  /** CamelCase, e.g. `Deleting` */
  readonly reason: string;
  readonly message: string;
}

/** The Ready condition a kind wants instead of the engine's own verdict. */
export interface ReadyVerdict {
  readonly status: 'True' | 'False';
  /** CamelCase */
  readonly reason: string;
  readonly message: string;
}

/**
 * A condition of the kind's own beside the engine's Ready (e.g. the kubebuilder tutorial's
 * Available, Progressing, Degraded). The engine adds `lastTransitionTime` (the engine's clock,
 * kept while the status stays) and `observedGeneration`.
 */
export interface KindCondition {
  /** CamelCase, and none of the engine's: Ready, Reconciling, Stalled. */
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  /** CamelCase */
  readonly reason: string;
  readonly message: string;
}

/**
 * A failure the observer reports while the children are still rendered and pruned (see
 * KindController.problem): an invalid schedule, a provider that is down for part of the data.
 */
export interface ObservationProblem {
  /** A CamelCase reason for the Ready condition; list it in `failureReasons` when only a person can fix it. */
  readonly reason: string;
  readonly message: string;
  /** Whether trying again (with backoff) can help without a change to the object, e.g. a provider that is down. @default false */
  readonly retry?: boolean;
}

/** The kind-specific steps of a reconcile; everything else is the generic runtime's. */
export interface KindController<Spec, Status, Observation> {
  readonly options?: readonly KindOption[];
  /** Creates, once, the function that looks at the world for one resource before rendering. */
  readonly observer?: (context: ObserverContext) => (resource: CustomResource<Spec, Status>) => Promise<Observation>;
  /**
   * What the observer might see for the resource, for synth's previews (dist/preview/), which
   * render without a cluster: with it, a reviewer sees the children an observation brings (the
   * Jobs of a schedule, a fetched rate) and `npm run lint:manifests` checks them. A kind with an
   * observer and none gets its previews rendered without an observation, and synth says so.
   * Plain data, no I/O, no clock.
   */
  readonly sampleObservation?: (resource: CustomResource<Spec, Status>) => Observation;
  /** Collections the kind reads but does not own; its observer reads them from `ObserverContext.caches`. */
  readonly watches?: readonly RelatedWatch<Spec>[];
  /** Refuses, as the controller starts, option values it cannot run with: throws an Error naming the flag and what is expected. */
  readonly checkOptions?: (options: Readonly<Record<string, unknown>>) => void;
  /** Whether this controller serves the resource at all (e.g. an option naming one rule); all by default. */
  readonly serves?: (resource: CustomResource<Spec, Status>, options: Readonly<Record<string, unknown>>) => boolean;
  /**
   * How status, Events and the Ready message name a rendered child left alone as a conflict,
   * where the resource's users may not see every namespace its children live in (e.g. name it
   * without its namespace); default `Kind namespace/name`.
   */
  readonly describeConflict?: (resource: CustomResource<Spec, Status>, child: ChildRef, options: Readonly<Record<string, unknown>>) => string;
  /**
   * The kind's own status fields, beside conditions and observedGeneration, all of them on every
   * reconcile: a field written before and left out now is removed (inside objects and maps too),
   * so an empty list may simply be left out. Not asked when the spec is invalid or an
   * ObservationError is thrown: the fields then stay as they were.
   */
  readonly status?: (resource: CustomResource<Spec, Status>, observation: Observation | undefined, outcome: ReconcileOutcome) => Partial<Status>;
  /**
   * Conditions of the kind's own, beside the engine's Ready (and Reconciling or Stalled), asked
   * where `status` is. Return each type the kind uses on every reconcile (False or Unknown when
   * it does not hold): a type no longer returned is left as it was. See KindCondition.
   */
  readonly conditions?: (resource: CustomResource<Spec, Status>, observation: Observation | undefined, outcome: ReconcileOutcome, clock: Clock) => readonly KindCondition[];
  /**
   * The condition types `conditions` returns (e.g. Available, Progressing, Degraded). Declared,
   * the engine refuses any other, naming the kind and the type, and the health test checks that
   * Argo CD and kstatus still read Ready beside each. Not declared: any type but the engine's.
   */
  readonly conditionTypes?: readonly string[];
  /**
   * A failure the observation found that must not freeze the children (an invalid schedule
   * while the history limits still hold): the engine still renders, writes and prunes them,
   * then shows Ready=False with this reason and message (before the kind's `ready`; a conflict
   * still comes first). Undefined: no problem. Throwing ObservationError instead skips the render
   * and leaves every child as it is, as before.
   */
  readonly problem?: (resource: CustomResource<Spec, Status>, observation: Observation | undefined) => ObservationProblem | undefined;
  /**
   * The Ready condition, where the kind knows more than its children's readiness (e.g. a
   * phase); undefined keeps the engine's verdict (children not ready, then Ready). Not asked
   * while the outcome holds a conflict: the engine reports that first, for every kind.
   */
  readonly ready?: (resource: CustomResource<Spec, Status>, observation: Observation | undefined, outcome: ReconcileOutcome) => ReadyVerdict | undefined;
  /**
   * A last step before the finalizer is released. Without it, deleting removes every child
   * and releases at once. With it, the resource keeps being observed and rendered while it is
   * deleted (`metadata.deletionTimestamp` tells the render), and the finalizer goes only when
   * this returns true; otherwise it returns what it waits for, which status shows.
   */
  readonly mayRelease?: (resource: CustomResource<Spec, Status>, observation: Observation | undefined, outcome: ReconcileOutcome) => true | string;
  /**
   * Which rendered children must outlive the start of the object's deletion, for the last step
   * `mayRelease` waits for (e.g. a server, its credentials and the Job that dumps it). They get
   * no ownerReference, so no propagation policy lets the garbage collector take them before
   * `mayRelease` says so: a foreground deletion (`kubectl delete --cascade=foreground`, Argo CD's
   * prune) deletes every owned child at once, the finalizer notwithstanding. The engine removes
   * them by their labels when it releases the finalizer, as every child. Every other child keeps
   * its ownerReference (Argo CD's resource tree and `kubectl tree` follow them). Needs `finalizer`
   * and `mayRelease`.
   */
  readonly keptUntilRelease?: (child: KubeJson) => boolean;
  /**
   * The kind's own Ready=False reasons that mean it fails and will not get well without a
   * change by a person (to the object or outside the cluster), e.g. a refused downgrade or a
   * provider that is down. The engine's own (InvalidSpec, Conflict, ...) are always included.
   * Every other Ready=False reason means work in progress. Status carries the verdict as
   * Stalled or Reconciling, and Argo CD's health check shows Degraded or Progressing.
   */
  readonly failureReasons?: readonly string[];
  /**
   * The kind's own Ready=False reasons that mean work in progress (e.g. replicas not ready
   * yet), beside the engine's (ChildNotReady, Finalizing). The engine takes every reason that
   * is not a failure for progress anyway; declaring them lets the tests check that each reason
   * the kind's code writes is classed as one or the other.
   */
  readonly progressReasons?: readonly string[];
  /**
   * Events of the kind's own about the resource, beside the engine's (Ready changes, rewritten
   * children), e.g. that a deletion began. Asked on every reconcile; each distinct event (type,
   * reason, message) is recorded once per object, so return the same one as long as it holds.
   * `outcome` is undefined when a deleted object is released without rendering (a kind with a
   * finalizer and no `mayRelease`).
   */
  readonly events?: (resource: CustomResource<Spec, Status>, observation: Observation | undefined, outcome: ReconcileOutcome | undefined) => readonly KindEvent[];
  /** The Ready condition's reason when all is well. @default Reconciled */
  readonly readyReason?: string;
  /**
   * When to reconcile the object again although nothing changed, for children that follow the
   * time (a run at its scheduled time, a rate to refresh): asked after each reconcile that
   * rendered, with the object (spec and status as read), the observation and the engine's clock.
   * The engine wakes the object then, however long after `--resync-period` that is (the resync
   * still comes as a safety net, and asks again); a time past, or 0, means at once; `'never'`
   * or undefined schedules nothing. See WakeAt.
   */
  readonly wakeAt?: (resource: CustomResource<Spec, Status>, observation: Observation | undefined, clock: Clock) => WakeAt;
  /**
   * The older form of `wakeAt`, for kinds written against it: reconcile again after this many
   * milliseconds, at the latest at the next resync; 0 means at once. Ignored when `wakeAt` is given.
   */
  readonly requeueAfterMs?: (spec: Spec, observation: Observation | undefined) => number;
}

/** A break of a kind's CRD declared on purpose: the finding of synth's CRD check it accepts, and why. */
export interface AcceptedBreak {
  /** The CRD version, as the finding names it ('*' for the scope). */
  readonly version: string;
  /** The field path, as the finding names it ('' for a whole version). */
  readonly path: string;
  /** The rule, as the finding names it, e.g. `enum`. */
  readonly rule: string;
  /** Why users can live with it, for the release notes. */
  readonly reason: string;
}

/** What the operator bundle tells a kind about the install. */
export interface InstallContext {
  /** The namespace the controller runs in. */
  readonly operatorNamespace: string;
}

/** Any kind, for code that handles every kind alike (the bundle, the render command, the runtime). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyKind = KindDefinition<any, any, any>;

/** `<group>/<version>` */
export function apiVersionOf(kind: AnyKind): string {
  return `${kind.group}/${kind.version}`;
}
