import { KIND_FOLDERS, KINDS } from '../../src/kinds';
import { KindCases, validationCasesOf } from './cases';

/** Every registered kind's validation table, found in its folder (a kind without one is left out; validation.test.ts says so). */
export const ALL_CASES: readonly KindCases[] = KIND_FOLDERS.flatMap((folder, i) => {
  const cases = validationCasesOf(folder);
  return cases ? [{ kind: KINDS[i], ...cases }] : [];
});
