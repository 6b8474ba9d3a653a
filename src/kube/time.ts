/** Kubernetes' Time (whole seconds, as in conditions and status). */
export function metaTime(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** Kubernetes' MicroTime (Leases, Events): RFC 3339 with six fractional digits. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
