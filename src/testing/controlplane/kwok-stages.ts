import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

/** A Pod carrying this label with the value "true" fails on the fake node (kwok-stages/pod-fail.yaml). */
export const FAIL_LABEL = 'test.cdk8s-operators.io/fail';

/** kwok's own stages the control plane runs, as shipped beside the kwok binary by build.sh. */
const KWOK_STAGES = ['node-initialize', 'pod-create', 'pod-ready', 'pod-complete', 'pod-delete'];

/** kwok's stages that would otherwise race pod-fail for a labelled Pod (kwok picks among matches at random, by weight). */
const YIELDING_STAGES = new Set(['pod-ready', 'pod-complete']);

interface Stage {
  spec: { selector: { matchExpressions: { key: string; operator: string; values?: string[] }[] } };
}

/**
 * Writes the stage configs kwok runs with into `dir` and returns their paths: kwok's own,
 * with pod-ready and pod-complete told to leave a Pod labelled to fail alone, and ours,
 * pod-fail, so a labelled Pod always fails and never becomes Ready or Succeeded.
 */
export function writeKwokStages(kwokStagesDir: string, assets: string, dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const files = KWOK_STAGES.map((name) => {
    const shipped = join(kwokStagesDir, `${name}.yaml`);
    if (!YIELDING_STAGES.has(name)) return shipped;
    const stage = parse(readFileSync(shipped, 'utf8')) as Stage;
    stage.spec.selector.matchExpressions.push({ key: `.metadata.labels["${FAIL_LABEL}"]`, operator: 'NotIn', values: ['true'] });
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, stringify(stage));
    return file;
  });
  return [...files, join(assets, 'kwok-stages', 'pod-fail.yaml')];
}
