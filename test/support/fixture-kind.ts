import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

/** A kind kept in test/kinds/fixtures/, loaded as if it were a folder of src/kinds/. */
export interface FixtureKind {
  /** A module of the folder, e.g. `index` or `plan`. */
  module<T>(name: string): T;
  remove(): void;
}

/**
 * Copies the fixture folder into a scratch tree whose src/ links every other folder of this
 * checkout's (and node_modules), so that its imports (`../../core/kind`) resolve as they will in
 * src/kinds/: the modules it shares with the engine are the very ones the test loads.
 */
export function loadFixtureKind(folder: string): FixtureKind {
  const scratch = mkdtempSync(join(tmpdir(), `fixture-${folder}-`));
  mkdirSync(join(scratch, 'src', 'kinds'), { recursive: true });
  for (const entry of readdirSync(join(root, 'src'))) {
    if (entry !== 'kinds') symlinkSync(join(root, 'src', entry), join(scratch, 'src', entry));
  }
  symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'));
  const kindDir = join(scratch, 'src', 'kinds', folder);
  cpSync(join(root, 'test', 'kinds', 'fixtures', folder), kindDir, { recursive: true });
  return {
    // A path known only now: the folder is copied at run time.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    module: <T>(name: string) => require(join(kindDir, name)) as T,
    remove: () => rmSync(scratch, { recursive: true, force: true }),
  };
}
