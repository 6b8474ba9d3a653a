import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { crdManifest } from '../../src/bundle/crd';
import { s } from '../../src/schema';
import * as k8s from '@kubernetes/client-node';
import { suiteNamespace, testKubeConfig } from '../../src/testing/cluster';
import { testObjects } from '../support/manifests';
import { defineTestKind, installTestCrd } from '../../src/testing/test-kind';

// `cdk8s-operators diff --dist` shows, before a merge, whether the CRDs it would apply break
// what the cluster's users stored: the compatibility check against the CRDs the cluster serves.
const bin = join(__dirname, '..', '..', 'bin', 'cdk8s-operators');

const kindWith = (modes: readonly string[], extra: Record<string, ReturnType<typeof s.optional>> = {}) =>
  defineTestKind('Reviewed', {
    render: () => undefined,
    spec: s.object({ size: s.integer({ description: 'How many.', minimum: 1 }), mode: s.optional(s.enum(modes, { description: 'How fast.' })), ...extra }, { description: 'What to render.' }) as never,
  });

/** A synth's output folder holding one CRD, as `--dist` reads it. */
function distWith(crd: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'diff-crds-'));
  writeFileSync(join(dir, 'kustomization.yaml'), stringify({ resources: ['0-crds.k8s.yaml'] }));
  writeFileSync(join(dir, '0-crds.k8s.yaml'), stringify(crd));
  return dir;
}

function diff(dist: string, kubeconfig = process.env.TEST_KUBECONFIG) {
  const result = spawnSync(process.execPath, [bin, 'diff', '--dist', dist], { encoding: 'utf8', env: { ...process.env, KUBECONFIG: kubeconfig } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr.trim() };
}

describe('cdk8s-operators diff and the CRDs it would change', () => {
  const namespace = suiteNamespace('diff-crds');
  const released = kindWith(['fast', 'slow']);
  beforeAll(() => installTestCrd(released));
  const name = crdManifest(released).metadata.name;

  it('shows a CRD that narrows an enum as breaking, naming the kind, version, field and rule', () => {
    const { code, stdout, stderr } = diff(distWith(crdManifest(kindWith(['fast']))));
    expect({ code, stderr }).toEqual({ code: 1, stderr: '' });
    expect(stdout).toContain(`CRDs (compatibility with the cluster\u2019s, docs/evolving-a-kind.md):\n  ${name}: changed, BREAKING (1)\n      Reviewed v1 spec.mode: enum narrowed: ["slow"] no longer allowed (rule enum)\n`);
  });

  it('shows a CRD that only widens as compatible, and leaves out the CRDs it would not change', () => {
    const widened = diff(distWith(crdManifest(kindWith(['fast', 'slow', 'steady'], { note: s.optional(s.string({ description: 'A note.' })) }))));
    expect(widened).toMatchObject({ code: 1, stderr: '' });
    expect(widened.stdout).toContain(`  ${name}: changed, compatible\n`);
    const same = diff(distWith(crdManifest(released)));
    expect(same).toMatchObject({ code: 0, stderr: '' });
    expect(same.stdout).toContain('CRDs (compatibility with the cluster\u2019s, docs/evolving-a-kind.md):\n  none changed\n');
  });

  it('shows a CRD the cluster does not have yet as created', () => {
    const other = { ...crdManifest(released), metadata: { name: `others.${released.group}` } } as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    other.spec = { ...other.spec, names: { ...other.spec.names, kind: 'Other', plural: 'others', singular: 'other', listKind: 'OtherList' } };
    expect(diff(distWith(other)).stdout).toContain(`  others.${released.group}: created\n`);
  });

  it('notes a CRD an identity may not read, and still diffs', async () => {
    // A ServiceAccount with no role at all: it may not read CRDs (cluster-scoped, in no built-in role but cluster-admin).
    const objects = testObjects();
    await objects.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'nobody', namespace: namespace.name } });
    const { status } = await objects.rest.request<{ status: { token: string } }>('POST', `/api/v1/namespaces/${namespace.name}/serviceaccounts/nobody/token`, {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } },
    });
    const cluster = testKubeConfig().getCurrentCluster()!;
    const config = new k8s.KubeConfig();
    config.loadFromOptions({ clusters: [cluster], users: [{ name: 'nobody', token: status.token }], contexts: [{ name: 'nobody', cluster: cluster.name, user: 'nobody' }], currentContext: 'nobody' });
    const kubeconfig = join(mkdtempSync(join(tmpdir(), 'diff-crds-')), 'nobody.kubeconfig');
    writeFileSync(kubeconfig, config.exportConfig(), { mode: 0o600 });
    const { code, stdout, stderr } = diff(distWith(crdManifest(kindWith(['fast']))), kubeconfig);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain(`  none changed\n  note: cannot read CustomResourceDefinition ${name} (forbidden), so its compatibility verdict is not shown\n`);
  });
});
