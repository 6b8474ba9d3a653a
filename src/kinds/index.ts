import { AnyKind } from '../core/kind';
import { copyratorKind } from './copyrator';
import { databaseKind } from './database';
import { exchangeRateKind } from './exchangerate';
import { guitarKind } from './guitar';
import { registryMirrorKind } from './registrymirror';

/** Every kind the operator serves. Adding a kind is one folder and one line here. */
export const KINDS: readonly AnyKind[] = [exchangeRateKind, copyratorKind, guitarKind, registryMirrorKind, databaseKind];
