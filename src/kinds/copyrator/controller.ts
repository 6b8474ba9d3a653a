import { CacheReader, CustomResource, KindController, ObservationError, Query } from '../../core/kind';
import { optionValue, OptionSpec } from '../../core/options';
import { optedIn, SECRET_COPY } from '../../core/secret-copy';
import { CopyratorSpec, CopyratorStatus } from './api';
import { isCopyable, SourceObject } from './sources';
import { sourceNamespaces, targetNamespaces } from './namespaces';

/** What the controller found in the cluster for one rule: the sources to copy and where to. */
export interface CopyratorObservation {
  readonly sources: readonly SourceObject[];
  readonly targets: readonly string[];
}

type Rule = CustomResource<CopyratorSpec>;

const NAMESPACES = { apiGroup: '', resource: 'namespaces' };
const collectionOf = (rule: Rule) => ({ apiGroup: '', resource: rule.spec.ruleType === 'secret' ? 'secrets' : 'configmaps' });

/** One label-selected watch per source namespace, shared by every rule with the same selector there. */
function sourceQueries(rule: Rule): Query[] {
  return sourceNamespaces(rule.spec, rule.metadata.namespace!).map((namespace) => ({ namespace, labels: rule.spec.selector }));
}

/** Sources and targets, from the engine's caches: no LIST per reconcile, however many rules and namespaces. */
function observe(caches: CacheReader, rule: Rule): CopyratorObservation {
  const sources = sourceQueries(rule).flatMap((query) => caches.list(collectionOf(rule), query) as unknown as SourceObject[]);
  const namespaces = caches.list(NAMESPACES).map((ns) => ({ name: ns.metadata.name, labels: ns.metadata.labels, phase: (ns.status as { phase?: string } | undefined)?.phase }));
  return { sources: sources.filter(isCopyable), targets: targetNamespaces(rule.spec, rule.metadata.namespace!, namespaces) };
}

const RULE_NAME = {
  name: 'rule-name',
  type: 'string',
  description: 'Serve only the CopyratorRules of this name (the original operator\u2019s RULE_NAME); every rule by default.',
} as const satisfies OptionSpec;

export const copyratorController: KindController<CopyratorSpec, CopyratorStatus, CopyratorObservation> = {
  options: [RULE_NAME],
  serves: (rule, options) => {
    const only = optionValue(options, RULE_NAME);
    return !only || rule.metadata.name === only;
  },
  watches: [
    // Any namespace change may add or remove targets of every rule: namespaces are few, watch them whole.
    NAMESPACES,
    { apiGroup: '', resource: 'configmaps', queries: (rule) => (rule.spec.ruleType === 'configmap' ? sourceQueries(rule) : []) },
    { apiGroup: '', resource: 'secrets', optIn: SECRET_COPY.optIn, queries: (rule) => (rule.spec.ruleType === 'secret' ? sourceQueries(rule) : []) },
  ],
  observer:
    ({ options, caches }) =>
    async (rule) => {
      if (rule.spec.ruleType === 'secret' && !optedIn(SECRET_COPY.optIn, options)) {
        const message = `this install does not copy Secrets: install with Secret copying enabled (RBAC) and run the controller with --${SECRET_COPY.controllerOption}`;
        throw new ObservationError('SecretCopyingDisabled', message, false);
      }
      return observe(caches, rule);
    },
  status: (_rule, _observation, outcome) => ({ copies: outcome.served.length, conflicts: outcome.conflicts.slice(0, 100) }),
  // Only a reinstall with Secret copying enabled helps.
  failureReasons: ['SecretCopyingDisabled'],
  readyReason: 'Copied',
};
