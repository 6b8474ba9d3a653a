import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { allIdentities, servedIdentities } from '../core/groups';
import { AnyKind } from '../core/contract/kind';
import { servedApiVersions } from '../core/contract/versions';
// A problem with the input is a UserError (src/core/errors.ts): one line, a non-zero exit.
import { UserError as InputError } from '../core/errors';

/** One custom resource read from a file, with where it came from for error messages. */
export interface DocumentResource {
  readonly kind: AnyKind;
  readonly object: Record<string, unknown> & { metadata: { name: string; namespace?: string } };
  /** `<source>`, or `<source> (document <n>)` in a file of several documents. */
  readonly where: string;
  /** Its position in the file, counting from 0. */
  readonly document: number;
}

/** A plain Kubernetes kind a team may declare beside its resources. */
export interface BuiltInKind {
  readonly apiVersion: string;
  readonly kind: string;
  readonly scope: 'Namespaced' | 'Cluster';
  /** The fields it may have beside apiVersion, kind and metadata. */
  readonly fields: readonly string[];
}

/**
 * What a team's resources need beside them to apply and to work, and nothing more: the
 * namespaces they live in, and ConfigMaps (what a kind's objects read or copy, what a Pod reads).
 * Everything else of a cluster is managed where the cluster is.
 */
export const BUILT_IN_KINDS: readonly BuiltInKind[] = [
  { apiVersion: 'v1', kind: 'Namespace', scope: 'Cluster', fields: [] },
  { apiVersion: 'v1', kind: 'ConfigMap', scope: 'Namespaced', fields: ['data', 'binaryData', 'immutable'] },
];

/** Why a Secret is refused: Git keeps its values, readable by everyone who can read the repository, for good. */
const SECRET_REFUSED =
  'a Secret does not belong in Git: its values (base64, not encrypted) would be readable by everyone who can read the repository, and stay in its history; ' +
  'create it in the cluster (kubectl create secret) or with your secrets tool (Sealed Secrets, External Secrets), and refer to it by name';

/** `Widget (example.com/v1), ...`: what an unknown kind is told to be instead. */
export function knownKinds(kinds: readonly AnyKind[]): string {
  return kinds.map((k) => `${k.kind} (${servedIdentities(k).flatMap(servedApiVersions).join(' or ')})`).join(', ');
}

/** The kind an object's apiVersion and kind name, in any group it is served under (see servedIdentities). */
function identityOf(object: Record<string, unknown>, kinds: readonly AnyKind[]): AnyKind | undefined {
  return allIdentities(kinds).find((k) => k.kind === object.kind && servedApiVersions(k).includes(String(object.apiVersion)));
}

/** The built-in kind an object claims to be, if it is one a team may declare. */
export function builtInKindOf(object: Record<string, unknown>): BuiltInKind | undefined {
  return BUILT_IN_KINDS.find((k) => k.apiVersion === object.apiVersion && k.kind === object.kind);
}

/** The kind an object claims to be, or an error naming the kinds that exist (the built-in ones are found by builtInKindOf). */
export function kindOf(object: Record<string, unknown>, where: string, kinds: readonly AnyKind[]): AnyKind {
  const { apiVersion, kind: kindName } = object;
  const kind = identityOf(object, kinds);
  if (!kind && apiVersion === 'v1' && kindName === 'Secret') throw new InputError(`${where}: ${SECRET_REFUSED}`);
  if (!kind) {
    const builtIns = BUILT_IN_KINDS.map((k) => `${k.kind} (${k.apiVersion})`).join(', ');
    throw new InputError(`${where}: unknown kind ${String(kindName)} in apiVersion ${String(apiVersion)}; expected one of ${knownKinds(kinds)}, or beside them one of ${builtIns}`);
  }
  requireName(object, where);
  return kind;
}

function requireName(object: Record<string, unknown>, where: string): void {
  const metadata = object.metadata as { name?: unknown } | undefined;
  if (typeof metadata?.name !== 'string' || !metadata.name) throw new InputError(`${where}: metadata.name is required`);
}

/** A document that could not be read; `document` counts from 0. */
export interface DocumentProblem {
  readonly document: number;
  readonly message: string;
}

export interface ReadOptions {
  /** Collect problems here and skip the document, instead of throwing the first. */
  readonly problems?: DocumentProblem[];
  /** Skip objects of other kinds instead of refusing them (a synthesized file also holds CRDs and the operator). */
  readonly skipOtherKinds?: boolean;
}

/** What a YAML text declares: custom resources, and the plain objects of BUILT_IN_KINDS beside them. */
export interface DocumentObjects {
  readonly resources: DocumentResource[];
  /** Each with a name, not yet checked further. */
  readonly builtIns: DocumentObject[];
}

/** A plain object of one of BUILT_IN_KINDS, read from a file. */
export interface DocumentObject extends Omit<DocumentResource, 'kind'> {
  readonly kind: BuiltInKind;
}

/**
 * Every custom resource in a YAML text (several documents allowed; empty ones skipped), each
 * of a known kind and with a name, and apart from them the objects of BUILT_IN_KINDS. A
 * problem is thrown as an InputError naming the document, or collected (see ReadOptions).
 */
export function readResources(text: string, source: string, kinds: readonly AnyKind[], options: ReadOptions = {}): DocumentObjects {
  const { problems, skipOtherKinds } = options;
  const documents = parseAllDocuments(text);
  const found: DocumentObjects = { resources: [], builtIns: [] };
  documents.forEach((doc, index) => {
    const where = documents.length > 1 ? `${source} (document ${index + 1})` : source;
    try {
      const object = readDocument(doc, where) as DocumentResource['object'] | null;
      if (!object) return;
      const builtIn = builtInKindOf(object);
      if (builtIn) {
        requireName(object, where);
        found.builtIns.push({ kind: builtIn, object, where, document: index });
      } else if (!skipOtherKinds || identityOf(object, kinds)) {
        found.resources.push({ kind: kindOf(object, where, kinds), object, where, document: index });
      }
    } catch (err) {
      if (!problems || !(err instanceof InputError)) throw err;
      problems.push({ document: index, message: err.message });
    }
  });
  return found;
}

function readDocument(doc: ReturnType<typeof parseAllDocuments>[number], where: string): Record<string, unknown> | null {
  if (doc.errors.length) {
    const [error] = doc.errors;
    throw new InputError(`${where} is not valid YAML: ${error.message.split('\n')[0].replace(/:$/, '')}`);
  }
  const object = doc.toJS() as Record<string, unknown> | null;
  if (object === null) return null;
  if (typeof object !== 'object' || Array.isArray(object)) throw new InputError(`${where}: expected a Kubernetes object (a YAML mapping), got ${Array.isArray(object) ? 'a list' : typeof object}`);
  return object;
}

/** The text of a file, or of standard input for `-`. */
export function readInput(path: string): { text: string; source: string } {
  try {
    return { text: readFileSync(path === '-' ? 0 : path, 'utf8'), source: path === '-' ? 'standard input' : path };
  } catch (err) {
    throw new InputError(`cannot read ${path}: ${(err as Error).message}`);
  }
}
