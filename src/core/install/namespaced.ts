import { AnyKind } from '../contract/kind';

/** The controller's flag saying its RBAC is the namespaced install's: Roles in its --namespace namespaces only. */
export const NAMESPACED_RBAC = 'namespaced-rbac';

/**
 * Why the controller cannot serve this kind in some namespaces only, or undefined when it can
 * (see KindDefinition.servesNamespaces): the namespaced install's Roles would not let it work.
 */
export function whyNotNamespaced(kind: AnyKind): string | undefined {
  if (kind.scope === 'Cluster') return 'it is cluster-scoped';
  if (kind.manages.some((p) => p.namespace)) return 'its children live in a namespace of its own';
  if (!kind.servesNamespaces) return 'it reads or writes beyond its objects\u2019 own namespaces';
  return undefined;
}

/** The kinds that can be served in some namespaces only. */
export const namespacedKinds = (kinds: readonly AnyKind[]): AnyKind[] => kinds.filter((kind) => !whyNotNamespaced(kind));

/** Refuses a kind that cannot be served in some namespaces only, naming it and the option that asked (`flag`); `all` are the kinds one could choose. */
export function checkNamespaced(kinds: readonly AnyKind[], flag: string, all: readonly AnyKind[] = kinds): void {
  const refused = kinds.flatMap((kind) => {
    const why = whyNotNamespaced(kind);
    return why ? [`${kind.kind} (${kind.plural}): ${why}`] : [];
  });
  if (refused.length) {
    throw new Error(`${flag}: these kinds cannot be served in some namespaces only: ${refused.join('; ')}; expected only kinds that can (${namespacedKinds(all).map((k) => k.plural).join(', ') || 'none'}), or a cluster-wide install for the others`);
  }
}

/** A namespace's name: a DNS label. */
const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Refuses a name no namespace can have, naming the option (`flag`) and what a name must be. */
export function checkNamespaceNames(names: readonly string[], flag: string): void {
  const bad = names.filter((name) => !NAMESPACE_NAME.test(name));
  if (bad.length) throw new Error(`${flag}: ${bad.map((b) => JSON.stringify(b)).join(', ')} is no namespace name; expected lower-case letters, digits and "-", at most 63, starting and ending with a letter or digit`);
}
