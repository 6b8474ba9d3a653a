import { formatFieldErrors } from '../schema';
import { allIdentities } from './groups';
import { AnyKind, KubeJson } from './contract/kind';
import { validateAsWritten } from './contract/validation';
import { ConversionError, convertObject, layoutOf, splitApiVersion } from './contract/versions';

/**
 * The answer to an API server's ConversionReview (apiextensions.k8s.io/v1): every object in
 * the desired version, or a failure that names the object and the field, and no object
 * converted at all. It never throws for anything a request may hold.
 */

export interface ConversionReview {
  readonly apiVersion: 'apiextensions.k8s.io/v1';
  readonly kind: 'ConversionReview';
  readonly response: {
    readonly uid: string;
    readonly convertedObjects: readonly KubeJson[];
    readonly result: { readonly status: 'Success' } | { readonly status: 'Failure'; readonly message: string };
  };
}

const REVIEW_VERSION = 'apiextensions.k8s.io/v1';

export function answerConversionReview(kinds: readonly AnyKind[], body: unknown): ConversionReview {
  const request = (isObject(body) ? body.request : undefined) as Record<string, unknown> | undefined;
  const uid = isObject(request) && typeof request.uid === 'string' ? request.uid : '';
  try {
    if (!isObject(body) || body.apiVersion !== REVIEW_VERSION || body.kind !== 'ConversionReview') {
      throw new ConversionError('apiVersion', `expected a ConversionReview of ${REVIEW_VERSION}`);
    }
    if (!isObject(request)) throw new ConversionError('request', 'is required');
    if (!uid) throw new ConversionError('request.uid', 'is required: a non-empty string');
    if (typeof request.desiredAPIVersion !== 'string' || !request.desiredAPIVersion.includes('/')) {
      throw new ConversionError('request.desiredAPIVersion', 'is required: group/version');
    }
    if (!Array.isArray(request.objects)) throw new ConversionError('request.objects', 'is required: a list of objects');
    const desired = request.desiredAPIVersion;
    // Once per review, not per object.
    const identities = allIdentities(kinds);
    const converted = request.objects.map((object: unknown, i) => convertOne(identities, object, desired, `request.objects[${i}]`));
    return review(uid, converted, { status: 'Success' });
  } catch (err) {
    if (!(err instanceof ConversionError)) throw err;
    return review(uid, [], { status: 'Failure', message: err.message });
  }
}

function convertOne(identities: readonly AnyKind[], object: unknown, desiredApiVersion: string, where: string): KubeJson {
  if (!isObject(object) || typeof object.apiVersion !== 'string' || typeof object.kind !== 'string' || !isObject(object.metadata)) {
    throw new ConversionError(where, 'expected an object with apiVersion, kind and metadata');
  }
  const json = object as unknown as KubeJson;
  const name = `${json.kind} ${json.metadata.namespace ? `${json.metadata.namespace}/` : ''}${String(json.metadata.name ?? '')}`;
  const { group } = splitApiVersion(json.apiVersion);
  const { group: desiredGroup, version } = splitApiVersion(desiredApiVersion);
  if (desiredGroup !== group) throw new ConversionError('request.desiredAPIVersion', `${name} is in group ${group}, not ${desiredGroup}`);
  const kind = identities.find((k) => k.group === group && k.kind === json.kind);
  if (!kind) throw new ConversionError(`${where}.kind`, `${name}: no kind ${json.kind} in group ${group} is served here`);
  try {
    layoutOf(kind, version);
    const result = convertObject(kind, json, version);
    // A valid object must convert into a valid one; an invalid one (written before a rule
    // tightened) still converts, or the whole collection would be unreadable.
    if (validateAsWritten(kind, json).ok) {
      const check = validateAsWritten(kind, result);
      if (!check.ok) throw new ConversionError(formatFieldErrors(check.errors), `the object converted to ${version} is invalid`);
    }
    return result;
  } catch (err) {
    if (err instanceof ConversionError) throw new ConversionError(`${name}: ${err.field}`, err.problem);
    throw err;
  }
}

function review(uid: string, convertedObjects: readonly KubeJson[], result: ConversionReview['response']['result']): ConversionReview {
  return { apiVersion: REVIEW_VERSION, kind: 'ConversionReview', response: { uid, convertedObjects, result } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
