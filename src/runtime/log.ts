import pino from 'pino';
import type { OptionSpec } from '../core/contract/options';
import { redactSecretValues } from './secret-values';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** --log-level of every long-running command. */
export const LOG_LEVEL_OPTION: OptionSpec = { name: 'log-level', type: 'string', default: 'info', choices: LOG_LEVELS, description: 'How much to log.' };

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger whose every line also carries `fields`, e.g. child({ kind, namespace, name }). */
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  /** The least severe level written. Default: info. */
  readonly level?: LogLevel;
  /** Where each line (without its newline) goes. Default: process.stdout. */
  readonly write?: (line: string) => void;
  /** Fields on every line. Default: none. */
  readonly base?: LogFields;
  /** Write Error stacks too. Default: false: a stack is noise in a steady log and may show file paths. */
  readonly stacks?: boolean;
}

const REDACTED = '[redacted]';

const SEVERITY: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * Any field whose name contains one of these (or ends in `key`: `key`, `tls.key`, `apiKey`; or
 * is a Secret's or ConfigMap's `data`, `stringData`, `binaryData`) is written as "[redacted]", at any depth.
 */
const SECRET_NAME = /password|passwd|token|secret|authorization|credential|cookie|key$|^(string|binary)?data$/i;
/** What of a Secret object is written: the rest of it is redacted whatever its fields are named. */
const SECRET_OBJECT_FIELDS = new Set(['apiVersion', 'kind', 'metadata', 'type', 'immutable']);

/** Keys every line starts with; a field of the same name is written as `fields.<key>` instead of hiding them. */
const RESERVED = new Set(['time', 'level', 'msg']);

/**
 * A JSON-lines logger on pino (one object per line, so log collectors need no parsing rules):
 * `msg` and fields, every value cleaned first (secrets redacted at any depth, by field name, in
 * any Secret object, and wherever a value of a Secret this process read or wrote appears, see
 * secret-values.ts; Errors reduced,
 * cycles and bigints made writable), which pino's path-based redaction cannot do for field
 * names nobody listed. Child fields are merged here, so a line never holds a key twice.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  // The level often comes straight from a flag; an unknown one would otherwise silently log everything.
  if (!Object.hasOwn(SEVERITY, level)) throw new Error(`log level must be one of ${Object.keys(SEVERITY).join(', ')}, got ${JSON.stringify(level)}`);
  const stacks = options.stacks ?? false;
  const write = options.write;
  const destination = write ? { write: (line: string) => write(line.replace(/\n$/, '')) } : process.stdout;
  const root = pino({ level, base: null, messageKey: 'msg', timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } }, destination);

  const make = (base: LogFields): Logger => {
    const log = (level: LogLevel) => (msg: string, fields?: LogFields) => {
      if (!root.isLevelEnabled(level)) return;
      const line: LogFields = {};
      for (const [key, value] of Object.entries({ ...base, ...fields })) {
        line[RESERVED.has(key) ? `fields.${key}` : key] = clean(key, value, stacks, new WeakSet());
      }
      root[level](line, redactSecretValues(msg));
    };
    return {
      debug: log('debug'),
      info: log('info'),
      warn: log('warn'),
      error: log('error'),
      child: (fields) => make({ ...base, ...fields }),
    };
  };
  return make(options.base ?? {});
}

/** A value made safe for JSON.stringify: secrets redacted, Errors reduced, cycles and bigints handled, so logging never throws. */
function clean(key: string, value: unknown, stacks: boolean, ancestors: WeakSet<object>): unknown {
  if (SECRET_NAME.test(key) && value !== undefined) return REDACTED;
  if (typeof value === 'string') return redactSecretValues(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    const message = redactSecretValues(value.message);
    return stacks ? { message, name: value.name, stack: value.stack && redactSecretValues(value.stack) } : { message, name: value.name };
  }
  // Dates, URLs and the like say how they want to be written.
  const toJSON = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof toJSON === 'function') return clean(key, toJSON.call(value), stacks, ancestors);
  // `ancestors` holds only the objects above this one, so an object shared by two fields is written twice, not taken for a cycle.
  if (ancestors.has(value)) return '[circular]';
  ancestors.add(value);
  let out: unknown;
  if (Array.isArray(value)) out = value.map((item) => clean('', item, stacks, ancestors));
  else {
    const secret = (value as { kind?: unknown }).kind === 'Secret';
    out = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, secret && !SECRET_OBJECT_FIELDS.has(k) ? REDACTED : clean(k, v, stacks, ancestors)]));
  }
  ancestors.delete(value);
  return out;
}
