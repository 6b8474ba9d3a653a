import { AnyKind } from '../../src/core/contract/kind';
import { validateResource } from '../../src/core/contract/validation';
import { KubeObject } from '../../src/kube/objects';
import { Infer, s } from '../../src/schema';
import { createTestNamespace, deleteNamespace, refusalOf, testKubeConfig } from '../../src/testing/cluster';
import { testObjects } from '../support/manifests';
import { defineTestKind, installTestCrd } from '../../src/testing/test-kind';

// A kind embedding a built-in type (a Job template, as controller-gen embeds JobTemplateSpec)
// and an opaque object, on the real API server: its CRD is accepted, a good template is kept
// with its labels, and a bad one is refused when the object is written, naming the field.

const templatedSpec = s.object(
  {
    size: s.integer({ description: 'How many of something to render.', minimum: 1 }),
    jobTemplate: s.builtIn('batch/v1', 'JobTemplateSpec', { description: 'The Job to make.' }),
    extra: s.optional(s.opaque({ description: 'Settings passed through to a tool.', reason: 'the tool defines them, in versions this kind does not know' })),
  },
  { description: 'What to render.' },
);
const templated = { ...defineTestKind('Templated', { render: () => undefined }), spec: templatedSpec } as unknown as AnyKind;
type TemplatedSpec = Infer<typeof templatedSpec>;

const objects = testObjects();
const kc = testKubeConfig();
let namespace: string;
beforeAll(async () => {
  namespace = await createTestNamespace(kc, 'built-in-types');
  await installTestCrd(templated);
});
afterAll(() => deleteNamespace(kc, namespace));

const container = { name: 'run', image: 'busybox:1.36', command: ['true'], ports: [{ containerPort: 8080 }], resources: { limits: { cpu: 1, memory: '64Mi' } } };
const spec = (podSpec: Record<string, unknown>) => ({ size: 1, jobTemplate: { metadata: { labels: { team: 'a' } }, spec: { backoffLimit: 2, template: { metadata: { labels: { run: 'x' } }, spec: { restartPolicy: 'Never', ...podSpec } } } } });
const object = (name: string, body: Record<string, unknown>): KubeObject => ({ apiVersion: `${templated.group}/v1`, kind: templated.kind, metadata: { name, namespace }, spec: body });

it('keeps a good Job template as written, labels and an integer quantity included, and the opaque settings', async () => {
  const body = { ...spec({ containers: [container] }), extra: { anything: { goes: [1, 'two'] } } };
  await objects.create(object('good', body));
  const live = await objects.get<KubeObject & { spec: TemplatedSpec }>(object('good', {}));
  expect(live.spec.jobTemplate).toEqual({ ...body.jobTemplate, spec: { ...body.jobTemplate.spec, template: { ...body.jobTemplate.spec.template, spec: { ...body.jobTemplate.spec.template.spec, containers: [{ ...container, ports: [{ containerPort: 8080, protocol: 'TCP' }] }] } } } });
  expect(live.spec.extra).toEqual({ anything: { goes: [1, 'two'] } });
  expect(validateResource(templated, live as unknown as Record<string, unknown>)).toMatchObject({ ok: true });
});

it.each([
  ['a number for an image', { containers: [{ ...container, image: 3 }] }, 'spec.jobTemplate.spec.template.spec.containers[0].image'],
  ['a container without a name', { containers: [{ image: 'busybox:1.36' }] }, 'spec.jobTemplate.spec.template.spec.containers[0].name'],
  ['a port that is not a number', { containers: [{ ...container, ports: [{ containerPort: 'http' }] }] }, 'spec.jobTemplate.spec.template.spec.containers[0].ports[0].containerPort'],
  ['a memory limit that is no quantity', { containers: [{ ...container, resources: { limits: { memory: 'lots' } } }] }, 'spec.jobTemplate.spec.template.spec.containers[0].resources.limits.memory'],
  ['no containers', {}, 'spec.jobTemplate.spec.template.spec.containers'],
])('refuses %s at create, naming the field, as the controller does', async (_what, podSpec, field) => {
  const name = `bad-${field.length}-${Object.keys(podSpec).length}`;
  const message = await refusalOf(() => objects.create(object(name, spec(podSpec))));
  expect(message).toContain(field);
  const controller = validateResource(templated, object(name, spec(podSpec)) as unknown as Record<string, unknown>);
  expect(controller.ok ? [] : controller.errors.map((e) => e.field)).toContain(field);
});

it('refuses opaque settings that are not an object', async () => {
  const message = await refusalOf(() => objects.create(object('opaque-list', { ...spec({ containers: [container] }), extra: ['a'] })));
  expect(message).toContain('spec.extra');
});
