/**
 * The rules a CRD's new self is checked by, named as kubernetes-sigs/crdify names its validations
 * where it has one (docs/evolving-a-kind.md has the table); the x-kubernetes-* rules,
 * `servedVersionRemoval` and `selectableFieldRemoval` are ours, and `unknown` is any change of a keyword the check does not model.
 */
export const CRD_RULES = [
  'existingFieldRemoval',
  'type',
  'required',
  'enum',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'pattern',
  'default',
  'nullable',
  'scope',
  'storedVersionRemoval',
  'servedVersionRemoval',
  'selectableFieldRemoval',
  'x-kubernetes-validations',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'unknown',
] as const;

export type CrdRule = (typeof CRD_RULES)[number];

/** One way the new CRD could refuse, or lose, what users already stored under the old one. */
export interface CrdFinding {
  readonly kind: string;
  /** The CRD's version; '*' for what concerns the whole CRD (its scope). */
  readonly version: string;
  /** Where in the version's openAPIV3Schema, e.g. `spec.rules[*].mode`; '' for the CRD itself. */
  readonly path: string;
  readonly rule: CrdRule;
  readonly message: string;
}

/** `Kind version path: message (rule)`, the line synth and diff print. */
export function findingLine(finding: CrdFinding): string {
  const where = [finding.kind, finding.version === '*' ? '' : finding.version, finding.path].filter(Boolean).join(' ');
  return `${where}: ${finding.message} (rule ${finding.rule})`;
}
