import { AnyKind } from '../engine/kind';

/**
 * Every kind the operator serves, by its folder under src/kinds/, whose index.ts exports the
 * kind's definition as `kind`. Adding a kind is one folder and one line here.
 */
export const KIND_FOLDERS: readonly string[] = [
  'exchangerate',
  'copyrator',
  'guitar',
  'registrymirror',
  'database',
];

function loadKind(folder: string): AnyKind {
  // Found by its folder's name, so that registering a kind takes this list's line and no import.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { kind } = require(`./${folder}`) as { kind?: AnyKind };
  if (!kind?.kind) throw new Error(`src/kinds/${folder}/index.ts must export the kind's definition as \`kind\``);
  return kind;
}

/** The definitions of KIND_FOLDERS, in that order. */
export const KINDS: readonly AnyKind[] = KIND_FOLDERS.map(loadKind);
