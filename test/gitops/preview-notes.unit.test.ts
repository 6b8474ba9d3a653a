import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { AnyKind, CustomResource } from '../../src/core/contract/kind';
import { checkDeclared, scratchChart } from '../../src/gitops/instances';
import { previewNotes } from '../../src/gitops/preview-notes';
import { KINDS } from '../../src/kinds';
import { exampleInstances, previews } from '../../src/app';
import { defineTestKind, TestSpec } from '../../src/testing/test-kind';

// synth's previews of a kind whose children come from an observation: rendered with the sample
// observation the kind declares, or said to be without one; a kind without an observer is not mentioned.

interface Runs {
  readonly runs: readonly string[];
}
/** One ConfigMap per observed run: nothing at all without an observation. */
const renderRuns = (scope: Construct, resource: CustomResource<TestSpec>, observation?: unknown) => {
  for (const run of (observation as Runs | undefined)?.runs ?? []) new ApiObject(scope, run, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${resource.metadata.name}-${run}` }, data: { run } });
};
const observer = () => async () => ({ runs: [] });
const sampled = defineTestKind('Sampled', { render: renderRuns, controller: { observer, sampleObservation: (resource) => ({ runs: Array.from({ length: resource.spec.size }, (_, i) => `run-${i}`) }) } }) as unknown as AnyKind;
const unsampled = defineTestKind('Unsampled', { render: renderRuns, controller: { observer } }) as unknown as AnyKind;
const unobserving = defineTestKind('Unobserving', { render: (scope, resource) => void new ApiObject(scope, 'one', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: resource.metadata.name } }) }) as unknown as AnyKind;

function declare(...objects: [AnyKind, string][]) {
  const chart = scratchChart();
  const declared = objects.map(([kind, name], n) => ({ object: new ApiObject(chart, `o${n}`, { apiVersion: `${kind.group}/v1`, kind: kind.kind, metadata: { name, namespace: 'team-a' }, spec: { size: 2 } }), where: `test (object ${n})` }));
  return checkDeclared(declared, [sampled, unsampled, unobserving], [], { withSample: true }).instances;
}

it('renders the preview of a kind with a sample observation with it, and says so in the file', () => {
  const instances = declare([sampled, 'nightly']);
  expect(instances[0].children.map((c) => c.metadata.name)).toEqual(['nightly-run-0', 'nightly-run-1']);
  const file = previews(instances).get('team-a/sampleds.nightly.yaml')!;
  expect(file.split('\n')[0]).toBe("# Rendered with Sampled's sample observation (sampleObservation), not one the controller made.");
  expect(previewNotes(instances)).toEqual([]);
});

it('says, once per kind, that a kind with an observer and no sample observation is previewed without one', () => {
  const instances = declare([unsampled, 'a'], [unsampled, 'b'], [unobserving, 'c']);
  expect(instances[0].children).toEqual([]);
  expect(previewNotes(instances)).toEqual([
    'Unsampled has an observer but declares no sampleObservation: the preview of its 2 resources (preview/ of the output) is rendered without an observation, and may lack children the controller makes (docs/adding-a-kind.md#previews-of-kinds-that-observe)',
  ]);
  expect(previews(instances).get('team-a/unobservings.c.yaml')).not.toMatch(/^#/);
});

describe('the product\u2019s kinds', () => {
  const examples = exampleInstances(KINDS);

  it('each with an observer declares a sample observation, so synth has no preview to warn of', () => {
    expect(KINDS.filter((kind) => kind.controller?.observer && !kind.controller.sampleObservation).map((kind) => kind.kind)).toEqual([]);
    expect(previewNotes(examples)).toEqual([]);
    expect(examples.filter((example) => example.kind.controller?.observer).every((example) => example.sampled)).toBe(true);
  });
});
