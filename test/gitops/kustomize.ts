import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { KubeObject } from '../../src/kube/objects';

let bin: string | undefined;

/** The real kustomize, built on first use by kustomize/build.sh (seconds when the tool cache is cold). */
export function kustomizeBinary(): string {
  if (!bin) {
    const output = execFileSync('bash', [join(__dirname, 'kustomize', 'build.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    bin = join(output.trim().split('\n').at(-1)!, 'kustomize');
  }
  return bin;
}

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
