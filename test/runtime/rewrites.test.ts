import { ApiObject } from 'cdk8s';
import { CustomResource } from '../../src/core/contract/kind';
import { renderChildren } from '../../src/core/render';
import { KubeObject } from '../../src/kube/objects';
import { matches } from '../../src/runtime/matches';
import { asStored, fieldChanges, ServerRewrites } from '../../src/runtime/rewrites';
import { eventually } from '../../src/testing/cluster';
import { eventsIn, whenReady } from '../support/resources';
import { childrenOf, defineTestKind, metricValue, serveTestKindForSuite, TestSpec } from '../../src/testing/test-kind';

describe('fieldChanges and asStored: what the server made of a render', () => {
  const rendered = { spec: { egress: [], hard: { cpu: 0.01, pods: '10' }, ports: [{ port: 80, name: 'web' }] }, data: {} };
  const stored = { spec: { hard: { cpu: '10m', pods: '10' }, ports: [{ port: 80, name: 'web', protocol: 'TCP' }], extra: 1 } };

  it('names every field the server dropped or wrote differently, by path', () => {
    expect(fieldChanges(rendered, stored)).toEqual([
      { path: 'spec.egress', rendered: [], stored: undefined },
      { path: 'spec.hard.cpu', rendered: 0.01, stored: '10m' },
      { path: 'data', rendered: {}, stored: undefined },
    ]);
    expect(fieldChanges({ spec: { ports: [{ port: 80 }] } }, { spec: { ports: [] } })).toEqual([{ path: 'spec.ports', rendered: [{ port: 80 }], stored: [] }]);
  });

  it('takes the rendered fields with the stored values, and matches the stored object with them', () => {
    const expected = asStored(rendered, stored);
    expect(expected).toEqual({ spec: { egress: undefined, hard: { cpu: '10m', pods: '10' }, ports: [{ port: 80, name: 'web' }] }, data: undefined });
    expect(matches(rendered, stored)).toBe(false);
    expect(matches(expected, stored)).toBe(true);
  });

  it('settles a render only while the child holds what the server made of it, and forgets a render that changed', () => {
    const rewrites = new ServerRewrites();
    const child = (cpu: unknown) => ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { cpu } } }) as KubeObject;
    const live = (cpu: string) => ({ ...child(cpu), metadata: { name: 'q', resourceVersion: '7' } }) as KubeObject;
    expect(rewrites.settled('q', child(0.01), live('10m'))).toBe(false);
    expect(rewrites.applied('q', child(0.01), live('10m'))).toEqual([{ path: 'spec.hard.cpu', rendered: 0.01, stored: '10m' }]);
    expect(rewrites.settled('q', child(0.01), live('10m'))).toBe(true);
    // Told once per render: the same rewrite again (someone else changed the child in between) says nothing new.
    expect(rewrites.applied('q', child(0.01), live('10m'))).toBeUndefined();
    expect(rewrites.settled('q', child(0.01), live('20m'))).toBe(false);
    expect(rewrites.settled('q', child(0.02), live('10m'))).toBe(false);
    // A render the server stores as written needs no memory.
    expect(rewrites.applied('q', child('10m'), live('10m'))).toBeUndefined();
    expect(rewrites.size).toBe(0);
  });
});

/**
 * A kind that exists only here and renders, on purpose, every kind of value the API server
 * does not store as written: an empty list, an empty map, quantities in other units, and a
 * field the server fills in (a Service's clusterIP). Without the engine's guard each of its
 * children would be applied on every reconcile.
 */
const rewrittenKind = defineTestKind('Rewritten', {
  manages: [childrenOf('', 'configmaps', 'services', 'resourcequotas'), childrenOf('networking.k8s.io', 'networkpolicies')],
  render: (scope, resource) => {
    const name = resource.metadata.name;
    new ApiObject(scope, 'policy', {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name },
      spec: { podSelector: { matchLabels: { app: name } }, policyTypes: ['Ingress', 'Egress'], ingress: [], egress: [] },
    });
    new ApiObject(scope, 'config', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: {} });
    new ApiObject(scope, 'quota', {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name },
      spec: { hard: { cpu: 0.01, memory: '1024Mi', pods: String(resource.spec.size) } },
    });
    new ApiObject(scope, 'service', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name },
      spec: { clusterIP: '', selector: { app: name }, ports: [{ port: 80, targetPort: 8080 }] },
    });
  },
});

