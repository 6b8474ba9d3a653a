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
