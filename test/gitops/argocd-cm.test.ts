import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { toolsBeforeAll } from '../support/go-tool';
import { kustomizeBinary, kustomizeBuild } from './kustomize';
import { SHIPPED_HEALTH } from './tools';

toolsBeforeAll(kustomizeBinary);

// dist/argocd/argocd-cm-health.yaml as docs/install.md tells an Argo CD user to use it: a patch in
// the kustomization of their Argo CD install, built by the real kustomize. Argo CD's
// install.yaml is not fetched (no network): a stand-in argocd-cm with settings of its own is.
describe('the Argo CD health checks as a kustomize patch of argocd-cm', () => {
  let dir: string;
  const shipped = (parse(readFileSync(SHIPPED_HEALTH, 'utf8')) as { data: Record<string, string> }).data;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'argocd-cm-'));
    copyFileSync(SHIPPED_HEALTH, join(dir, 'argocd-cm-health.yaml'));
    writeFileSync(
      join(dir, 'install.yaml'),
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: argocd-cm',
        '  labels: {app.kubernetes.io/name: argocd-cm, app.kubernetes.io/part-of: argocd}',
        'data:',
        '  url: https://argocd.example.com',
        '  resource.customizations.health.apps_Deployment: "return {status = \\"Healthy\\"}"',
        '---',
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata: {name: argocd-rbac-cm}',
        'data: {policy.default: role:readonly}',
        '',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'kustomization.yaml'), ['namespace: argocd', 'resources:', '  - install.yaml', 'patches:', '  - path: argocd-cm-health.yaml', ''].join('\n'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('adds every kind\u2019s health check and keeps Argo CD\u2019s own settings and ConfigMaps', () => {
    const built = kustomizeBuild(dir);
    expect(built.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['ConfigMap argocd/argocd-cm', 'ConfigMap argocd/argocd-rbac-cm']);
    const cm = built[0] as unknown as { data: Record<string, string>; metadata: { labels: Record<string, string> } };
    expect(Object.keys(shipped).length).toBeGreaterThanOrEqual(5);
    for (const [key, script] of Object.entries(shipped)) expect(cm.data[key]).toBe(script);
    expect(cm.data.url).toBe('https://argocd.example.com');
    expect(cm.data['resource.customizations.health.apps_Deployment']).toBe('return {status = "Healthy"}');
    expect(cm.metadata.labels['app.kubernetes.io/part-of']).toBe('argocd');
    expect(built[1]).toMatchObject({ data: { 'policy.default': 'role:readonly' } });
  });
});
