import { answerAdmissionReview } from '../../src/core/admission-review';
import { AnyKind } from '../../src/core/contract/kind';
import { defineTestKind } from '../../src/testing/test-kind';

// What the API server never sends but a peer may: each gets an answer, never an exception.
const kind = defineTestKind('Admitted', {
  render: () => undefined,
  validate: (spec) => {
    if (spec.size === 13) throw new Error('unlucky');
    return spec.size % 2 ? [{ field: 'spec.size', message: 'must be even' }] : [];
  },
}) as unknown as AnyKind;
const request = (fields: Record<string, unknown>) => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u', kind: { group: kind.group, version: 'v1', kind: kind.kind }, operation: 'CREATE', ...fields } });
const object = (size: unknown) => ({ apiVersion: `${kind.group}/v1`, kind: kind.kind, metadata: { name: 'x', namespace: 'n' }, spec: { size } });
const answer = (body: unknown) => answerAdmissionReview([kind], body).response;

it.each([
  ['no AdmissionReview', 'nonsense', 'apiVersion: expected an AdmissionReview of admission.k8s.io/v1'],
  ['no uid', { ...request({}), request: { kind: {} } }, 'request.uid: is required: a non-empty string'],
  ['a kind not served here', request({ kind: { group: 'other.io', kind: 'Other' }, object: object(1) }), 'request.kind: no kind Other of group other.io with a validation hook is served here'],
  ['a spec the schema refuses', request({ object: object('one') }), 'spec.size'],
  ['a hook that throws', request({ object: object(13) }), 'spec: the Admitted validation hook failed: unlucky'],
  ['a spec the hook refuses', request({ object: object(3) }), 'spec.size: must be even'],
])('refuses %s, saying why', (_what, body, message) => {
  const response = answer(body);
  expect(response.allowed).toBe(false);
  expect(response.status?.message).toContain(message);
});

it('admits a good spec, a delete, an update that leaves the spec alone and an object being deleted', () => {
  expect(answer(request({ object: object(2) }))).toEqual({ uid: 'u', allowed: true });
  expect(answer(request({ operation: 'DELETE', oldObject: object(3) })).allowed).toBe(true);
  expect(answer(request({ operation: 'UPDATE', object: { ...object(3), metadata: { name: 'x', labels: { a: 'b' } } }, oldObject: object(3) })).allowed).toBe(true);
  expect(answer(request({ operation: 'UPDATE', object: { ...object(3), metadata: { name: 'x', deletionTimestamp: '2026-01-01T00:00:00Z' } }, oldObject: object(2) })).allowed).toBe(true);
  expect(answer(request({ operation: 'UPDATE', object: object(3), oldObject: object(2) })).allowed).toBe(false);
});
