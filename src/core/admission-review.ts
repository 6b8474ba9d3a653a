import { FieldError, formatFieldErrors } from '../schema';
import { allIdentities } from './groups';
import { AnyKind, CustomResource } from './contract/kind';
import { validateResource } from './contract/validation';
import { isDeepStrictEqual } from 'node:util';

/**
 * The answer to an API server's AdmissionReview (admission.k8s.io/v1) for a kind's `validate`
 * hook: allowed, or refused with the problems, each naming its field, in the message the API
 * server shows (`admission webhook "..." denied the request: spec.schedule: ...`) and as the
 * status's causes. It never throws for anything a request may hold.
 */
export interface AdmissionReview {
  readonly apiVersion: typeof REVIEW_VERSION;
  readonly kind: 'AdmissionReview';
  readonly response: {
    readonly uid: string;
    readonly allowed: boolean;
    readonly status?: { readonly code: number; readonly reason: string; readonly message: string; readonly details?: { readonly causes: readonly { field: string; message: string; reason: string }[] } };
  };
}

const REVIEW_VERSION = 'admission.k8s.io/v1';

export function answerAdmissionReview(kinds: readonly AnyKind[], body: unknown): AdmissionReview {
  const request = isObject(body) && isObject(body.request) ? body.request : undefined;
  const uid = typeof request?.uid === 'string' ? request.uid : '';
  if (!isObject(body) || body.apiVersion !== REVIEW_VERSION || body.kind !== 'AdmissionReview') return refused(uid, 400, [{ field: 'apiVersion', message: `expected an AdmissionReview of ${REVIEW_VERSION}` }]);
  if (!request || !uid) return refused(uid, 400, [{ field: 'request.uid', message: 'is required: a non-empty string' }]);
  const object = request.object;
  // Deletes and updates that leave the spec alone (finalizers, labels, a deletion under way) are not the hook's to judge.
  if (!isObject(object) || request.operation === 'DELETE' || request.operation === 'CONNECT') return allowed(uid);
  if (isObject(object.metadata) && object.metadata.deletionTimestamp) return allowed(uid);
  if (request.operation === 'UPDATE' && isObject(request.oldObject) && isDeepStrictEqual(request.oldObject.spec, object.spec)) return allowed(uid);
  const requested = isObject(request.kind) ? request.kind : {};
  const kind = allIdentities(kinds).find((k) => k.group === requested.group && k.kind === requested.kind);
  if (!kind?.validate) return refused(uid, 400, [{ field: 'request.kind', message: `no kind ${String(requested.kind)} of group ${String(requested.group)} with a validation hook is served here` }]);
  const valid = validateResource<unknown>(kind, object);
  if (!valid.ok) return refused(uid, 422, valid.errors);
  let problems: readonly FieldError[];
  try {
    problems = kind.validate(valid.spec, { ...(object as unknown as CustomResource), spec: valid.spec });
  } catch (err) {
    // A hook that throws refuses, with its message: failurePolicy Fail would refuse anyway, with less said.
    problems = [{ field: 'spec', message: `the ${kind.kind} validation hook failed: ${(err as Error).message}` }];
  }
  return problems.length ? refused(uid, 422, problems) : allowed(uid);
}

function allowed(uid: string): AdmissionReview {
  return { apiVersion: REVIEW_VERSION, kind: 'AdmissionReview', response: { uid, allowed: true } };
}

function refused(uid: string, code: number, problems: readonly FieldError[]): AdmissionReview {
  const causes = problems.map((p) => ({ field: p.field, message: p.message, reason: 'FieldValueInvalid' }));
  return { apiVersion: REVIEW_VERSION, kind: 'AdmissionReview', response: { uid, allowed: false, status: { code, reason: code === 422 ? 'Invalid' : 'BadRequest', message: formatFieldErrors(problems), details: { causes } } } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
