/** One field that applying would change: `from` is the live value, `to` the applied one (undefined: absent). */
export interface FieldChange {
  readonly path: string;
  readonly from: unknown;
  readonly to: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `spec.selector`, `metadata.labels["app.kubernetes.io/name"]`, `spec.ports[0]`. */
function fieldPath(path: string, key: string): string {
  if (/^[A-Za-z_$][\w$-]*$/.test(key)) return path ? `${path}.${key}` : key;
  return `${path}[${JSON.stringify(key)}]`;
}

/**
 * The fields of `desired` that `live` lacks or holds otherwise: exactly where
 * src/runtime/matches.ts's `matches(desired, live)` fails, so no change listed means the
 * controller would apply nothing. Fields only the live object has (the API server's defaults,
 * a status, what an observation added) are not changes. A list whose length differs is one change.
 */
export function changedFields(desired: unknown, live: unknown, path = ''): FieldChange[] {
  if (Array.isArray(desired)) {
    if (Array.isArray(live) && live.length === desired.length) return desired.flatMap((item, i) => changedFields(item, live[i], `${path}[${i}]`));
    return [{ path, from: live, to: desired }];
  }
  if (isObject(desired)) {
    if (!isObject(live)) return [{ path, from: live, to: desired }];
    return Object.entries(desired).flatMap(([key, value]) => (value === undefined ? [] : changedFields(value, live[key], fieldPath(path, key))));
  }
  return desired === live ? [] : [{ path, from: live, to: desired }];
}

/** Every field that differs either way: for a spec that applying replaces as a whole (a field removed from Git goes away). */
export function differences(desired: unknown, live: unknown, path = ''): FieldChange[] {
  if (isObject(desired) && isObject(live)) {
    const keys = [...new Set([...Object.keys(desired), ...Object.keys(live)])].sort();
    return keys.flatMap((key) => differences(desired[key], live[key], fieldPath(path, key)));
  }
  if (Array.isArray(desired) && Array.isArray(live) && desired.length === live.length) return desired.flatMap((item, i) => differences(item, live[i], `${path}[${i}]`));
  return JSON.stringify(desired) === JSON.stringify(live) ? [] : [{ path, from: live, to: desired }];
}
