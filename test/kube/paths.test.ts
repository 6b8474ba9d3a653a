import { groupVersionPath, resourcePath } from '../../src/kube/paths';

describe('API paths: one place builds them', () => {
  it('puts the core group under /api and every other group under /apis', () => {
    expect(groupVersionPath('v1')).toBe('/api/v1');
    expect(groupVersionPath('apps/v1')).toBe('/apis/apps/v1');
  });

  it.each([
    ['a namespaced object', { namespace: 'team-a', name: 'web' }, '/apis/apps/v1/namespaces/team-a/deployments/web'],
    ['a namespace\u2019s collection', { namespace: 'team-a' }, '/apis/apps/v1/namespaces/team-a/deployments'],
    ['the collection across namespaces', {}, '/apis/apps/v1/deployments'],
    ['a cluster-scoped object', { name: 'web' }, '/apis/apps/v1/deployments/web'],
  ])('gives %s its path', (_what, scope, path) => {
    expect(resourcePath({ groupVersion: 'apps/v1', resource: 'deployments' }, scope)).toBe(path);
  });

  it('encodes each name, so that no name reaches another path', () => {
    expect(resourcePath({ groupVersion: 'v1', resource: 'configmaps' }, { namespace: 'a/b', name: '../x?y' })).toBe('/api/v1/namespaces/a%2Fb/configmaps/..%2Fx%3Fy');
  });
});
