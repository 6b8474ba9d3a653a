import { createHash } from 'node:crypto';
import { ENGINE_DOMAIN, ENGINE_NAME } from '../install/identity';
import { AnyKind, CustomResource } from '../contract/kind';

/**
 * The managed-by and part-of values of every child: the engine's, in every operator built on it
 * (a child is told apart by its owner's labels; the field manager names the operator).
 */
export const CHILD_MANAGER = ENGINE_NAME;

/** Labels every child carries, so the controller can find, watch and prune what it manages. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const PART_OF_LABEL = 'app.kubernetes.io/part-of';
/**
 * `<plural>.<group>` of the owner, in the group the owner is in (see src/core/groups.ts), e.g.
 * `widgets.example.com`: children of same-named owners in two groups of
 * a kind are told apart, and a main group's children keep the label they always had.
 */
export const OWNER_KIND_LABEL = `${ENGINE_DOMAIN}/owner-kind`;
export const OWNER_NAME_LABEL = `${ENGINE_DOMAIN}/owner-name`;
export const OWNER_NAMESPACE_LABEL = `${ENGINE_DOMAIN}/owner-namespace`;

/** DNS-1123 label length: Service names, label values. */
export const MAX_LABEL_LENGTH = 63;
/** DNS-1123 subdomain length: most object names. */
export const MAX_NAME_LENGTH = 253;

/**
 * A readable name derived from an owner's name: `<prefix><owner><suffix>`, exactly, when
 * it fits in `maxLength`. Only when it does not is the owner part shortened and made unique
 * again with 8 hex digits of a hash of the full name, since a plain cut could collide.
 */
export function childName(owner: string, options: { prefix?: string; suffix?: string; maxLength?: number } = {}): string {
  const { prefix = '', suffix = '', maxLength = MAX_NAME_LENGTH } = options;
  const full = `${prefix}${owner}${suffix}`;
  if (full.length <= maxLength) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 8);
  const room = maxLength - prefix.length - suffix.length - hash.length - 1;
  if (room < 1) throw new Error(`cannot derive a name of at most ${maxLength} characters from prefix "${prefix}" and suffix "${suffix}"`);
  const shortened = owner.slice(0, room).replace(/[-.]+$/, '');
  return `${prefix}${shortened}-${hash}${suffix}`;
}

/** A label value (at most 63 characters, alphanumeric at both ends) that stands for `text`. */
export function labelValue(text: string): string {
  return childName(text, { maxLength: MAX_LABEL_LENGTH });
}

/** The prefix of every label the engine sets (ownership, sharding): no construct or copied object sets one. */
export const ENGINE_LABEL_PREFIX = `${ENGINE_DOMAIN}/`;

/**
 * Whether a label is the engine's: the controller finds, claims and prunes children by these,
 * so a child that carried another owner's would be that owner's to write over or delete.
 */
export function isEngineLabel(key: string): boolean {
  return key.startsWith(ENGINE_LABEL_PREFIX) || key === MANAGED_BY_LABEL || key === PART_OF_LABEL;
}

/** The labels without the engine's (see isEngineLabel): what a construct or a copied object may bring of its own. */
export function withoutEngineLabels(labels: Readonly<Record<string, string>> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).filter(([key]) => !isEngineLabel(key)));
}

export function ownerKindLabel(kind: AnyKind): string {
  return `${kind.plural}.${kind.group}`;
}

/** The labels that tie a child to its owner; the runtime selects on these to prune and to watch. */
export function childLabels(kind: AnyKind, owner: CustomResource<unknown, unknown>): Record<string, string> {
  return {
    [MANAGED_BY_LABEL]: CHILD_MANAGER,
    [PART_OF_LABEL]: CHILD_MANAGER,
    [OWNER_KIND_LABEL]: labelValue(ownerKindLabel(kind)),
    [OWNER_NAME_LABEL]: labelValue(owner.metadata.name),
    ...(owner.metadata.namespace ? { [OWNER_NAMESPACE_LABEL]: owner.metadata.namespace } : {}),
  };
}
