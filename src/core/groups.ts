import { AnyKind } from './contract/kind';

/**
 * A kind's API identities: its main group, and each of its `extraGroups` as the same definition
 * under that group. The engine, the bundle and the readers of YAML handle an identity as they
 * handle a kind: its CRD, RBAC, health check, owner references, Events and child labels follow
 * from its group, so the main group's stay exactly as they were.
 */

/** `<plural>.<group>`: the CRD's name, and how options name one identity of a kind. */
export function crdName(kind: Pick<AnyKind, 'plural' | 'group'>): string {
  return `${kind.plural}.${kind.group}`;
}

const extraIdentities = new WeakMap<AnyKind, Map<string, AnyKind>>();
const mainIdentities = new WeakMap<AnyKind, AnyKind>();

/** The kind in one of its extra groups; the same object on every call, so identities compare with `===`. */
function inExtraGroup(kind: AnyKind, group: string): AnyKind {
  const byGroup = extraIdentities.get(kind) ?? new Map<string, AnyKind>();
  extraIdentities.set(kind, byGroup);
  let identity = byGroup.get(group);
  if (!identity) {
    // No short names: a short name two groups share means one of them to kubectl (the group its
    // discovery lists first, alphabetically among CRDs), which would silently move `kubectl get
    // <short name>` away from the main group. Plural and singular are the same as the main group's.
    identity = { ...kind, group, extraGroups: [], shortNames: [] };
    byGroup.set(group, identity);
    mainIdentities.set(identity, kind);
  }
  return identity;
}

/**
 * Every identity the kind is served under, the main group first, leaving out the extra groups
 * `without` names by CRD name (`widgets.example.com`). A definition whose extra groups repeat
 * a group is a programming error, refused here.
 */
export function servedIdentities(kind: AnyKind, without: readonly string[] = []): AnyKind[] {
  const groups = kind.extraGroups ?? [];
  const repeated = groups.find((group, i) => group === kind.group || groups.indexOf(group) !== i);
  if (repeated) throw new Error(`${kind.kind}: extraGroups names the group "${repeated}" twice (the main group is ${kind.group})`);
  return [kind, ...groups.map((group) => inExtraGroup(kind, group)).filter((identity) => !without.includes(crdName(identity)))];
}

/** The identities of every kind, in order. */
export function allIdentities(kinds: readonly AnyKind[], without: readonly string[] = []): AnyKind[] {
  return kinds.flatMap((kind) => servedIdentities(kind, without));
}

/** Whether the identity is one of a kind's extra groups (not its main one). */
export function isExtraIdentity(kind: AnyKind): boolean {
  return mainIdentities.has(kind);
}

/** The kind in its main group, for an identity of any of its groups. */
export function mainIdentity(kind: AnyKind): AnyKind {
  return mainIdentities.get(kind) ?? kind;
}

/** The CRD names of every extra group of the kinds: what an install may leave out. */
export function extraGroupNames(kinds: readonly AnyKind[]): string[] {
  return allIdentities(kinds).filter(isExtraIdentity).map(crdName);
}

/**
 * Checks a list of identities to leave out, as an option gave it (`what` names the option):
 * each must be an extra group's CRD name; a kind's main group cannot be left out.
 */
export function checkWithoutExtraGroups(kinds: readonly AnyKind[], without: readonly string[], what: string): void {
  const known = extraGroupNames(kinds);
  const unknown = without.filter((name) => !known.includes(name));
  if (!unknown.length) return;
  const main = unknown.filter((name) => kinds.some((kind) => crdName(kind) === name));
  const why = main.length ? `${main.join(', ')} ${main.length > 1 ? 'are main groups' : 'is a main group'}, which cannot be left out (--kinds leaves out a whole kind); ` : '';
  throw new Error(`${what}: ${why}unknown extra group(s) ${unknown.join(', ')}; expected some of ${known.join(', ') || '(none: no kind has extra groups)'}`);
}
