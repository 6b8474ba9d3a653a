import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { keptUntilRelease, withOwner } from '../../src/core/ownership';
import { KubeObject } from '../../src/kube/objects';
import { eventually } from '../../src/testing/cluster';
import { deleteWithPropagation, gone, whenReady } from '../support/resources';
import { childrenOf, defineTestKind, serveTestKindForSuite } from '../../src/testing/test-kind';

const GROUP = 'lingering.test.cdk8s-operators.io';
/** Set on a Lingering being deleted, it lets the finalizer go (the last step a real kind would wait for). */
const DONE = 'lingering.test.cdk8s-operators.io/done';

const configMap = (scope: Construct, name: string, annotations: Record<string, string> = {}) =>
  new ApiObject(scope, name, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, annotations }, data: { a: 'b' } });

/**
 * A kind with a last step before its finalizer: `<name>-server` is kept until the release from
 * size 2 on (marked by an annotation its predicate reads), `<name>-tree` always has an owner,
 * and from size 3 on `<name>-extra` is rendered and kept too.
 */
const lingeringKind = defineTestKind('Lingering', {
  manages: [childrenOf('', 'configmaps')],
  finalizer: `${GROUP}/last-step`,
  render: (scope, resource) => {
    configMap(scope, `${resource.metadata.name}-server`, resource.spec.size >= 2 ? { [`${GROUP}/kept`]: 'true' } : {});
    configMap(scope, `${resource.metadata.name}-tree`);
    if (resource.spec.size >= 3) configMap(scope, `${resource.metadata.name}-extra`, { [`${GROUP}/kept`]: 'true' });
  },
  controller: {
    keptUntilRelease: (child) => (child.metadata.annotations as Record<string, string> | undefined)?.[`${GROUP}/kept`] === 'true',
    mayRelease: (resource) => (resource.metadata.annotations?.[DONE] === 'true' ? true : 'the last step'),
  },
});

describe('children kept until the finalizer is released', () => {
  const served = serveTestKindForSuite(lingeringKind, 'kept-until-release');
  const object = (name: string, size: number): KubeObject => ({ apiVersion: `${GROUP}/v1`, kind: 'Lingering', metadata: { name, namespace: served.namespace }, spec: { size } });
  const cm = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: served.namespace } });
  const ownersOf = async (name: string) => (await served.objects.get<KubeObject>(cm(name))).metadata.ownerReferences as { kind: string }[] | undefined;
  const finish = (name: string) =>
    served.objects.rest.request('PATCH', `/apis/${GROUP}/v1/namespaces/${served.namespace}/lingerings/${name}`, { body: { metadata: { annotations: { [DONE]: 'true' } } }, contentType: 'application/merge-patch+json' });

  // Foreground is proven end to end in test/e2e/database-foreground.test.ts, which first waits until the
  // garbage collector follows the kind: on this shared control plane it did not act on a new test CRD within 180 s in one run.
  for (const policy of ['Background'] as const) {
    it(`keeps them through a ${policy.toLowerCase()} deletion until the release, which removes them`, async () => {
      const name = policy.toLowerCase();
      await served.objects.apply(object(name, 2));
      await whenReady(served.objects, object(name, 2), 'True');
      expect(await ownersOf(`${name}-server`)).toBeUndefined();
      expect((await ownersOf(`${name}-tree`))?.map((r) => r.kind)).toEqual(['Lingering']);

      await deleteWithPropagation(served.objects, object(name, 2), policy);
      await eventually('the object to wait for its last step', async () => ((await served.objects.get<KubeObject & { status?: { conditions?: { reason: string }[] } }>(object(name, 2))).status?.conditions?.[0]?.reason === 'Finalizing' ? true : undefined));
      expect(await gone(served.objects, cm(`${name}-server`))).toBe(false);

      await finish(name);
      await eventually('the object to go', async () => ((await gone(served.objects, object(name, 2))) ? true : undefined));
      await eventually('the kept child to be removed', async () => ((await gone(served.objects, cm(`${name}-server`))) ? true : undefined));
      await eventually('the owned child to go', async () => ((await gone(served.objects, cm(`${name}-tree`))) ? true : undefined));
    }, 240_000);
  }

  it('prunes no kept child while the last step is pending, even one no longer rendered; the release removes it', async () => {
    type Observed = KubeObject & { status?: { observedGeneration?: number; conditions?: { reason: string }[] } };
    await served.objects.apply(object('shrunk', 3));
    await whenReady(served.objects, object('shrunk', 3), 'True');
    await deleteWithPropagation(served.objects, object('shrunk', 3), 'Background');
    // Scaled down as it is deleted: the render drops the extra child, which must wait for the last step.
    const shrunk = await served.objects.apply<Observed>(object('shrunk', 2));
    const generation = shrunk.metadata.generation as number;
    await eventually('the scale-down to be reconciled', async () => ((await served.objects.get<Observed>(object('shrunk', 2))).status?.observedGeneration === generation ? true : undefined));
    expect(await gone(served.objects, cm('shrunk-extra'))).toBe(false);

    await finish('shrunk');
    await eventually('the object to go', async () => ((await gone(served.objects, object('shrunk', 2))) ? true : undefined));
    await eventually('the kept child no longer rendered to be removed', async () => ((await gone(served.objects, cm('shrunk-extra'))) ? true : undefined));
  });

  it('takes the ownerReference off a child that already has one on its next apply (server-side apply drops what it no longer sets)', async () => {
    await served.objects.apply(object('grown', 1));
    await whenReady(served.objects, object('grown', 1), 'True');
    expect((await ownersOf('grown-server'))?.map((r) => r.kind)).toEqual(['Lingering']);
    await served.objects.apply(object('grown', 2));
    await eventually('the ownerReference to go', async () => ((await ownersOf('grown-server')) === undefined ? true : undefined));
    expect((await ownersOf('grown-tree'))?.map((r) => r.kind)).toEqual(['Lingering']);
  });

  it('is refused, naming the kind and what it needs, without a finalizer and mayRelease', () => {
    const kept = { metadata: { name: 'x', namespace: 'y' } };
    const noFinalizer = defineTestKind('LingeringAlone', { render: () => undefined, controller: { keptUntilRelease: () => true } });
    const owner = { metadata: { name: 'o', namespace: 'y', uid: 'u' } };
    expect(() => withOwner(kept, owner, noFinalizer)).toThrow('LingeringAlone: controller.keptUntilRelease needs a finalizer and controller.mayRelease, which wait for the children it keeps');
    expect(keptUntilRelease(lingeringKind, kept)).toBe(false);
  });
});
