/**
 * Where `actual` does not hold a field of `written` as written: one line per leaf (path, what
 * was written, what is there). Fields `actual` has beyond `written` (defaults the API server or
 * the controller added) are not drift; a written value the server changed (a normalized
 * quantity, a dropped empty field) is what Argo CD would show as OutOfSync.
 */
export function fieldDrift(written: unknown, actual: unknown, path = ''): string[] {
  if (Array.isArray(written)) {
    if (!Array.isArray(actual) || actual.length !== written.length) return [`${path || '.'}: wrote ${JSON.stringify(written)}, got ${JSON.stringify(actual)}`];
    return written.flatMap((item, i) => fieldDrift(item, actual[i], `${path}[${i}]`));
  }
  if (written !== null && typeof written === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${path || '.'}: wrote an object, got ${JSON.stringify(actual)}`];
    return Object.entries(written).flatMap(([key, value]) => fieldDrift(value, (actual as Record<string, unknown>)[key], `${path}.${key}`));
  }
  return written === actual ? [] : [`${path}: wrote ${JSON.stringify(written)}, got ${JSON.stringify(actual)}`];
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const shown = (value: unknown) => (value === undefined ? 'absent' : JSON.stringify(value));

/** Every leaf where `before` and `after` differ, either way: one line per leaf (path, before -> after). */
export function objectDiff(before: unknown, after: unknown, path = ''): string[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => objectDiff(before[key], after[key], `${path}.${key}`));
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    return before.flatMap((item, i) => objectDiff(item, after[i], `${path}[${i}]`));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [`${path || '.'}: ${shown(before)} -> ${shown(after)}`];
}
