import { ApiObject, App, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join, relative, sep } from 'node:path';
import { AnyKind } from '../core/contract/kind';
import { UserError } from '../core/errors';
import { previewChildren, Manifest } from '../core/render';
import { BuiltInKind, builtInKindOf, DocumentProblem, kindOf, ReadOptions, readResources } from './yaml-documents';

/**
 * What a TypeScript file in the instances folder exports as its default: a function that
 * declares the team's resources under `scope` with the classes `cdk8s import` generated.
 */
export type DeclareInstances = (scope: Construct) => void;

/** One resource the team declared, valid, with where it was declared. */
export interface Instance {
  readonly kind: AnyKind;
  /** The object as it is written into dist/. */
  readonly object: Manifest;
  /** Its children, rendered with the kind's sample observation where it declares one, else without an observation (as the render command does). */
  readonly children: Manifest[];
  /** Whether the children were rendered with the kind's sample observation. */
  readonly sampled: boolean;
  /** `src/instances/rates.yaml (document 2)`, `src/instances/platform.ts (construct orders)`. */
  readonly where: string;
}

/** A plain object (a Namespace, a ConfigMap: see BUILT_IN_KINDS) a team declared beside its resources, valid. */
export interface BuiltInObject {
  readonly kind: BuiltInKind;
  readonly object: Manifest;
  readonly where: string;
}

/** What a folder of instances declares: the resources, and the plain objects they need. */
export interface Declarations {
  readonly instances: Instance[];
  readonly builtIns: BuiltInObject[];
}

export interface LoadOptions {
  /** The folder to read, recursively: *.yaml, *.yml, *.json and *.ts files. */
  readonly dir: string;
  /** The project root: file names in messages are relative to it, and it holds lib/. */
  readonly root: string;
  readonly kinds: readonly AnyKind[];
  /** Loads a TypeScript file's module; by default its compiled JavaScript under `<root>/lib/`. */
  readonly loadModule?: (tsFile: string) => unknown;
  /** Render children with each kind's sample observation (synth's previews); without any observation by default, as `diff` compares them. */
  readonly withSample?: boolean;
}

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
/** DNS-1123 subdomain (object names) and label (namespaces), as the API server checks them. */
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_RULE = 'a DNS-1123 label (lower-case letters, digits and "-", at most 63 characters)';
/** A ConfigMap's keys, as the API server checks them. */
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The files of a folder and its subfolders, sorted, so that output never depends on the file system's order. */
function filesUnder(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) files.push(...filesUnder(path));
    else files.push(path);
  }
  return files;
}

/** A path relative to the project when inside it (as a reviewer reads it), else as given. */
function displayPath(root: string, path: string): string {
  const inside = relative(root, path);
  return inside && !inside.startsWith('..') ? inside.split(sep).join('/') : path;
}

function isTypeScript(file: string): boolean {
  return file.endsWith('.ts') && !file.endsWith('.d.ts');
}

/** `<root>/src/instances/a.ts` -> `<root>/lib/src/instances/a.js`, where `npm run build` puts it. */
function compiledModule(root: string, tsFile: string): unknown {
  const path = relative(root, tsFile);
  if (path.startsWith('..')) throw new Error('is outside the project, so npm run build does not compile it; move it under src/instances/');
  const js = join(root, 'lib', path.replace(/\.ts$/, '.js'));
  try {
    statSync(js);
  } catch {
    throw new Error(`is not compiled yet (no ${relative(root, js)}); run npm run build`);
  }
  return createRequire(__filename)(js);
}

/** An object a file or the examples declared, not yet checked. */
export interface Declared {
  readonly object: ApiObject;
  readonly where: string;
  /** Where it stands among all declared objects ([file, document]), so that problems are listed in file order. */
  readonly position?: readonly number[];
}

/** A problem and the position of what it is about. */
export interface Problem {
  readonly position: readonly number[];
  readonly message: string;
}

function byPosition(a: Problem, b: Problem): number {
  for (let i = 0; i < Math.max(a.position.length, b.position.length); i++) {
    const d = (a.position[i] ?? -1) - (b.position[i] ?? -1);
    if (d) return d;
  }
  return 0;
}

