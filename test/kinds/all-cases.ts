import { KIND_FOLDERS, KINDS } from '../../src/kinds';
import { KindCases, olderValidationCasesOf, validationCasesOf } from './cases';

/** Every registered kind's validation tables (its hub's, then its older versions'), found in its folder (a kind without one is left out; validation.test.ts says so). */
export const ALL_CASES: readonly KindCases[] = KIND_FOLDERS.flatMap((folder, i) => {
  const cases = validationCasesOf(folder);
  return cases ? [cases, ...olderValidationCasesOf(folder)].map((table) => ({ kind: KINDS[i], ...table })) : [];
});
