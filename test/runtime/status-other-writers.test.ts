import { KubeJson } from '../../src/core/contract/kind';
import { commonStatusProperties } from '../../src/core/kit/status';
import { s } from '../../src/schema';
import { whenReady } from '../support/resources';
import { defineTestKind, serveTestKindForSuite } from '../../src/testing/test-kind';

/**
 * A kind whose status holds a note and, under `tool`, settings another writer adds to (an
 * opaque object, which the schema does not declare field by field). At size 2 it writes the
 * note and `tool.ours`, at 1 neither the note nor `tool.ours`, only `tool.size`.
 */
const sharedKind = defineTestKind('Shared', {
  status: s.object(
    {
      ...commonStatusProperties,
      note: s.optional(s.string({ description: 'A note.' })),
      tool: s.optional(s.opaque({ description: 'What a tool reports.', reason: 'the tool writes its own fields here too' })),
    },
    { description: 'What the size says, and what the tool says.' },
  ),
  controller: { status: (resource) => (resource.spec.size > 1 ? { note: 'two', tool: { ours: 'two' } } : { tool: { size: '1' } }) },
  render: () => undefined,
});

type Shared = KubeJson & { status?: { note?: string; tool?: Record<string, string> } };

describe('a status field the kind leaves out', () => {
  const served = serveTestKindForSuite(sharedKind, 'status-other-writers');
  const object = (size: number) => ({ apiVersion: 'shared.test.cdk8s-operators.io/v1', kind: 'Shared', metadata: { name: 'shared', namespace: served.namespace }, spec: { size } });

  it('is removed when the operator wrote it, inside an opaque object too, and stays when another writer did', async () => {
    await served.objects.apply(object(2));
    await whenReady(served.objects, object(2), 'True');
    const path = `/apis/shared.test.cdk8s-operators.io/v1/namespaces/${served.namespace}/shareds/shared/status`;
    await served.objects.rest.request('PATCH', path, { body: { status: { tool: { theirs: 'kept' } } }, contentType: 'application/merge-patch+json', query: { fieldManager: 'some-tool' } });

    await served.objects.apply(object(1));
    const small = (await whenReady(served.objects, object(1), 'True')) as Shared;
    expect(small.status?.note).toBeUndefined();
    // managedFields say whose each field is, inside an opaque object too: `tool.ours` was the operator's, `tool.theirs` the tool's.
    expect(small.status?.tool).toEqual({ theirs: 'kept', size: '1' });
  });
});
