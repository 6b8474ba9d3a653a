/** A source ConfigMap or Secret, as read from the API server. */
export interface SourceObject {
  readonly apiVersion: 'v1';
  readonly kind: 'ConfigMap' | 'Secret';
  readonly metadata: { name: string; namespace: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  readonly data?: Record<string, string>;
  readonly binaryData?: Record<string, string>;
  readonly stringData?: Record<string, string>;
  readonly type?: string;
  readonly immutable?: boolean;
}

/** Where a copy came from, so a reader (and the controller) can tell. */
export const COPIED_FROM_ANNOTATION = 'cdk8s-operators.io/copied-from';
/** kubectl's record of the source's own manifest names the source namespace; it is no part of a copy. */
export const NOT_COPIED_ANNOTATIONS = new Set(['kubectl.kubernetes.io/last-applied-configuration']);

/** Objects that must never be copied: they carry a namespace's own identity or credentials. */
export function isCopyable(source: SourceObject): boolean {
  // A copy is never a source, or rules whose namespaces overlap would copy each other's copies.
  if (source.metadata.annotations?.[COPIED_FROM_ANNOTATION]) return false;
  if (source.kind === 'Secret' && source.type === 'kubernetes.io/service-account-token') return false;
  if (source.kind === 'ConfigMap' && source.metadata.name === 'kube-root-ca.crt') return false;
  return true;
}