/**
 * Reads every file of the folder into a scratch chart (YAML documents as they are, TypeScript
 * files by calling their default export) and checks each resource as the API server and the
 * controller would, and the plain objects beside them (BUILT_IN_KINDS) as the API server would.
 * Throws an UserError listing every problem: an unreadable or invalid file, an unknown
 * kind or group, a Secret, a missing or misplaced namespace, a bad name, an invalid spec or
 * ConfigMap, a duplicate.
 */
export function loadInstances(options: LoadOptions): Declarations {
  const { dir, root, kinds } = options;
  const loadModule = options.loadModule ?? ((file: string) => compiledModule(root, file));
  const scope = scratchChart();
  const problems: Problem[] = [];
  const declared: Declared[] = [];
  let files: string[];
  try {
    files = filesUnder(dir);
  } catch (err) {
    throw new UserError([`cannot read the instances folder ${displayPath(root, dir)}: ${(err as Error).message}`]);
  }
  files.forEach((file, index) => {
    const name = displayPath(root, file);
    // One construct per file keeps construct ids unique across files.
    const fileScope = new Construct(scope, `file${index}`);
    try {
      if (MANIFEST_EXTENSIONS.has(extname(file))) {
        const fileProblems: DocumentProblem[] = [];
        declared.push(...declareManifests(fileScope, readFileSync(file, 'utf8'), name, kinds, { problems: fileProblems }, index));
        problems.push(...fileProblems.map(({ document, message }) => ({ position: [index, document], message })));
      } else if (isTypeScript(file)) {
        const declare = (loadModule(file) as { default?: unknown } | undefined)?.default;
        if (typeof declare !== 'function') throw new Error('expected `export default function (scope: Construct)` that declares the resources');
        (declare as DeclareInstances)(fileScope);
        fileScope.node
          .findAll()
          .filter((c): c is ApiObject => c instanceof ApiObject)
          .forEach((object, n) => declared.push({ object, where: `${name} (construct ${object.node.path.slice(fileScope.node.path.length + 1)})`, position: [index, n] }));
      }
    } catch (err) {
      problems.push({ position: [index], message: err instanceof UserError ? err.message : `${name}: ${(err as Error).message}` });
    }
  });
  return checkDeclared(declared, kinds, problems, { withSample: options.withSample });
}

/** The objects of a YAML text under `scope`, in document order; a bad document is added to `problems`. */
function declareManifests(scope: Construct, text: string, source: string, kinds: readonly AnyKind[], options: ReadOptions & { problems: DocumentProblem[] }, file = 0): Declared[] {
  const { resources, builtIns } = readResources(text, source, kinds, options);
  return [...builtIns, ...resources]
    .sort((a, b) => a.document - b.document)
    .map(({ object, where, document }) => ({ object: new ApiObject(scope, `doc${document}`, object as never), where, position: [file, document] }));
}

/**
 * The resources of one YAML text, checked as loadInstances checks a folder's. With
 * `skipOtherKinds`, objects of other kinds are skipped instead of refused.
 */
export function loadManifests(text: string, source: string, kinds: readonly AnyKind[], options: Pick<ReadOptions, 'skipOtherKinds'> = {}): Instance[] {
  const problems: DocumentProblem[] = [];
  const declared = declareManifests(scratchChart(), text, source, kinds, { ...options, problems });
  return checkDeclared(declared, kinds, problems.map(({ document, message }) => ({ position: [0, document], message }))).instances;
}

/** A chart to declare into and read back from; nothing is synthesized from it. */
export function scratchChart(): Chart {
  return new Chart(new App(), 'scratch', { disableResourceNameHashes: true });
}

