import { CustomResource } from '../../engine/kind';
import { CopyratorSpec } from './api';
import type { CopyratorObservation } from './controller';
import { sourceNamespaces, targetNamespaces } from './namespaces';
import { SourceObject } from './sources';

/** The namespace the sample copies into when the rule names none (in a cluster: every namespace that accepts copies). */
const SAMPLE_TARGET = 'other-team';

/**
 * What the controller might find for a rule, for synth's previews: one object carrying the
 * rule's selector in each namespace it copies from, and a namespace that accepts the copies.
 * A sampled Secret holds no data: previews are committed, and no value, not even a made-up
 * one, belongs in them.
 */
export function sampleCopies(rule: CustomResource<CopyratorSpec>): CopyratorObservation {
  const ruleNamespace = rule.metadata.namespace ?? 'default';
  const kind = rule.spec.ruleType === 'secret' ? 'Secret' : 'ConfigMap';
  const sources: SourceObject[] = sourceNamespaces(rule.spec, ruleNamespace).map((namespace) => ({
    apiVersion: 'v1',
    kind,
    // Named after its namespace: two sources of one name would be one copy in a target.
    metadata: { name: `sample-${kind.toLowerCase()}-from-${namespace}`, namespace, labels: { ...rule.spec.selector } },
    ...(kind === 'Secret' ? { type: 'Opaque' } : { data: { greeting: 'sample value' } }),
  }));
  // Labelled as namespaceSelector wants; targetNamespaces, excludeNamespaces and the sources narrow them as in a cluster.
  const namespaces = (rule.spec.targetNamespaces ?? [SAMPLE_TARGET]).map((name) => ({ name, labels: rule.spec.namespaceSelector }));
  return { sources, targets: targetNamespaces(rule.spec, ruleNamespace, namespaces), refused: [] };
}
