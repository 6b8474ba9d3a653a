import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { CONTROL_PLANE_ASSETS, IMAGE_ASSETS, PEERS, PRODUCT_PATHS, PROGRAMS, PUBLIC_ENTRIES, SCAFFOLD_BIN, TESTING_ENTRIES } from './engine-entries';
import { engineManifest, RootManifest } from './engine-manifest';

/**
 * `npm run pack:engine`: cuts the engine package from this repository (docs/your-own-repository.md).
 * It compiles the public entries of src/engine/, the test kit's Jest hooks and the scaffold with
 * declarations into lib/package/engine/ (TypeScript follows their imports, so the folder holds
 * what they need and nothing else), fails if that includes any of the product's modules, adds
 * the control plane's and the image's build scripts, a package.json, README and CHANGELOG, and runs `npm pack`.
 * Prints the tarball's path as its last line.
 */
const ROOT = join(__dirname, '..', '..', '..');
const OUT = join(ROOT, 'lib', 'package');
const PACKAGE_DIR = join(OUT, 'engine');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

/** Compiles the entries, with declarations, into the package folder (src/ becomes its root). */
function compile(): void {
  const sources = [
    ...PUBLIC_ENTRIES.map((entry) => `src/engine/${entry}.ts`),
    ...TESTING_ENTRIES.map((entry) => `src/testing/${entry}.ts`),
    ...PROGRAMS.map((program) => `src/${program}`),
    `src/${SCAFFOLD_BIN}.ts`,
  ];
  const tsconfig = join(OUT, 'tsconfig.engine.json');
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.json'),
      // rootDir src/: a file of the entries' closure outside src/ (test/, imports/) stops the compile.
      compilerOptions: { rootDir: join(ROOT, 'src'), outDir: PACKAGE_DIR, declaration: true, sourceMap: false, incremental: false, tsBuildInfoFile: null },
      files: sources.map((source) => join(ROOT, source)),
      include: [],
    }),
  );
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', tsconfig], { stdio: 'inherit' });
}

/** The product's modules the compile pulled in: none, or the pack fails naming them. */
function productModules(): string[] {
  return files(PACKAGE_DIR)
    .map((file) => relative(PACKAGE_DIR, file))
    .filter((file) => PRODUCT_PATHS.some((pattern) => pattern.test(file)));
}

/** The npm packages the compiled engine requires (not Node's own), by name. */
function requiredPackages(): Set<string> {
  const names = new Set<string>();
  for (const file of files(PACKAGE_DIR).filter((f) => f.endsWith('.js'))) {
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/require\("([^".][^"]*)"\)/g)) {
      if (specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
      const parts = specifier.split('/');
      names.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
    }
  }
  return names;
}

function main(): void {
  rmSync(PACKAGE_DIR, { recursive: true, force: true });
  mkdirSync(PACKAGE_DIR, { recursive: true });
  compile();
  const leaked = productModules();
  if (leaked.length) {
    console.error(`pack:engine: the engine imports the product's modules, which the package must not hold: ${leaked.join(', ')}. Pass what the engine needs as an argument (OperatorIdentity, the kinds) instead.`);
    process.exit(1);
  }
  for (const [folder, assets] of [['test/controlplane', CONTROL_PLANE_ASSETS], ['scripts/image', IMAGE_ASSETS]] as const) {
    for (const asset of assets) {
      const target = join(PACKAGE_DIR, folder, asset);
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(join(ROOT, folder, asset), target);
    }
  }
  chmodSync(join(PACKAGE_DIR, `${SCAFFOLD_BIN}.js`), 0o755);
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as RootManifest;
  const manifest = engineManifest(root, requiredPackages());
  writeFileSync(join(PACKAGE_DIR, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const doc of ['README.md', 'CHANGELOG.md']) copyFileSync(join(ROOT, 'scripts', 'package', doc), join(PACKAGE_DIR, doc));
  const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', OUT], { cwd: PACKAGE_DIR, encoding: 'utf8' });
  const [{ filename, size, entryCount }] = JSON.parse(packed) as { filename: string; size: number; entryCount: number }[];
  console.error(`pack:engine: ${manifest.name}@${manifest.version}, ${entryCount} files, ${(size / 1024).toFixed(0)} KiB (peers: ${PEERS.join(', ')})`);
  console.log(join(OUT, filename));
}

main();
