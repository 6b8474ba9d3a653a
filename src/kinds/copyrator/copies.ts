import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';

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
const NOT_COPIED_ANNOTATIONS = new Set(['kubectl.kubernetes.io/last-applied-configuration']);

/** Objects that must never be copied: they carry a namespace's own identity or credentials. */
export function isCopyable(source: SourceObject): boolean {
  // A copy is never a source, or rules whose namespaces overlap would copy each other's copies.
  if (source.metadata.annotations?.[COPIED_FROM_ANNOTATION]) return false;
  if (source.kind === 'Secret' && source.type === 'kubernetes.io/service-account-token') return false;
  if (source.kind === 'ConfigMap' && source.metadata.name === 'kube-root-ca.crt') return false;
  return true;
}

export interface CopiesProps {
  /** The matching source objects. */
  readonly sources: readonly SourceObject[];
  /** The namespaces to copy into. */
  readonly targets: readonly string[];
}

/** Every copyable source in every target namespace: data, type, labels and annotations, none of the source's identity. */
export class Copies extends Construct {
  constructor(scope: Construct, id: string, props: CopiesProps) {
    super(scope, id);
    for (const source of props.sources.filter(isCopyable)) {
      const { name, namespace, labels = {}, annotations = {} } = source.metadata;
      const keptAnnotations = Object.fromEntries(Object.entries(annotations).filter(([key]) => !NOT_COPIED_ANNOTATIONS.has(key)));
      for (const target of props.targets) {
        new ApiObject(this, `${target}/${source.kind}/${name}`, {
          apiVersion: 'v1',
          kind: source.kind,
          metadata: { name, namespace: target, labels, annotations: { ...keptAnnotations, [COPIED_FROM_ANNOTATION]: `${namespace}/${name}` } },
          ...(source.data ? { data: source.data } : {}),
          ...(source.binaryData ? { binaryData: source.binaryData } : {}),
          ...(source.stringData ? { stringData: source.stringData } : {}),
          ...(source.type ? { type: source.type } : {}),
          ...(source.immutable !== undefined ? { immutable: source.immutable } : {}),
        });
      }
    }
  }
}
