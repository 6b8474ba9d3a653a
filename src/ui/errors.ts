import { KubeError } from '../engine/client';

/** An answer other than 200, with a sentence for the page. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** Form fields an API server error can point at, by the object field it names. */
const FIELD_OF: Record<string, FormField> = { 'metadata.name': 'name', 'metadata.namespace': 'namespace', 'spec.brand': 'brand', 'spec': 'brand' };
export type FormField = 'name' | 'namespace' | 'brand';

/** What went wrong, for the page: the HTTP status to answer with, a sentence, and messages per form field. */
export interface UiError {
  readonly status: number;
  readonly message: string;
  readonly fields: Partial<Record<FormField, string>>;
}

interface Cause {
  field?: string;
  message?: string;
}

/**
 * The API server's verdict turned into the UI's answer: its own validation messages next
 * to the fields they name (422 becomes 400: the user's input was bad), its 403, 404 and
 * 409 passed on, and anything that means the API server failed or could not be reached as 502.
 */
export function toUiError(err: unknown): UiError {
  if (!(err instanceof KubeError)) {
    // undici's "fetch failed" (refused, reset, DNS) and our request timeout.
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    const message = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError') ? 'timed out' : `${err instanceof Error ? err.message : String(err)}${cause}`;
    return { status: 502, message: `The Kubernetes API server could not be reached (${message}). Try again in a moment.`, fields: {} };
  }
  const message = err.status?.message ?? `HTTP ${err.code}`;
  switch (err.code) {
    case 400:
    case 422: {
      const causes = ((err.status?.details as { causes?: Cause[] } | undefined)?.causes ?? []).filter((c) => c.message);
      const fields: UiError['fields'] = {};
      const unplaced: string[] = [];
      for (const cause of causes) {
        const field = cause.field ? FIELD_OF[cause.field] : undefined;
        const text = cause.field ? `${cause.field}: ${cause.message}` : cause.message!;
        if (field) fields[field] = fields[field] ? `${fields[field]}; ${text}` : text;
        else unplaced.push(text);
      }
      return { status: 400, message: `The API server refused the guitar: ${unplaced.length ? unplaced.join('; ') : 'see the fields marked below.'}`, fields };
    }
    case 401:
      // The user's own token is handled before this (the login page); what is left is the UI's.
      return { status: 502, message: 'The API server did not accept the UI\u2019s own credentials.', fields: {} };
    case 403:
      return { status: 403, message: `Not allowed: ${message}`, fields: {} };
    case 404:
      return { status: 404, message: `Not found: ${message}`, fields: {} };
    case 409:
      return { status: 409, message: `Conflict: ${message}`, fields: err.reason === 'AlreadyExists' ? { name: message } : {} };
    default:
      return { status: err.code >= 500 ? 502 : 500, message: `The API server answered HTTP ${err.code}: ${message}`, fields: {} };
  }
}
