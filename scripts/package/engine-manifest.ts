import { ENGINE_PACKAGE } from '../../src/core/install/identity';
import { checkoutPins } from '../../src/scaffold/release';
import { PEERS, PUBLIC_ENTRIES, SCAFFOLD_BIN, TESTING_ENTRIES } from './engine-entries';

/** The fields of this repository's package.json the engine's is made from. */
export interface RootManifest {
  readonly version: string;
  readonly license: string;
  readonly engines: Record<string, string>;
  readonly dependencies: Record<string, string>;
  readonly devDependencies: Record<string, string>;
}

const entry = (path: string) => ({ types: `./${path}.d.ts`, default: `./${path}.js` });

/**
 * The engine package's package.json: the repository's version (the engine follows semver, see
 * its CHANGELOG.md), one `exports` subpath per public entry (and `typesVersions` for TypeScript
 * projects that resolve without `exports`), the scaffold as its `bin`, the packages the compiled
 * engine requires at the repository's pinned versions, the ones an app must share as peers,
 * and the versions the scaffold pins in an operator's repository.
 */
export function engineManifest(root: RootManifest, required: ReadonlySet<string>) {
  const pinned = (name: string) => {
    const version = root.dependencies[name];
    if (!version) throw new Error(`pack:engine: the engine requires ${name}, which is not in the dependencies of package.json`);
    return version;
  };
  const subpaths: [string, string][] = [
    ...PUBLIC_ENTRIES.map((name): [string, string] => [name, `engine/${name}`]),
    ...TESTING_ENTRIES.map((name): [string, string] => [`testing/${name}`, `testing/${name}`]),
  ];
  const dependencies = [...required].filter((name) => !PEERS.includes(name)).sort();
  return {
    name: ENGINE_PACKAGE,
    version: root.version,
    description: 'The cdk8s operators engine: kinds as cdk8s code, their controller, their install and a test kit against a real control plane.',
    license: root.license,
    engines: root.engines,
    exports: { ...Object.fromEntries(subpaths.map(([subpath, path]) => [`./${subpath}`, entry(path)])), './package.json': './package.json' },
    typesVersions: { '*': Object.fromEntries(subpaths.map(([subpath, path]) => [subpath, [`${path}.d.ts`]])) },
    bin: { [ENGINE_PACKAGE]: `${SCAFFOLD_BIN}.js` },
    dependencies: Object.fromEntries(dependencies.map((name) => [name, pinned(name)])),
    peerDependencies: Object.fromEntries(PEERS.map((name) => [name, `^${pinned(name)}`])),
    // What the scaffold pins in an operator's repository (src/scaffold/release.ts).
    scaffoldPins: checkoutPins(root),
  };
}
