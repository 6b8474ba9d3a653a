/**
 * The values of the Secrets this process has read or written, so the log can redact them
 * wherever they turn up (an error message quoting a field, a diff, a copied value), not only
 * under field names that sound secret. Process-wide, as every logger writes the same stream.
 */

/** Shorter values (`true`, `1`, `admin`) are too common to redact without blanking ordinary words. */
export const MIN_SECRET_VALUE_LENGTH = 6;
/** The most values remembered; the oldest are forgotten first, so a huge cluster's Secrets cannot fill memory. */
export const MAX_SECRET_VALUES = 10_000;

/**
 * New values are looked for one by one until this many wait, then compiled into the one pattern
 * with the rest: compiling 10,000 takes about 200 ms, so Secrets that keep changing must not
 * make every log line compile it again.
 */
const PENDING_VALUES = 256;

const REDACTED = '[redacted]';
const values = new Map<string, true>();
/** Every value remembered when it was compiled (an evicted one stays in it until the next compile: redacted a little longer). */
let pattern: RegExp | undefined;
/** Values remembered since. */
let pending: string[] = [];

const SECRETS_PATH = /^\/api\/v1\/(namespaces\/[^/]+\/)?secrets$/;

/** Whether a list/watch path (an Informer's) is a collection of Secrets. */
export function isSecretsPath(path: string): boolean {
  return SECRETS_PATH.test(path);
}

/** Remembers the values of a Secret (`data`, base64, both as sent and decoded, and `stringData`). */
export function rememberSecret(secret: { data?: unknown; stringData?: unknown }): void {
  for (const encoded of stringsOf(secret.data)) {
    remember(encoded);
    remember(Buffer.from(encoded, 'base64').toString('utf8'));
  }
  for (const plain of stringsOf(secret.stringData)) {
    remember(plain);
    remember(Buffer.from(plain, 'utf8').toString('base64'));
  }
}

/** Remembers a rendered or read object's values when it is a Secret. */
export function rememberIfSecret(object: { kind?: unknown; data?: unknown; stringData?: unknown }): void {
  if (object.kind === 'Secret') rememberSecret(object);
}

/** `text` with every remembered Secret value in it replaced by `[redacted]`. */
export function redactSecretValues(text: string): string {
  if (!values.size || text.length < MIN_SECRET_VALUE_LENGTH) return text;
  if (pending.length > PENDING_VALUES || (!pattern && pending.length)) {
    pattern = new RegExp([...values.keys()].sort((a, b) => b.length - a.length).map(escape).join('|'), 'g');
    pending = [];
  }
  let redacted = pattern ? text.replace(pattern, REDACTED) : text;
  for (const value of pending) if (redacted.includes(value)) redacted = redacted.split(value).join(REDACTED);
  return redacted;
}

/** Forgets every value (tests). */
export function forgetSecretValues(): void {
  values.clear();
  pattern = undefined;
  pending = [];
}

function remember(value: string): void {
  // Multi-line values (a PEM key) are redacted line by line too: a log may quote one line.
  const parts = value.includes('\n') ? [value, ...value.split('\n')] : [value];
  for (const part of parts) {
    const trimmed = part.trim();
    if (trimmed.length < MIN_SECRET_VALUE_LENGTH || values.has(trimmed)) continue;
    values.set(trimmed, true);
    if (values.size > MAX_SECRET_VALUES) values.delete(values.keys().next().value!);
    pending.push(trimmed);
  }
}

function stringsOf(map: unknown): string[] {
  if (map === null || typeof map !== 'object') return [];
  return Object.values(map).filter((v): v is string => typeof v === 'string');
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
