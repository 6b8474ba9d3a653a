/**
 * A kind's table of objects for the validation tests (test/kinds/validation.test.ts), kept in
 * the kind's folder as `validation-cases.ts` exporting `validationCases`: each valid object
 * must be accepted, each invalid one rejected, by the API server (through the CRD's schema and
 * CEL rules) and by the controller's own validation alike, both naming `field`.
 */
export interface ValidationCases {
  /** The version the objects are written in. @default the kind's hub; a kind with older versions exports a table for each as `olderValidationCases` */
  readonly version?: string;
  readonly valid: readonly ValidationCase[];
  readonly invalid: readonly InvalidCase[];
}

export interface ValidationCase {
  readonly name: string;
  /** The object's fields beside apiVersion, kind and metadata: usually `{ spec: {...} }`. */
  readonly body: Record<string, unknown>;
}

export interface InvalidCase extends ValidationCase {
  /** The field both must name, e.g. `spec.currency`. */
  readonly field: string;
}
