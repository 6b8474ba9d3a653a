import { Yaml } from 'cdk8s';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { AnyKind, apiVersionOf } from './core/kind';
import { previewChildren } from './core/render';

/** A problem with the input, reported as one line and a non-zero exit. */
export class InputError extends Error {}

/**
 * The children the controller would apply for each custom resource in `text`, as YAML.
 * What needs the cluster (a fetched rate, a generated password, the sources to copy) is
 * left out, exactly as a synth preview leaves it out.
 */
export function renderManifests(text: string, source: string, kinds: readonly AnyKind[]): string {
  const documents = parseAllDocuments(text);
  const outputs: string[] = [];
  documents.forEach((doc, index) => {
    const where = documents.length > 1 ? `${source} (document ${index + 1})` : source;
    if (doc.errors.length) {
      const [error] = doc.errors;
      throw new InputError(`${where} is not valid YAML: ${error.message.split('\n')[0].replace(/:$/, '')}`);
    }
    const object = doc.toJS() as Record<string, unknown> | null;
    if (object === null) return;
    if (typeof object !== 'object' || Array.isArray(object)) throw new InputError(`${where}: expected a Kubernetes object (a YAML mapping), got ${Array.isArray(object) ? 'a list' : typeof object}`);
    const { apiVersion, kind: kindName } = object;
    const kind = kinds.find((k) => apiVersionOf(k) === apiVersion && k.kind === kindName);
    if (!kind) {
      const known = kinds.map((k) => `${k.kind} (${apiVersionOf(k)})`).join(', ');
      throw new InputError(`${where}: unknown kind ${String(kindName)} in apiVersion ${String(apiVersion)}; expected one of ${known}`);
    }
    const metadata = object.metadata as { name?: unknown } | undefined;
    if (typeof metadata?.name !== 'string' || !metadata.name) throw new InputError(`${where}: metadata.name is required`);
    const preview = previewChildren(kind, object);
    if (!preview.ok) throw new InputError(`${where}: ${preview.message}`);
    if (preview.children.length) outputs.push(Yaml.stringify(...preview.children));
  });
  return outputs.join('---\n');
}

export function renderFile(path: string, kinds: readonly AnyKind[]): string {
  let text: string;
  try {
    text = readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (err) {
    throw new InputError(`cannot read ${path}: ${(err as Error).message}`);
  }
  return renderManifests(text, path === '-' ? 'standard input' : path, kinds);
}
