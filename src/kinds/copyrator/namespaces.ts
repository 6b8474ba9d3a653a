import { matchesLabels } from '../../engine/kind';
import { CopyratorSpec } from './api';

/** A namespace as the rule sees it. */
export interface NamespaceInfo {
  readonly name: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  readonly phase?: string;
}

/** The namespaces the rule names to copy from: `namespaces`, or the rule's own. */
export function sourceNamespaces(spec: CopyratorSpec, ruleNamespace: string): string[] {
  return [...new Set(spec.namespaces ?? [ruleNamespace])].sort();
}

/**
 * The namespaces the rule would copy into, before consent: every Active namespace but the
 * sources and the kube-* system namespaces, narrowed by targetNamespaces, namespaceSelector
 * and excludeNamespaces.
 */
export function targetNamespaces(spec: CopyratorSpec, ruleNamespace: string, namespaces: readonly NamespaceInfo[]): string[] {
  const sources = new Set(sourceNamespaces(spec, ruleNamespace));
  const wanted = spec.targetNamespaces ? new Set(spec.targetNamespaces) : undefined;
  const excluded = new Set(spec.excludeNamespaces ?? []);
  return namespaces
    .filter((ns) => (ns.phase ?? 'Active') === 'Active')
    .filter((ns) => !sources.has(ns.name) && !ns.name.startsWith('kube-') && !excluded.has(ns.name))
    .filter((ns) => !wanted || wanted.has(ns.name))
    .filter((ns) => matchesLabels(ns.labels, spec.namespaceSelector))
    .map((ns) => ns.name)
    .sort();
}