describe('a kind whose children the API server rewrites, served by the real engine', () => {
  const served = serveTestKindForSuite(rewrittenKind, 'rewrites');
  const owner = (quota: number) => ({ apiVersion: 'rewritten.test.cdk8s-operators.io/v1', kind: 'Rewritten', metadata: { name: 'storm', namespace: served.namespace }, spec: { size: quota } });
  const children = () =>
    Promise.all(
      [['networking.k8s.io/v1', 'NetworkPolicy'], ['v1', 'ConfigMap'], ['v1', 'ResourceQuota'], ['v1', 'Service']].map(([apiVersion, kind]) =>
        served.objects.get<KubeObject>({ apiVersion, kind, metadata: { name: 'storm', namespace: served.namespace } }),
      ),
    );
  const versions = async () => (await children()).map((c) => c.metadata.resourceVersion);
  const applies = () => metricValue(served.metrics, 'cdk8s_operators_child_writes_total', { kind: 'Rewritten', action: 'apply' });
  /** Queues the owner again without changing what it renders: a label is worth a reconcile. */
  const nudge = (n: number) => served.objects.rest.request('PATCH', `/apis/rewritten.test.cdk8s-operators.io/v1/namespaces/${served.namespace}/rewrittens/storm`, { body: { metadata: { labels: { nudge: String(n) } } }, contentType: 'application/merge-patch+json' });
  const reconciles = () => metricValue(served.metrics, 'cdk8s_operators_reconciles_total', { kind: 'Rewritten', result: 'success' });

  it('writes each child once, then stops writing however often it reconciles, and names every field the server changed', async () => {
    await served.objects.apply(owner(10));
    await whenReady(served.objects, owner(10), 'True');
    // The premise: no child matches its render as the server stores it.
    const render = renderChildren(rewrittenKind, owner(10) as unknown as CustomResource<TestSpec>);
    const rendered = (await children()).map((live) => fieldChanges(render.find((c) => c.kind === live.kind), live).map((c) => c.path));
    expect(rendered).toEqual([['spec.egress', 'spec.ingress'], ['data'], ['spec.hard.cpu', 'spec.hard.memory'], ['spec.clusterIP']]);

    const before = { versions: await versions(), applies: applies(), reconciles: reconciles() };
    for (let n = 1; n <= 20; n++) await nudge(n);
    await eventually('20 more reconciles', async () => (reconciles() >= before.reconciles + 5 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await versions()).toEqual(before.versions);
    expect(applies()).toBe(before.applies);
    expect(before.applies).toBe(4);

    const warnings = await eventually('the RenderRewritten Warnings', async () => {
      const found = (await eventsIn(served.objects, served.namespace)).filter((e) => e.reason === 'RenderRewritten');
      return found.length >= 4 ? found : undefined;
    });
    expect(warnings.map((e) => e.type)).toEqual(['Warning', 'Warning', 'Warning', 'Warning']);
    const notes = warnings.map((e) => e.note).join('\n');
    expect(notes).toContain('NetworkPolicy');
    expect(notes).toContain('spec.egress (rendered [], stored nothing)');
    expect(notes).toContain('data (rendered {}, stored nothing)');
    expect(notes).toContain('spec.hard.cpu (rendered 0.01, stored "10m")');
    expect(notes).toContain('spec.hard.memory (rendered "1024Mi", stored "1Gi")');
    expect(notes).toContain('spec.clusterIP (rendered "", stored "');
    expect(served.logLines.filter((l) => l.msg === 'the API server rewrote a rendered child')).toHaveLength(4);
  });

  it('still puts back a rendered field someone else changed, and applies a changed render once', async () => {
    const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'storm', namespace: served.namespace } };
    await served.objects.rest.request('PATCH', `/api/v1/namespaces/${served.namespace}/resourcequotas/storm`, { body: { spec: { hard: { pods: '99' } } }, contentType: 'application/merge-patch+json' });
    await eventually('the quota put back', async () => ((await served.objects.get<KubeObject & { spec: { hard: { pods: string } } }>(quota)).spec.hard.pods === '10' ? true : undefined));

    await served.objects.apply(owner(12));
    await whenReady(served.objects, owner(12), 'True');
    await eventually('the new quota', async () => ((await served.objects.get<KubeObject & { spec: { hard: { pods: string } } }>(quota)).spec.hard.pods === '12' ? true : undefined));
    const settled = { versions: await versions(), applies: applies() };
    for (let n = 21; n <= 30; n++) await nudge(n);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await versions()).toEqual(settled.versions);
    expect(applies()).toBe(settled.applies);
  });
});
