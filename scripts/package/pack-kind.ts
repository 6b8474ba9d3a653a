import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { ENGINE_PACKAGE } from '../../src/core/install/identity';
import { PEERS } from './engine-entries';

/**
 * `npm run pack:kind -- <folder>`: one kind of src/kinds/ as an npm package of its own
 * (`cdk8s-operators-kind-<folder>`), for another team's operator to compose beside its own kinds
 * (docs/your-own-repository.md#a-kind-as-a-package). The folder is compiled with declarations,
 * its imports of the engine's public face (`../../engine/<entry>`) become the engine package's
 * entries, which it takes as a peer; an import leaving the folder any other way fails the pack.
 * Prints the tarball's path as its last line.
 */
const ROOT = join(__dirname, '..', '..', '..');

function main(folder: string | undefined): void {
  if (!folder || !/^[a-z0-9]+$/.test(folder) || !existsSync(join(ROOT, 'src', 'kinds', folder, 'index.ts'))) {
    console.error(`pack:kind: expected the folder of a kind in src/kinds/ (e.g. exchangerate), got ${JSON.stringify(folder ?? '')}`);
    process.exit(2);
  }
  const out = join(ROOT, 'lib', 'package', `kind-${folder}`);
  const build = join(out, 'build');
  const pkg = join(out, 'package');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(pkg, { recursive: true });
  const sources = readdirSync(join(ROOT, 'src', 'kinds', folder)).filter((f) => f.endsWith('.ts')).map((f) => join(ROOT, 'src', 'kinds', folder, f));
  const tsconfig = join(out, 'tsconfig.json');
  writeFileSync(tsconfig, JSON.stringify({ extends: join(ROOT, 'tsconfig.json'), compilerOptions: { rootDir: join(ROOT, 'src'), outDir: build, declaration: true, sourceMap: false, incremental: false, tsBuildInfoFile: null }, files: sources, include: [] }));
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', tsconfig], { stdio: 'inherit' });
  const required = new Set<string>();
  const escaped: string[] = [];
  for (const file of readdirSync(join(build, 'kinds', folder))) {
    const text = readFileSync(join(build, 'kinds', folder, file), 'utf8').replace(/(["'])\.\.\/\.\.\/engine\/(\w+)\1/g, `$1${ENGINE_PACKAGE}/$2$1`);
    for (const [, specifier] of text.matchAll(/(?:require\(|from )["']([^"']+)["']/g)) {
      if (specifier.startsWith('../')) escaped.push(`${file}: ${specifier}`);
      else if (!specifier.startsWith('.') && !specifier.startsWith('node:') && !builtinModules.includes(specifier)) required.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]);
    }
    writeFileSync(join(pkg, file), text);
  }
  if (escaped.length) {
    console.error(`pack:kind: src/kinds/${folder} imports outside its folder other than the engine's public face: ${escaped.join(', ')}`);
    process.exit(1);
  }
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; license: string; dependencies: Record<string, string> };
  const peers = [ENGINE_PACKAGE, ...PEERS.filter((name) => required.has(name))];
  const manifest = {
    name: `cdk8s-operators-kind-${folder}`,
    version: root.version,
    description: `The ${folder} kind of cdk8s-operators, for an operator built on ${ENGINE_PACKAGE}: list it under "${ENGINE_PACKAGE}".kinds in the operator's package.json.`,
    license: root.license,
    main: 'index.js',
    types: 'index.d.ts',
    dependencies: Object.fromEntries([...required].filter((name) => !peers.includes(name) && name !== ENGINE_PACKAGE).sort().map((name) => [name, root.dependencies[name]])),
    peerDependencies: Object.fromEntries(peers.map((name) => [name, `^${name === ENGINE_PACKAGE ? root.version : root.dependencies[name]}`])),
  };
  writeFileSync(join(pkg, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const docs = join(ROOT, 'docs', 'kinds', `${folder}.md`);
  if (existsSync(docs)) copyFileSync(docs, join(pkg, 'README.md'));
  const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: pkg, encoding: 'utf8' });
  const [{ filename }] = JSON.parse(packed) as { filename: string }[];
  console.log(join(out, filename));
}

main(process.argv[2]);