/** Checks declared objects and renders their children (`withSample`: see LoadOptions); throws an UserError with `earlier` and every new problem, if any. */
export function checkDeclared(declared: readonly Declared[], kinds: readonly AnyKind[], earlier: readonly Problem[] = [], options: Pick<LoadOptions, 'withSample'> = {}): Declarations {
  const problems = [...earlier];
  const instances: Instance[] = [];
  const builtIns: BuiltInObject[] = [];
  const seen = new Map<string, string>();
  /** Records where an object was first declared; false (and a problem) when it was declared before. */
  const firstDeclaration = (key: string, name: string, where: string, position: readonly number[]) => {
    const first = seen.get(key);
    if (first) problems.push({ position, message: `${where}: ${name} is declared twice: here and in ${first}` });
    else seen.set(key, where);
    return !first;
  };
  declared.forEach((entry, n) => {
    const { object, where } = entry;
    const position = entry.position ?? [0, n];
    const json = object.toJson() as Manifest;
    const builtIn = builtInKindOf(json);
    if (builtIn) {
      const problem = metadataProblem(builtIn, json.metadata) ?? builtInProblem(builtIn, json);
      if (problem) problems.push({ position, message: `${where}: ${problem}` });
      else if (firstDeclaration(`${builtIn.kind}.${builtIn.apiVersion} ${instanceName(builtIn, json)}`, instanceName(builtIn, json), where, position)) builtIns.push({ kind: builtIn, object: json, where });
      return;
    }
    let kind: AnyKind;
    try {
      kind = kindOf(json, where, kinds);
    } catch (err) {
      problems.push({ position, message: (err as Error).message });
      return;
    }
    const problem = metadataProblem(kind, json.metadata);
    if (problem) {
      problems.push({ position, message: `${where}: ${problem}` });
      return;
    }
    if (!firstDeclaration(`${kind.kind}.${kind.group} ${instanceName(kind, json)}`, instanceName(kind, json), where, position)) return;
    const preview = previewChildren(kind, json, { withSample: options.withSample });
    if (!preview.ok) {
      problems.push({ position, message: `${where}: ${preview.message}` });
      return;
    }
    instances.push({ kind, object: json, children: preview.children, sampled: preview.sampled, where });
  });
  if (problems.length) throw new UserError(problems.sort(byPosition).map((p) => p.message));
  return { instances, builtIns };
}

/** What the API server would say about the name and namespace, or nothing. */
function metadataProblem(kind: Pick<AnyKind, 'kind' | 'scope'>, metadata: Manifest['metadata']): string | undefined {
  const { name, namespace } = metadata;
  if (name.length > 253 || !SUBDOMAIN.test(name)) return `metadata.name: expected a DNS-1123 subdomain (lower-case letters, digits, "-" and ".", at most 253 characters), got "${name}"`;
  if (kind.scope === 'Namespaced' && !namespace) return `metadata.namespace is required: ${kind.kind} is namespaced, and a GitOps tool would otherwise put it wherever it is pointed`;
  if (kind.scope === 'Cluster' && namespace) return `metadata.namespace: ${kind.kind} is cluster-scoped, so it has no namespace; remove namespace "${namespace}"`;
  if (namespace && (namespace.length > 63 || !LABEL.test(namespace))) return `metadata.namespace: expected ${LABEL_RULE}, got "${namespace}"`;
  return undefined;
}

/** What the API server would refuse in a Namespace or ConfigMap beyond its name and namespace, or nothing. */
function builtInProblem(kind: BuiltInKind, object: Manifest): string | undefined {
  const allowed = ['apiVersion', 'kind', 'metadata', ...kind.fields];
  const extra = Object.keys(object).find((field) => !allowed.includes(field));
  if (extra) return `${extra}: a ${kind.kind} has no such field here; expected ${kind.fields.length ? kind.fields.join(', ') : 'metadata only'}`;
  if (kind.kind === 'Namespace' && (object.metadata.name.length > 63 || !LABEL.test(object.metadata.name))) return `metadata.name: a Namespace's name must be ${LABEL_RULE}, got "${object.metadata.name}"`;
  for (const field of ['data', 'binaryData'].filter((f) => object[f] !== undefined)) {
    const map = object[field];
    if (typeof map !== 'object' || map === null || Array.isArray(map)) return `${field}: expected a map of keys to strings`;
    for (const [key, value] of Object.entries(map)) {
      if (key.length > 253 || !CONFIG_KEY.test(key)) return `${field}: key "${key}" may hold only letters, digits, "-", "_" and "." (at most 253 characters)`;
      if (typeof value !== 'string') return `${field}.${key}: expected a string, got ${JSON.stringify(value)}; quote it in YAML ("${String(value)}")`;
      if (field === 'binaryData' && !BASE64.test(value)) return `binaryData.${key}: expected base64`;
    }
  }
  if (object.immutable !== undefined && typeof object.immutable !== 'boolean') return `immutable: expected true or false, got ${JSON.stringify(object.immutable)}`;
  return undefined;
}

/** `Widget team-a/small` (namespaced), `Widget shared` (cluster-scoped). */
export function instanceName(kind: Pick<AnyKind, 'kind'>, object: { metadata: { name: string; namespace?: string } }): string {
  return `${kind.kind} ${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata.name}`;
}

