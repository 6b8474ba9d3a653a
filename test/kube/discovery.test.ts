import { collectionPath, Discovery } from '../../src/kube/discovery';
import { KubeRest, RequestOptions } from '../../src/kube/rest';
import { testKubeConfig } from '../../src/testing/cluster';

/** A KubeRest that counts the discovery requests it sends. */
class CountingRest extends KubeRest {
  readonly paths: string[] = [];

  override request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<T> {
    this.paths.push(path);
    return super.request<T>(method, path, options);
  }
}

describe('Discovery: one cache for collections by group and resource, and objects by apiVersion and kind', () => {
  it('answers both questions from one request per group and group version', async () => {
    const rest = new CountingRest(testKubeConfig());
    const discovery = new Discovery(rest);
    const collection = await discovery.resolve('apps', 'deployments');
    expect(collection).toMatchObject({ groupVersion: 'apps/v1', kind: 'Deployment', namespaced: true });
    expect(collectionPath(collection!, 'ns')).toBe('/apis/apps/v1/namespaces/ns/deployments');
    expect(collectionPath(collection!)).toBe('/apis/apps/v1/deployments');
    expect(await discovery.objectPath({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'ns' } })).toBe('/apis/apps/v1/namespaces/ns/deployments/web');
    expect(await discovery.objectPath({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } })).toBe('/api/v1/namespaces/ns');
    expect(await discovery.resolve('', 'configmaps')).toMatchObject({ groupVersion: 'v1', kind: 'ConfigMap' });
    // A cluster-scoped collection has one path, whatever namespace is asked for.
    expect(collectionPath((await discovery.resolve('', 'namespaces'))!, 'ns', 'ns')).toBe('/api/v1/namespaces/ns');
    expect(await discovery.resolve('apps', 'no-such-things')).toBeUndefined();
    expect(rest.paths).toEqual(['/apis/apps', '/apis/apps/v1', '/api/v1']);
  });

  it('asks again for a kind it did not find, as its CRD may be installed by then', async () => {
    const rest = new CountingRest(testKubeConfig());
    const discovery = new Discovery(rest);
    const missing = { apiVersion: 'v1', kind: 'NoSuchKind', metadata: { name: 'x' } };
    await expect(discovery.objectPath(missing)).rejects.toThrow('the API server does not serve kind NoSuchKind in v1');
    await expect(discovery.objectPath(missing)).rejects.toThrow();
    expect(rest.paths).toEqual(['/api/v1', '/api/v1']);
  });
});
