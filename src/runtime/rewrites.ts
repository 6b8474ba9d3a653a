import { createHash } from 'node:crypto';
import { KubeObject } from '../kube/objects';
import { matches } from './matches';

/** A field the API server stored differently from how a kind rendered it. */
export interface FieldChange {
  /** `spec.egress`, `spec.hard.cpu`, `spec.ports[0].targetPort` */
  readonly path: string;
  readonly rendered: unknown;
  /** undefined: the server stored nothing there. */
  readonly stored: unknown;
}

/**
 * Children whose render the API server does not store as written: an empty list or map it
 * drops, a quantity it writes in another unit (`0.01` -> `10m`), a value it defaults or
 * allocates (`clusterIP: ''`). Such a child never `matches` its render, so without this every
 * reconcile would apply it again, and every apply that changes the stored object (a
 * resourceVersion) queues its owner for the next: a write storm. Here the engine remembers
 * what the server made of each such render and treats that as converged, until the render
 * changes or someone else changes the child. Only rewritten children are remembered, so the
 * common case costs nothing.
 */
export class ServerRewrites {
  private readonly stored = new Map<string, { render: string; expected: unknown }>();

  /** Whether `live` still holds what the server made of this very render when we last applied it. */
  settled(id: string, child: KubeObject, live: KubeObject): boolean {
    const known = this.stored.get(id);
    return known !== undefined && known.render === fingerprint(child) && matches(known.expected, live);
  }

  /**
   * Called with what the server answered to an apply of `child`. Returns the fields it
   * changed when this is the first time this render was seen rewritten (to tell the kind's
   * author once), else undefined.
   */
  applied(id: string, child: KubeObject, result: KubeObject): FieldChange[] | undefined {
    if (matches(child, result)) {
      this.stored.delete(id);
      return undefined;
    }
    const render = fingerprint(child);
    const first = this.stored.get(id)?.render !== render;
    this.stored.set(id, { render, expected: asStored(child, result) });
    return first ? fieldChanges(child, result) : undefined;
  }

  forget(id: string): void {
    this.stored.delete(id);
  }

  get size(): number {
    return this.stored.size;
  }
}

function fingerprint(child: KubeObject): string {
  return createHash('sha256').update(JSON.stringify(child)).digest('base64');
}

/**
 * The rendered fields as the server stored them: the fields `desired` names, with the values
 * of `stored` (undefined where the server dropped one, which `matches` then does not ask for).
 */
export function asStored(desired: unknown, stored: unknown): unknown {
  if (Array.isArray(desired)) return Array.isArray(stored) ? stored.map((item, i) => (i < desired.length ? asStored(desired[i], item) : item)) : stored;
  if (isObject(desired)) {
    if (!isObject(stored)) return stored;
    return Object.fromEntries(Object.entries(desired).map(([key, value]) => [key, asStored(value, stored[key])]));
  }
  return stored;
}

/** Every field of `desired` that `stored` does not hold as rendered, deepest first found, by path. */
export function fieldChanges(desired: unknown, stored: unknown, path = ''): FieldChange[] {
  if (desired === undefined || matches(desired, stored)) return [];
  if (Array.isArray(desired) && Array.isArray(stored) && desired.length === stored.length) {
    return desired.flatMap((item, i) => fieldChanges(item, stored[i], `${path}[${i}]`));
  }
  if (isObject(desired) && isObject(stored) && Object.keys(desired).length) {
    return Object.entries(desired).flatMap(([key, value]) => fieldChanges(value, stored[key], path ? `${path}.${key}` : key));
  }
  return [{ path: path || '.', rendered: desired, stored }];
}

/** `spec.egress (rendered [], stored nothing)`, for Events and logs; only `data.password` without `withValues` (a Secret's). */
export function describeChanges(changes: readonly FieldChange[], withValues = true): string {
  const shown = (value: unknown) => (value === undefined ? 'nothing' : JSON.stringify(value));
  return changes.map((c) => (withValues ? `${c.path} (rendered ${shown(c.rendered)}, stored ${shown(c.stored)})` : c.path)).join(', ');
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
