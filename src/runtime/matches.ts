/**
 * Whether `live` already holds everything `desired` says: the API server adds defaults and
 * metadata of its own, so only the fields we render are compared. Lists must match item by item.
 */
export function matches(desired: unknown, live: unknown): boolean {
  if (Array.isArray(desired)) {
    return Array.isArray(live) && live.length === desired.length && desired.every((item, i) => matches(item, live[i]));
  }
  if (desired !== null && typeof desired === 'object') {
    if (live === null || typeof live !== 'object' || Array.isArray(live)) return false;
    return Object.entries(desired).every(([key, value]) => value === undefined || matches(value, (live as Record<string, unknown>)[key]));
  }
  return desired === live;
}
