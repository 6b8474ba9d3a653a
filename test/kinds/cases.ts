import { AnyKind } from '../../src/core/kind';

/**
 * A kind's table of objects for the validation tests: each valid one must be accepted,
 * each invalid one rejected, by the API server (through the CRD's schema and CEL rules) and
 * by the controller's own validation alike, both naming `field`.
 */
export interface KindCases {
  readonly kind: AnyKind;
  readonly valid: readonly Case[];
  readonly invalid: readonly InvalidCase[];
}

export interface Case {
  readonly name: string;
  /** The object's fields beside apiVersion, kind and metadata: usually `{ spec: {...} }`. */
  readonly body: Record<string, unknown>;
}

export interface InvalidCase extends Case {
  /** The field both must name, e.g. `spec.currency`. */
  readonly field: string;
}

/** A full object of `kind` named `name` with `body`. */
export function objectOf(kind: AnyKind, name: string, body: Record<string, unknown>, namespace?: string): Record<string, unknown> {
  return {
    apiVersion: `${kind.group}/${kind.version}`,
    kind: kind.kind,
    metadata: { name, ...(kind.scope === 'Namespaced' && namespace ? { namespace } : {}) },
    ...body,
  };
}
