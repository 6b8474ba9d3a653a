import { crdName, servedIdentities } from '../../core/groups';
import { AnyKind } from '../../core/kind';
import { hasVersions } from '../../core/versions';

/** The CRD names the webhook converts for: every served identity of every kind with versions (the bundle's RBAC names them too). */
export function versionedCrdNames(kinds: readonly AnyKind[], withoutExtraGroups: readonly string[] = []): string[] {
  return kinds.filter(hasVersions).flatMap((kind) => servedIdentities(kind, withoutExtraGroups).map(crdName));
}
