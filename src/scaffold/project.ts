import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { checkOperatorIdentity, ENGINE_PACKAGE } from '../core/install/identity';
import { UserError } from '../core/errors';
import { KindNames, kindFiles, kindNames } from './kind-files';
import { OWNED_MARKER, ownedFiles } from './owned-files';
import { EngineRelease } from './release';
import { userFiles } from './user-files';

function write(dir: string, files: Map<string, string>, keep: (path: string) => boolean = () => false): string[] {
  const written: string[] = [];
  for (const [path, text] of files) {
    const target = join(dir, path);
    if (keep(target)) continue;
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text, { mode: path.startsWith('bin/') || path.endsWith('.sh') || path === '.ci/run' ? 0o755 : 0o644 });
    written.push(path);
  }
  return written;
}

/** The operator's name, read from the repository's package.json. */
function operatorName(dir: string): string {
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest)) throw new UserError(`${dir} has no package.json: run this in an operator's repository (npx ${ENGINE_PACKAGE} init <dir> --name <name> makes one)`);
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { name: string }).name;
}

/** `init <dir> --name <name>`: a new operator repository with one example kind; returns the files written. */
export function init(dir: string, name: string, exampleKind: string, release: EngineRelease, engineSpec: string): string[] {
  try {
    checkOperatorIdentity({ name, namespace: name, imageRepository: `${name}/controller` }, { name: '--name' });
  } catch (err) {
    throw new UserError((err as Error).message);
  }
  if (existsSync(join(dir, 'package.json'))) throw new UserError(`${dir} already has a package.json: init writes a new repository (upgrade refreshes an existing one)`);
  const owned = ownedFiles({ name, engineVersion: release.version });
  return [
    ...write(dir, owned),
    ...write(dir, userFiles({ name, release, engineSpec, owned: [...owned.keys()] })),
    ...write(dir, kindFiles(checkedKind(exampleKind, name))),
  ];
}

function checkedKind(kind: string, operator: string): KindNames {
  try {
    return kindNames(kind, operator);
  } catch (err) {
    throw new UserError((err as Error).message);
  }
}

/** `add-kind <Kind>`: a new kind's folder; refuses to overwrite one. */
export function addKind(dir: string, kind: string): string[] {
  const names = checkedKind(kind, operatorName(dir));
  if (existsSync(join(dir, 'src', 'kinds', names.folder))) throw new UserError(`src/kinds/${names.folder} exists already`);
  return write(dir, kindFiles(names));
}

/** `upgrade`: rewrites the owned files from this engine release, leaving any file whose marker line was deleted; returns what it wrote and left. */
export function upgrade(dir: string, release: EngineRelease): { written: string[]; left: string[] } {
  const owned = ownedFiles({ name: operatorName(dir), engineVersion: release.version });
  const left: string[] = [];
  const written = write(dir, owned, (target) => {
    const taken = existsSync(target) && !readFileSync(target, 'utf8').split('\n', 3).some((line) => line.includes(OWNED_MARKER));
    if (taken) left.push(target.slice(dir.length + 1));
    return taken;
  });
  return { written, left };
}
