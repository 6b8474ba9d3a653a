import { OWNER_NAME_LABEL, OWNER_NAMESPACE_LABEL } from '../core/kit/names';
import { KubeObject } from '../kube/objects';
import { ChangeType } from './informer';
import { childId } from './ownership';

/** The cached children by the owner their labels name, kept with the caches: a reconcile looks at its own children, not at every child of the kind. */
export class ChildrenByOwner {
  private readonly byOwner = new Map<string, Map<string, KubeObject>>();

  /** Call for every child the watches deliver. */
  changed(type: ChangeType, child: KubeObject, previous?: KubeObject): void {
    const id = childId(child);
    if (previous) this.byOwner.get(ownerIndexKey(previous.metadata.labels))?.delete(id);
    if (type === 'deleted') return;
    const key = ownerIndexKey(child.metadata.labels);
    let children = this.byOwner.get(key);
    if (!children) this.byOwner.set(key, (children = new Map()));
    children.set(id, child);
  }

  /** The cached children whose owner labels name this owner. */
  of(ownerLabels: Readonly<Record<string, string>>): KubeObject[] {
    return [...(this.byOwner.get(ownerIndexKey(ownerLabels))?.values() ?? [])];
  }
}

/** An owner's name and namespace as its children's labels carry them. */
function ownerIndexKey(labels: unknown): string {
  const l = (labels ?? {}) as Record<string, string>;
  return `${l[OWNER_NAMESPACE_LABEL] ?? ''}/${l[OWNER_NAME_LABEL] ?? ''}`;
}
