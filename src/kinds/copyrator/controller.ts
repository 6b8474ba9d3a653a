import { CacheReader, CustomResource, KindController, ObservationError, optedIn, OptionSpec, optionValue, Query } from '../../engine/kind';
import { SECRET_COPYING } from './secret-copying';
import { CopyratorSpec, CopyratorStatus } from './api';
import { ACCEPT_FROM_ANNOTATION, ALLOWED_NAMESPACES_ANNOTATION, isSealed, mayCopy, mayWriteInto, namedIn, Reach, TRUSTED_NAMESPACES } from './consent';
import { isCopyable, SourceObject } from './sources';
import { NamespaceInfo, sourceNamespaces, targetNamespaces } from './namespaces';
import { sampleCopies } from './sample';

/** What the controller found in the cluster for one rule: the sources to copy and where to. */
export interface CopyratorObservation {
  readonly sources: readonly SourceObject[];
  readonly targets: readonly string[];
  /** Why some of what the rule names is not copied, each naming the field (for Ready); none when all is allowed. */
  readonly refused: readonly string[];
}

type Rule = CustomResource<CopyratorSpec>;
type Options = Readonly<Record<string, unknown>>;

const NAMESPACES = { apiGroup: '', resource: 'namespaces' };
const collectionOf = (rule: Rule) => ({ apiGroup: '', resource: rule.spec.ruleType === 'secret' ? 'secrets' : 'configmaps' });

/** The controller's own namespace, as the engine's option names it. */
const OPERATOR_NAMESPACE = 'leader-election-namespace';

function reachOf(rule: Rule, options: Options): Reach {
  const ruleNamespace = rule.metadata.namespace!;
  return { ruleNamespace, trusted: namedIn(optionValue(options, TRUSTED_NAMESPACES), ruleNamespace), operatorNamespace: String(options[OPERATOR_NAMESPACE] ?? 'cdk8s-operators') };
}

/** One label-selected watch per source namespace the rule may read, shared by every rule with the same selector there. */
function sourceQueries(rule: Rule, options: Options): Query[] {
  const reach = reachOf(rule, options);
  return sourceNamespaces(rule.spec, reach.ruleNamespace)
    .filter((namespace) => !isSealed(reach, namespace))
    .map((namespace) => ({ namespace, labels: rule.spec.selector }));
}

/** Sources and targets, from the engine's caches: no LIST per reconcile, however many rules and namespaces. */
function observe(caches: CacheReader, rule: Rule, options: Options): CopyratorObservation {
  const reach = reachOf(rule, options);
  const named = sourceNamespaces(rule.spec, reach.ruleNamespace);
  const matching = sourceQueries(rule, options).flatMap((query) => caches.list(collectionOf(rule), query) as unknown as SourceObject[]);
  const sources = matching.filter(isCopyable).filter((source) => mayCopy(reach, source));
  const namespaces: NamespaceInfo[] = caches
    .list(NAMESPACES)
    .map((ns) => ({ name: ns.metadata.name, labels: ns.metadata.labels, annotations: ns.metadata.annotations, phase: (ns.status as { phase?: string } | undefined)?.phase }));
  const byName = new Map(namespaces.map((ns) => [ns.name, ns]));
  const writable = (name: string) => mayWriteInto(reach, byName.get(name) ?? { name });
  const targets = targetNamespaces(rule.spec, reach.ruleNamespace, namespaces).filter(writable);

  // Said the same whether a namespace or object exists or not: status tells the rule's users nothing they may not see.
  const kind = rule.spec.ruleType === 'secret' ? 'Secret' : 'ConfigMap';
  const refused = [
    ...named.filter((ns) => isSealed(reach, ns)).map((ns) => `spec.namespaces: ${ns} is never copied from (a kube-* namespace or the operator\u2019s own)`),
    ...named
      .filter((ns) => ns !== reach.ruleNamespace && !isSealed(reach, ns) && !reach.trusted && !sources.some((s) => s.metadata.namespace === ns))
      .map((ns) => `spec.namespaces: nothing in ${ns} is copied: a ${kind} there is copied only when its owner annotates it ${ALLOWED_NAMESPACES_ANNOTATION} naming ${reach.ruleNamespace}`),
    ...(rule.spec.targetNamespaces ?? [])
      .filter((ns) => !named.includes(ns) && !ns.startsWith('kube-') && !writable(ns))
      .map((ns) => `spec.targetNamespaces: ${ns} does not accept copies from ${reach.ruleNamespace}: its administrator may annotate the Namespace ${ACCEPT_FROM_ANNOTATION} naming it`),
  ];
  return { sources, targets, refused };
}

const RULE_NAME = {
  name: 'rule-name',
  type: 'string',
  description: 'Serve only the CopyratorRules of this name (the original operator\u2019s RULE_NAME); every rule by default.',
} as const satisfies OptionSpec;

export const copyratorController: KindController<CopyratorSpec, CopyratorStatus, CopyratorObservation> = {
  options: [RULE_NAME, TRUSTED_NAMESPACES],
  serves: (rule, options) => {
    const only = optionValue(options, RULE_NAME);
    return !only || rule.metadata.name === only;
  },
  watches: [
    // Any namespace change may add or remove targets of every rule: namespaces are few, watch them whole.
    NAMESPACES,
    { apiGroup: '', resource: 'configmaps', queries: (rule, options) => (rule.spec.ruleType === 'configmap' ? sourceQueries(rule, options) : []) },
    { apiGroup: '', resource: 'secrets', optIn: SECRET_COPYING.name, queries: (rule, options) => (rule.spec.ruleType === 'secret' ? sourceQueries(rule, options) : []) },
  ],
  observer:
    ({ options, caches }) =>
    async (rule) => {
      if (rule.spec.ruleType === 'secret' && !optedIn(SECRET_COPYING, options)) {
        const message = `this install does not copy Secrets: install with Secret copying enabled (RBAC) and run the controller with --${SECRET_COPYING.controllerOption}`;
        throw new ObservationError('SecretCopyingDisabled', message, false);
      }
      return observe(caches, rule, options);
    },
  sampleObservation: sampleCopies,
  // A copy's namespace is named only to the rules that may see it: their own, or every one when trusted.
  describeConflict: (rule, child, options) => {
    const reach = reachOf(rule, options);
    const { name, namespace } = child.metadata;
    return reach.trusted || namespace === reach.ruleNamespace ? `${child.kind} ${namespace}/${name}` : `${child.kind} ${name} in another namespace`;
  },
  status: (_rule, _observation, outcome) => ({ copies: outcome.served.length, conflicts: outcome.conflicts.slice(0, 100) }),
  // What the rule copies is served; what it may not copy is said, until its owner or the administrator allows it.
  ready: (_rule, observation) => (observation?.refused.length ? { status: 'False', reason: 'NotAllowed', message: observation.refused.join('; ') } : undefined),
  // Only a reinstall with Secret copying enabled helps; only an owner's consent or the administrator's trust does.
  failureReasons: ['SecretCopyingDisabled', 'NotAllowed'],
  readyReason: 'Copied',
};
