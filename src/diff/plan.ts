import { AnyKind, CustomResource } from '../core/contract/kind';
import { validateResource } from '../core/contract/validation';
import { createdOnly, isChildCollection } from '../core/kit/child-policy';
import { childLabels } from '../core/kit/names';
import { withOwner } from '../core/ownership';
import { rawSpecOf } from '../core/contract/version-layout';
import { Instance, instanceName } from '../gitops/instances';
import { collectionPath, labelSelector } from '../kube/discovery';
import { KubeObject, ObjectClient } from '../kube/objects';
import { KubeError } from '../kube/rest';
import { childId, describeChild, prunable } from '../runtime/ownership';
import { changedFields, differences, FieldChange } from './fields';

export type Action = 'created' | 'changed' | 'unchanged' | 'pruned';

/** What applying one child would do. */
export interface ChildPlan {
  readonly name: string;
  readonly action: Action;
  readonly changes: readonly FieldChange[];
  /** A Secret's values are never shown. */
  readonly secret: boolean;
}

/** What applying one resource would do to it and to each of its children. */
export interface ResourcePlan {
  readonly name: string;
  readonly where: string;
  readonly action: Exclude<Action, 'pruned'>;
  readonly changes: readonly FieldChange[];
  readonly children: readonly ChildPlan[];
  /** What the plan could not see, e.g. a collection the user may not list. */
  readonly notes: readonly string[];
}

type Live = CustomResource;

/** The spec as the controller sees it (validated, defaults filled in), so that a default the API server filled in is not a change. */
function normalizedSpec(kind: AnyKind, object: Record<string, unknown>): { spec: unknown; path: string } {
  const { spec, path } = rawSpecOf(kind, object);
  const result = validateResource(kind, object);
  return { spec: result.ok ? result.spec : spec, path };
}

/**
 * What applying `instance` would change in the cluster, asking it only GET requests: the
 * resource's own spec; each child the controller would render (created, or the fields it
 * would change, as the controller's own comparison decides); and each child the controller
 * manages for this resource that it would no longer render (pruned). Children are rendered
 * without an observation, as in a preview: what only the controller learns (a fetched rate)
 * is neither shown nor counted as a change.
 */
export async function planResource(objects: ObjectClient, instance: Instance): Promise<ResourcePlan> {
  const { kind, object, children } = instance;
  const live = await objects.find<Live>(object);
  const notes: string[] = [];
  let changes: FieldChange[] = [];
  if (live) {
    const desired = normalizedSpec(kind, object);
    changes = differences(desired.spec, normalizedSpec(kind, live as unknown as Record<string, unknown>).spec, desired.path);
  }

  const plans: ChildPlan[] = [];
  const rendered = new Set<string>();
  for (const child of children) {
    const desired = live ? withOwner(child, live, kind) : child;
    rendered.add(childId(desired));
    const current = await objects.find(desired);
    const fields = current ? changedFields(desired, current) : [];
    plans.push({ name: describeChild(desired), action: !current ? 'created' : fields.length ? 'changed' : 'unchanged', changes: fields, secret: desired.kind === 'Secret' });
  }
  if (live) {
    const labels = childLabels(kind, live);
    for (const child of await labelledChildren(objects, kind, labels, notes)) {
      // Exactly what the controller's prune deletes, but a child created once: it may hold what only the
      // controller's observation renders (a generated password), so a preview cannot tell it is gone.
      if (prunable(labels, live.metadata.uid, child) && !rendered.has(childId(child)) && !createdOnly(child)) plans.push({ name: describeChild(child), action: 'pruned', changes: [], secret: child.kind === 'Secret' });
    }
  }
  const action = !live ? 'created' : changes.length ? 'changed' : 'unchanged';
  return { name: instanceName(kind, object), where: instance.where, action, changes, children: plans, notes };
}

/**
 * The live objects that carry the labels of the owner's children (`labels`): the kind's child
 * collections, listed across namespaces by those labels (as the controller's child watches are).
 */
async function labelledChildren(objects: ObjectClient, kind: AnyKind, labels: Readonly<Record<string, string>>, notes: string[]): Promise<KubeObject[]> {
  const selector = labelSelector(labels);
  const found: KubeObject[] = [];
  for (const permission of kind.manages) {
    if (!isChildCollection(permission)) continue;
    for (const name of permission.resources) {
      const collection = await objects.discovery.resolve(permission.apiGroup, name);
      if (!collection) continue;
      try {
        const list = await objects.rest.request<{ items: KubeObject[] }>('GET', collectionPath(collection), { query: { labelSelector: selector } });
        found.push(...list.items.map((item) => ({ ...item, apiVersion: collection.groupVersion, kind: collection.kind })));
      } catch (err) {
        if (!(err instanceof KubeError) || err.code !== 403) throw err;
        notes.push(`cannot list ${name} across namespaces (forbidden), so ${name} the controller would prune are not shown`);
      }
    }
  }
  return found;
}
