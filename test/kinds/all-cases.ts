import { KindCases } from './cases';
import { copyratorCases } from './copyrator.cases';
import { databaseCases } from './database.cases';
import { exchangeRateCases } from './exchangerate.cases';
import { guitarCases } from './guitar.cases';
import { registryMirrorCases } from './registrymirror.cases';

/** Every kind's validation table; a new kind adds one line. */
export const ALL_CASES: readonly KindCases[] = [exchangeRateCases, copyratorCases, guitarCases, registryMirrorCases, databaseCases];
