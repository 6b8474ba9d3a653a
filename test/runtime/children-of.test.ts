import { ApiObject } from 'cdk8s';
import { KubeJson } from '../../src/core/contract/kind';
import { childLabels } from '../../src/core/kit/names';
import { commonStatusProperties } from '../../src/core/kit/status';
import { s } from '../../src/schema';
import { eventually } from '../../src/testing/cluster';
import { whenReady } from '../support/resources';
import { childrenOf, defineTestKind, serveTestKindForSuite } from '../../src/testing/test-kind';

const CONFIGMAPS = { apiGroup: '', resource: 'configmaps' };
const names = s.array(s.string({ description: 'A child.' }), { description: 'Children.' });

/** What the observer found through the engine's index: all its own children, and its ConfigMaps alone. */
interface Family {
  readonly all: string[];
  readonly configMaps: string[];
}

/** A kind with a ConfigMap and a ServiceAccount per object, whose status lists the children its observer finds (`unwatched` asks for a collection it does not manage). */
const familyKind = defineTestKind('Family', {
  manages: [childrenOf('', 'configmaps', 'serviceaccounts')],
  status: s.object({ ...commonStatusProperties, children: s.optional(names), configMaps: s.optional(names) }, { description: 'The children found.' }),
  controller: {
    observer:
      ({ caches }) =>
      async (resource): Promise<Family> => {
        if (resource.metadata.name === 'unwatched') caches.childrenOf(resource, { apiGroup: 'apps', resource: 'deployments' });
        return {
          all: caches.childrenOf(resource).map((child) => `${child.kind}/${child.metadata.name}`).sort(),
          configMaps: caches.childrenOf(resource, CONFIGMAPS).map((child) => child.metadata.name).sort(),
        };
      },
    status: (_resource, observation) => ({ children: (observation as Family | undefined)?.all, configMaps: (observation as Family | undefined)?.configMaps }),
  },
  render: (scope, resource) => {
    new ApiObject(scope, 'config', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: resource.metadata.name }, data: { size: String(resource.spec.size) } });
    new ApiObject(scope, 'account', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: resource.metadata.name } });
  },
});

type FamilyObject = KubeJson & { status?: { children?: string[]; configMaps?: string[] } };

describe('an observer finding its own children', () => {
  const served = serveTestKindForSuite(familyKind, 'children-of');
  const object = (name: string) => ({ apiVersion: 'family.test.cdk8s-operators.io/v1', kind: 'Family', metadata: { name, namespace: served.namespace }, spec: { size: 1 } });
  const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: served.namespace } });
  const found = (name: string, children: string[], configMaps: string[]) =>
    eventually(`${name}'s status to list ${children.join(', ')}`, async () => {
      const status = (await served.objects.get<FamilyObject>(object(name))).status;
      return JSON.stringify([status?.children, status?.configMaps]) === JSON.stringify([children, configMaps]) ? status : undefined;
    });

  it('gets them from the engine\u2019s index by owner, of one collection or all, never another owner\u2019s nor one another object controls', async () => {
    // Made from a template of ours by another controller (as a CronJob's Job): our labels, its maker the controller.
    const maker = await served.objects.create<KubeJson>({ ...configMap('maker'), data: {} });
    const ownerRef = { apiVersion: 'v1', kind: 'ConfigMap', name: 'maker', uid: maker.metadata.uid!, controller: true };
    const labels = childLabels(familyKind, object('a') as never);
    await served.objects.create({ ...configMap('a-made'), metadata: { ...configMap('a-made').metadata, labels, ownerReferences: [ownerRef] }, data: {} });

    await served.objects.apply(object('a'));
    await served.objects.apply(object('b'));
    await found('a', ['ConfigMap/a', 'ServiceAccount/a'], ['a']);
    await found('b', ['ConfigMap/b', 'ServiceAccount/b'], ['b']);
  });

  it('refuses a collection the kind does not manage, naming it', async () => {
    await served.objects.apply(object('unwatched'));
    const failed = await whenReady(served.objects, object('unwatched'), 'False', 'ObservationFailed');
    expect(failed.status?.conditions?.find((c) => c.type === 'Ready')?.message).toBe('apps/deployments is not a child collection of this kind: declare it in manages');
  });
});
