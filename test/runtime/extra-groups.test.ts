import { ApiObject } from 'cdk8s';
import { servedIdentities } from '../../src/core/groups';
import { MANAGED_BY_LABEL, OWNER_KIND_LABEL, OWNER_NAME_LABEL } from '../../src/core/kit/names';
import { KubeObject } from '../../src/kube/objects';
import { eventually } from '../../src/testing/cluster';
import { eventsIn, gone, whenReady } from '../support/resources';
import { childrenOf, defineTestKind, installTestCrd, serveTestKindForSuite, TestSpec } from '../../src/testing/test-kind';
import { KindDefinition } from '../../src/core/contract/kind';

const MAIN = 'twin.test.cdk8s-operators.io';
const EXTRA = 'twin.other.cdk8s-operators.io';

/** A kind served in two groups, with a finalizer: its child is a ConfigMap named after it that says which object rendered it. */
function twinKind(kind: string, main: string, extra: string): KindDefinition<TestSpec> {
  return defineTestKind(kind, {
    group: main,
    extraGroups: [extra],
    finalizer: `${main}/cleanup`,
    manages: [childrenOf('', 'configmaps')],
    render: (scope, resource) =>
      void new ApiObject(scope, 'config', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${resource.metadata.name}-config` },
        data: { owner: resource.apiVersion, size: String(resource.spec.size) },
      }),
  });
}

type ConfigMap = KubeObject & { data?: Record<string, string>; metadata: { labels?: Record<string, string> } };

describe('a kind served under two API groups', () => {
  const kind = twinKind('Twin', MAIN, EXTRA);
  const served = serveTestKindForSuite(kind, 'extra-groups');
  const object = (group: string, name: string, size = 1) => ({ apiVersion: `${group}/v1`, kind: 'Twin', metadata: { name, namespace: served.namespace }, spec: { size } });
  const configMap = (name: string) => served.objects.find<ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: served.namespace } });

  it('serves an object of each group alike: Ready, with its child owned by it and labelled with its group', async () => {
    await served.objects.apply(object(MAIN, 'alpha'));
    await served.objects.apply(object(EXTRA, 'beta'));
    await whenReady(served.objects, object(MAIN, 'alpha'), 'True');
    await whenReady(served.objects, object(EXTRA, 'beta'), 'True');

    const alpha = (await configMap('alpha-config'))!;
    const beta = (await configMap('beta-config'))!;
    expect(alpha.data?.owner).toBe(`${MAIN}/v1`);
    expect(beta.data?.owner).toBe(`${EXTRA}/v1`);
    expect(alpha.metadata.ownerReferences).toEqual([expect.objectContaining({ apiVersion: `${MAIN}/v1`, kind: 'Twin', name: 'alpha', controller: true })]);
    expect(beta.metadata.ownerReferences).toEqual([expect.objectContaining({ apiVersion: `${EXTRA}/v1`, kind: 'Twin', name: 'beta', controller: true })]);
    // The main group's children keep the label they always had; the extra group's name its group.
    expect(alpha.metadata.labels?.[OWNER_KIND_LABEL]).toBe(`twins.${MAIN}`);
    expect(beta.metadata.labels?.[OWNER_KIND_LABEL]).toBe(`twins.${EXTRA}`);
    // Each holds the finalizer of the kind, in its own group.
    for (const o of [object(MAIN, 'alpha'), object(EXTRA, 'beta')]) expect((await served.objects.get(o)).metadata.finalizers).toEqual([`${MAIN}/cleanup`]);
    // Both are in the kind's per-object series, and the queue's series name the kind's one controller.
    const metrics = served.metrics.render();
    for (const name of ['alpha', 'beta']) expect(metrics).toContain(`cdk8s_operators_object_condition{kind="Twin",namespace="${served.namespace}",name="${name}",type="Ready",status="True",reason="Reconciled"} 1`);
    expect(metrics.split('\n').filter((line) => line.startsWith('workqueue_depth{'))).toEqual([expect.stringContaining('controller="twin"')]);
  });

  it('follows a change of the extra group\u2019s object', async () => {
    await served.objects.apply(object(EXTRA, 'beta', 3));
    await eventually('the child to follow', async () => ((await configMap('beta-config'))?.data?.size === '3' ? true : undefined));
  });

  it('reports Conflict on the second of two same-named objects in two groups, which never takes the first\u2019s child', async () => {
    await served.objects.apply(object(MAIN, 'same'));
    await whenReady(served.objects, object(MAIN, 'same'), 'True');
    await served.objects.apply(object(EXTRA, 'same', 2));
    const second = await whenReady(served.objects, object(EXTRA, 'same'), 'False', 'Conflict');
    expect(second.status?.conditions?.[0].message).toContain(`ConfigMap ${served.namespace}/same-config`);
    // Status landed on each object of its own: the first is still Ready.
    await whenReady(served.objects, object(MAIN, 'same'), 'True');

    const child = (await configMap('same-config'))!;
    expect(child.data).toEqual({ owner: `${MAIN}/v1`, size: '1' });
    expect(child.metadata.ownerReferences).toEqual([expect.objectContaining({ apiVersion: `${MAIN}/v1`, name: 'same' })]);
    expect(child.metadata.labels?.[OWNER_KIND_LABEL]).toBe(`twins.${MAIN}`);

    // The Conflict Event is about the extra group's object, not the main one's.
    const conflict = await eventually('the Conflict Event', async () => (await eventsIn(served.objects, served.namespace)).find((e) => e.reason === 'Conflict' && e.regarding.name === 'same'));
    expect((conflict.regarding as { apiVersion?: string }).apiVersion).toBe(`${EXTRA}/v1`);
    const readyEvents = (await eventsIn(served.objects, served.namespace)).filter((e) => e.regarding.name === 'same' && e.reason !== 'Conflict');
    for (const event of readyEvents) expect((event.regarding as { apiVersion?: string }).apiVersion).toBe(`${MAIN}/v1`);
  });

  it('deletes one group\u2019s object with its children only, leaving the other\u2019s alone', async () => {
    await served.objects.delete(object(EXTRA, 'same'));
    await eventually('the extra group\u2019s object to go', async () => ((await gone(served.objects, object(EXTRA, 'same'))) ? true : undefined));
    const child = (await configMap('same-config'))!;
    expect(child.metadata.ownerReferences).toEqual([expect.objectContaining({ apiVersion: `${MAIN}/v1`, name: 'same' })]);
    await whenReady(served.objects, object(MAIN, 'same'), 'True');

    await served.objects.delete(object(EXTRA, 'beta'));
    await eventually('the extra group\u2019s object to go', async () => ((await gone(served.objects, object(EXTRA, 'beta'))) ? true : undefined));
    await eventually('its child to go', async () => ((await configMap('beta-config')) ? undefined : true));
    expect(await configMap('alpha-config')).toBeDefined();
    expect(await configMap('same-config')).toBeDefined();
  });
});

describe('a kind whose extra group\u2019s CRD is not installed yet', () => {
  const kind = twinKind('Late', 'late.test.cdk8s-operators.io', 'late.other.cdk8s-operators.io');
  const [main, extra] = servedIdentities(kind);
  const served = serveTestKindForSuite(kind, 'late-group', [main]);
  const object = (group: string, name: string) => ({ apiVersion: `${group}/v1`, kind: 'Late', metadata: { name, namespace: served.namespace }, spec: { size: 1 } });

  it('serves the main group meanwhile, and the extra group once its CRD is installed', async () => {
    await served.objects.apply(object(main.group, 'first'));
    await whenReady(served.objects, object(main.group, 'first'), 'True');
    expect(served.logLines).toContainEqual(expect.objectContaining({ msg: 'waiting for the CRD to be installed', crd: `lates.${extra.group}` }));

    await installTestCrd(extra);
    // Established is not yet discovered: the API server may answer 404 for the new group a moment longer.
    await eventually('the extra group to be discovered', () => served.objects.apply(object(extra.group, 'second')).then(() => true, () => undefined));
    await whenReady(served.objects, object(extra.group, 'second'), 'True');
    const child = await served.objects.find<ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'second-config', namespace: served.namespace } });
    expect(child?.metadata.labels).toMatchObject({ [MANAGED_BY_LABEL]: 'cdk8s-operators', [OWNER_NAME_LABEL]: 'second', [OWNER_KIND_LABEL]: `lates.${extra.group}` });
  });
});
