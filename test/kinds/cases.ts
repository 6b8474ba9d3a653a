import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AnyKind } from '../../src/core/contract/kind';
import { ValidationCases } from '../../src/core/contract/validation-cases';

export type { InvalidCase, ValidationCase as Case } from '../../src/core/contract/validation-cases';

/** A kind with its validation table (see ValidationCases). */
export interface KindCases extends ValidationCases {
  readonly kind: AnyKind;
}

/** Where a kind keeps its validation table, relative to the repository. */
export const casesFile = (folder: string) => join('src', 'kinds', folder, 'validation-cases.ts');

/** The validation table of the kind in src/kinds/<folder>/, or undefined when it has none. */
export function validationCasesOf(folder: string): ValidationCases | undefined {
  const file = join(__dirname, '..', '..', casesFile(folder));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return existsSync(file) ? (require(file) as { validationCases?: ValidationCases }).validationCases : undefined;
}

/** The tables of the kind's older versions (`olderValidationCases`), each naming its version. */
export function olderValidationCasesOf(folder: string): readonly ValidationCases[] {
  const file = join(__dirname, '..', '..', casesFile(folder));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return existsSync(file) ? ((require(file) as { olderValidationCases?: ValidationCases[] }).olderValidationCases ?? []) : [];
}

/** A full object of `kind` named `name` with `body`. */
export function objectOf(kind: AnyKind, name: string, body: Record<string, unknown>, namespace?: string, version = kind.version): Record<string, unknown> {
  return {
    apiVersion: `${kind.group}/${version}`,
    kind: kind.kind,
    metadata: { name, ...(kind.scope === 'Namespaced' && namespace ? { namespace } : {}) },
    ...body,
  };
}
