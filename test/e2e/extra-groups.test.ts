import * as k8s from '@kubernetes/client-node';
import { join } from 'node:path';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { eventually } from '../../src/testing/cluster';
import { ControllerProcess, startController } from '../support/controller-process';
import { PrivateCluster, startPrivateCluster } from '../support/private-cluster';
import { whenReady } from '../support/resources';
import { startStorageProvisioner, StorageProvisioner } from '../support/storage-provisioner';

// The originals' manifests in the groups their users wrote, applied as written and served by
// the controller from source: CopyratorRule in flant.com, the SampleDB in stable.imaginedata.co.
// A private control plane: the rule copies into every namespace, the Database runs pods and claims.
let cluster: PrivateCluster;
let objects: ObjectClient;
let provisioner: StorageProvisioner;
let controller: ControllerProcess;

type Json = KubeObject & { spec?: any; status?: any; data?: Record<string, string> }; // eslint-disable-line @typescript-eslint/no-explicit-any
type ApiResource = { name: string; shortNames?: string[]; categories?: string[] };

/** The original copyrator's rule as its code, chart and article wrote it: group flant.com, fields at the top level. */
const originalRule: KubeObject = {
  apiVersion: 'flant.com/v1',
  kind: 'CopyratorRule',
  metadata: { name: 'copyrator-sample', namespace: 'default' },
  ruleType: 'configmap',
  selector: { copyrator: 'true' },
  namespace: 'default',
} as KubeObject;

/** The SampleDB post's own sample object (its transcript: `database.stable.imaginedata.co/my-first-crd-database created`), in the namespace kubectl gives it. */
const originalDatabase: KubeObject = {
  apiVersion: 'stable.imaginedata.co/v1',
  kind: 'Database',
  metadata: { name: 'my-first-crd-database', namespace: 'default' },
  spec: { name: 'name-of-database', port: 5432, 'storage-size': '50G', image: 'super-great-docker-image', replicas: 3 },
} as KubeObject;

beforeAll(async () => {
  cluster = await startPrivateCluster('e2e-extra-groups', 'team-b');
  objects = cluster.objects;
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(cluster.plane.kubeconfig);
  provisioner = await startStorageProvisioner(kc);
  // The administrator step that lets the original rule in default copy cluster-wide (docs/kinds/copyrator.md).
  const args = ['--kubeconfig', cluster.plane.kubeconfig, '--kinds', 'copyrators,databases', '--leader-election=false', '--http-port', '0', '--copyrator-trusted-namespaces=default'];
  controller = startController(args, join(cluster.dir, 'controller.log'));
}, 120_000);

afterAll(async () => {
  await controller?.stop();
  await provisioner?.stop().catch(() => undefined);
  await cluster?.stop();
});

describe('the originals\u2019 groups', () => {
  it('accept the original copyrator rule in flant.com/v1, which copies and becomes Ready', async () => {
    await objects.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared', namespace: 'default', labels: { copyrator: 'true' } }, data: { a: '1' } } as KubeObject);
    await objects.apply(originalRule);
    const ready = await whenReady(objects, originalRule, 'True', undefined, controller.logFile);
    expect(ready.status?.copies).toBeGreaterThan(0);
    const copy = await eventually('the copy in team-b', () => objects.find<Json>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared', namespace: 'team-b' } }));
    expect(copy.data).toEqual({ a: '1' });
    expect((copy.metadata.labels as Record<string, string>)['cdk8s-operators.io/owner-kind']).toBe('copyrators.flant.com');
  });

  it('accept the SampleDB\u2019s own sample in stable.imaginedata.co/v1, which becomes Ready with its children', async () => {
    await objects.apply(originalDatabase);
    const ready = await whenReady(objects, originalDatabase, 'True', 'Ready', controller.logFile, 180_000);
    expect(ready.status).toMatchObject({ phase: 'Ready', readyReplicas: 3 });
    const statefulSet = await objects.get<Json>({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'my-first-crd-database', namespace: 'default' } });
    expect(statefulSet.spec.replicas).toBe(1);
    const init = await objects.get<Json>({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'my-first-crd-database-init', namespace: 'default' } });
    // Owned in its group's hub version, v2, which the controller reads (v1 is converted from it); the
    // StatefulSet has no owner, as the final snapshot needs it (src/kinds/database/kept.ts).
    expect(init.metadata.ownerReferences).toEqual([expect.objectContaining({ apiVersion: 'stable.imaginedata.co/v2', kind: 'Database', name: 'my-first-crd-database' })]);
    expect(init.status?.conditions).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'Complete', status: 'True' })]));
  });

  it('are listed by the all-operators category beside the main groups (as kubectl get all-operators -A expands it)', async () => {
    await objects.apply({ apiVersion: 'test.com/v1', kind: 'CopyratorRule', metadata: { name: 'main-group-rule', namespace: 'team-b' }, spec: { ruleType: 'configmap', selector: { other: 'x' } } } as KubeObject);
    // kubectl expands a category to every resource whose discovery lists it, in every group.
    const groups = (await objects.rest.request<{ groups: { name: string; preferredVersion: { groupVersion: string } }[] }>('GET', '/apis')).groups;
    const listed: string[] = [];
    for (const group of groups) {
      const resources = (await objects.rest.request<{ resources: ApiResource[] }>('GET', `/apis/${group.preferredVersion.groupVersion}`)).resources;
      for (const resource of resources.filter((r) => r.categories?.includes('all-operators'))) {
        // A CRD just established may answer 429 (its storage is initializing) for a moment.
        const path = `/apis/${group.preferredVersion.groupVersion}/${resource.name}`;
        const items = await eventually(`a list of ${path}`, () => objects.rest.request<{ items: KubeObject[] }>('GET', path).then((list) => list.items, () => undefined));
        listed.push(...items.map((o) => `${resource.name}.${group.name} ${o.metadata.namespace}/${o.metadata.name}`));
      }
    }
    expect(listed).toEqual(
      expect.arrayContaining([
        'copyrators.flant.com default/copyrator-sample',
        'copyrators.test.com team-b/main-group-rule',
        'databases.stable.imaginedata.co default/my-first-crd-database',
      ]),
    );
  });

  it('carry the short names only in the main group, since kubectl resolves a bare name shared by two groups to the one discovery lists first', async () => {
    const resource = async (groupVersion: string, name: string) =>
      (await objects.rest.request<{ resources: ApiResource[] }>('GET', `/apis/${groupVersion}`)).resources.find((r) => r.name === name)!;
    expect((await resource('test.com/v1', 'copyrators')).shortNames).toEqual(['copyr']);
    expect((await resource('flant.com/v1', 'copyrators')).shortNames).toBeUndefined();
    expect((await resource('stable.imaginedata.com/v1', 'databases')).shortNames).toEqual(['db']);
    expect((await resource('stable.imaginedata.co/v1', 'databases')).shortNames).toBeUndefined();
    // Discovery lists CRD groups alphabetically: a bare `kubectl get copyrators` or `databases` means the extra group.
    const order = (await objects.rest.request<{ groups: { name: string }[] }>('GET', '/apis')).groups.map((g) => g.name);
    expect(order.indexOf('flant.com')).toBeLessThan(order.indexOf('test.com'));
    expect(order.indexOf('stable.imaginedata.co')).toBeLessThan(order.indexOf('stable.imaginedata.com'));
  });
});
