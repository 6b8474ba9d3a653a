import { Yaml } from 'cdk8s';
import { AnyKind } from '../core/contract/kind';
import { UserError as InputError } from '../core/errors';
import { previewChildren } from '../core/render';
import { readInput, readResources } from '../gitops/yaml-documents';

/**
 * The children the controller would apply for each custom resource in `text`, as YAML.
 * What needs the cluster (a fetched rate, a generated password, the sources to copy) is
 * left out, exactly as a synth preview leaves it out.
 */
export function renderManifests(text: string, source: string, kinds: readonly AnyKind[]): string {
  const outputs: string[] = [];
  // A Namespace or ConfigMap beside the resources (as in src/instances/) has no children.
  for (const { kind, object, where } of readResources(text, source, kinds).resources) {
    const preview = previewChildren(kind, object);
    if (!preview.ok) throw new InputError(`${where}: ${preview.message}`);
    if (preview.children.length) outputs.push(Yaml.stringify(...preview.children));
  }
  return outputs.join('---\n');
}

export function renderFile(path: string, kinds: readonly AnyKind[]): string {
  const { text, source } = readInput(path);
  return renderManifests(text, source, kinds);
}
