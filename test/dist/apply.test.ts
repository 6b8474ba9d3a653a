import { join } from 'node:path';
import { readdirSync, statSync } from 'node:fs';
import { KubeObject } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { helmBinary } from '../helm/helm';
import { testKubeConfig } from '../../src/testing/cluster';
import { toolsBeforeAll } from '../support/go-tool';
import { DIST, installCrds, loadHelmTemplate, loadYaml, testObjects } from '../support/manifests';

toolsBeforeAll(helmBinary);

const objects = testObjects();
const distFiles = ['0-crds.k8s.yaml', '1-operator.k8s.yaml', '2-instances.k8s.yaml'];
/** preview/<namespace>/<plural>.<name>.yaml */
const previewFiles = readdirSync(join(DIST, 'preview')).flatMap((dir) =>
  statSync(join(DIST, 'preview', dir)).isDirectory() ? readdirSync(join(DIST, 'preview', dir)).map((f) => join('preview', dir, f)) : [join('preview', dir)],
);
const helmTemplates = readdirSync(join(DIST, 'helm', 'templates')).filter((f) => f.endsWith('.yaml')).map((f) => join('helm', 'templates', f));
/** A template that renders nothing by default is rendered with the value that turns it on. */
const TEMPLATE_VALUES: Record<string, string[]> = { [join('helm', 'templates', 'monitoring.yaml')]: ['--set', 'monitoring.enabled=true'] };
/**
 * The Prometheus Operator's kinds (ServiceMonitor, PrometheusRule): their CRDs are not on this
 * control plane and cannot be fetched here, so those objects are checked by test/monitoring/
 * (their shape, promtool, a real Prometheus running the rules) instead of by a dry-run.
 */
const needsPrometheusOperator = (o: KubeObject) => o.apiVersion.startsWith('monitoring.coreos.com/');

describe('dist/ on a real API server', () => {
  beforeAll(async () => {
    await installCrds(objects);
    // A dry run persists nothing, so namespaced objects need their namespaces to exist for real:
    // those dist/ declares (the operator's, and the team's in 2-instances.k8s.yaml).
    const declared = distFiles.flatMap((file) => loadYaml(join(DIST, file)).filter((o) => o.kind === 'Namespace'));
    for (const ns of declared) await objects.apply(ns);
    // And those only a preview names: a CopyratorRule's sampled copies go into another team's namespace.
    const previewed = new Set(previewFiles.flatMap((file) => loadYaml(join(DIST, file)).flatMap((o) => o.metadata.namespace ?? [])));
    for (const name of previewed) if (!declared.some((ns) => ns.metadata.name === name)) await objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } } as KubeObject);
  });

  it.each([...distFiles, ...previewFiles, ...helmTemplates])('accepts every object of %s in a server-side dry-run apply', async (file) => {
    const manifests = file.startsWith('helm/templates/') ? loadHelmTemplate(join(DIST, file), ...(TEMPLATE_VALUES[file] ?? [])) : loadYaml(join(DIST, file));
    expect(manifests.length).toBeGreaterThan(0);
    for (const manifest of manifests.filter((o) => !needsPrometheusOperator(o))) {
      await expect(objects.apply(manifest, { dryRun: true }).then((o) => `${o.kind}/${o.metadata.name}`)).resolves.toBe(`${manifest.kind}/${manifest.metadata.name}`);
    }
  });
});

describe('the controller\u2019s RBAC, asked of the API server\u2019s own authorizer', () => {
  const rest = new KubeRest(testKubeConfig());
  const user = 'system:serviceaccount:cdk8s-operators:controller';
  const allowed = async (verb: string, group: string, resource: string, namespace?: string, subresource?: string, name?: string) => {
    const review = await rest.request<{ status: { allowed: boolean } }>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user, groups: ['system:serviceaccounts', 'system:serviceaccounts:cdk8s-operators', 'system:authenticated'], resourceAttributes: { verb, group, resource, namespace, subresource, name } },
      },
    });
    return review.status.allowed;
  };

  beforeAll(async () => {
    const rbac = loadYaml(join(DIST, '1-operator.k8s.yaml')).filter((o: KubeObject) => /Role|Namespace|ServiceAccount/.test(o.kind));
    for (const object of rbac) await objects.apply(object);
  });

  it.each([
    ['patch', 'operators.brennerm.github.io', 'exchangerates', 'team-a', 'status', undefined],
    ['watch', 'operators.brennerm.github.io', 'exchangerates', undefined, undefined, undefined],
    ['create', '', 'configmaps', 'team-a', undefined, undefined],
    ['create', '', 'events', 'team-a', undefined, undefined],
    ['list', 'apiextensions.k8s.io', 'customresourcedefinitions', undefined, undefined, undefined],
    ['update', 'coordination.k8s.io', 'leases', 'cdk8s-operators', undefined, 'cdk8s-operators-leader'],
  ])('allows %s on %s %s', async (verb, group, resource, namespace, subresource, name) => {
    await expect(allowed(verb, group, resource, namespace, subresource, name)).resolves.toBe(true);
  });

  it.each([
    ['update', 'operators.brennerm.github.io', 'exchangerates', 'team-a', undefined, undefined],
    ['delete', 'apiextensions.k8s.io', 'customresourcedefinitions', undefined, undefined, undefined],
    // The Database deletes its own credentials by name, but no kind lists or changes a Secret without Secret copying.
    ['list', '', 'secrets', undefined, undefined, undefined],
    ['update', '', 'secrets', 'team-a', undefined, undefined],
    ['patch', '', 'secrets', 'team-a', undefined, undefined],
    ['update', 'coordination.k8s.io', 'leases', 'cdk8s-operators', undefined, 'someone-elses-lease'],
    ['update', 'coordination.k8s.io', 'leases', 'kube-system', undefined, 'cdk8s-operators-leader'],
    ['create', '', 'pods', 'team-a', undefined, undefined],
    ['escalate', 'rbac.authorization.k8s.io', 'clusterroles', undefined, undefined, undefined],
  ])('refuses %s on %s %s', async (verb, group, resource, namespace, subresource, name) => {
    await expect(allowed(verb, group, resource, namespace, subresource, name)).resolves.toBe(false);
  });
});
