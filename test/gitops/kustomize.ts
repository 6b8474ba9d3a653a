import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { goTool } from '../support/go-tool';
import { parseAllDocuments } from 'yaml';
import { KubeObject } from '../../src/kube/objects';

const kustomizeBin = goTool(join(__dirname, 'kustomize', 'build.sh'));

/** The real kustomize, built on first use by kustomize/build.sh (seconds when the tool cache is cold). */
export const kustomizeBinary = () => join(kustomizeBin(), 'kustomize');

/** `kustomize build <dir>`'s output as it prints it (what an engine such as Flux's applies). */
export function kustomizeBuildText(dir: string): string {
  return execFileSync(kustomizeBinary(), ['build', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The objects of a multi-document YAML text, in order. */
export function manifestsOf(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

/** `kustomize build <dir>`, as Argo CD and Flux's kustomize-controller build a kustomization: its objects in output order. */
export function kustomizeBuild(dir: string): KubeObject[] {
  return manifestsOf(kustomizeBuildText(dir));
}
