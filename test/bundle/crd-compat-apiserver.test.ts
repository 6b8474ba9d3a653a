import { crdManifest } from '../../src/bundle/crd';
import { compareCrds, CrdDocument } from '../../src/bundle/crd-compat/crd-compare';
import { KubeObject } from '../../src/kube/objects';
import { KubeError } from '../../src/kube/rest';
import { s } from '../../src/schema';
import { eventually, suiteNamespace } from '../../src/testing/cluster';
import { testObjects } from '../support/manifests';
import { defineTestKind, installTestCrd } from '../../src/testing/test-kind';

// The rules are the API server's own: what the comparison calls a break, a real control plane
// refuses, for objects users already stored under the previous CRD.

const released = defineTestKind('Narrowing', {
  render: () => undefined,
  spec: s.object({ size: s.integer({ description: 'How many.', minimum: 1 }), mode: s.optional(s.enum(['fast', 'slow'], { description: 'How fast.' })) }, { description: 'What to render.' }) as never,
});
// A safe release: one more mode, and an optional field.
const widened = defineTestKind('Narrowing', {
  render: () => undefined,
  spec: s.object(
    { size: s.integer({ description: 'How many.', minimum: 1 }), mode: s.optional(s.enum(['fast', 'slow', 'steady'], { description: 'How fast.' })), note: s.optional(s.string({ description: 'A note.' })) },
    { description: 'What to render.' },
  ) as never,
});
// A breaking release: `slow` dropped from the enum and a new required field, `owner`.
const next = defineTestKind('Narrowing', {
  render: () => undefined,
  spec: s.object(
    {
      size: s.integer({ description: 'How many.', minimum: 1 }),
      mode: s.optional(s.enum(['fast'], { description: 'How fast.' })),
      note: s.optional(s.string({ description: 'A note.' })),
      owner: s.string({ description: 'Who owns it.' }),
    },
    { description: 'What to render.' },
  ) as never,
});

const namespace = suiteNamespace('crd-compat');
const objects = testObjects();
const narrowing = (name: string, spec: Record<string, unknown>): KubeObject =>
  ({ apiVersion: `${released.group}/v1`, kind: 'Narrowing', metadata: { name, namespace: namespace.name }, spec }) as KubeObject;

async function refusal(write: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await write();
    return undefined;
  } catch (err) {
    if (err instanceof KubeError && err.code === 422) return err.status?.message ?? err.body;
    throw err;
  }
}

describe('the API server agrees with the CRD compatibility rules', () => {
  const compared = (before: typeof released, after: typeof released) => compareCrds(crdManifest(before) as unknown as CrdDocument, crdManifest(after) as unknown as CrdDocument).map((f) => `${f.path} ${f.rule}`);

  it('keeps what the previous CRD stored writable under a safe one, and refuses it under a CRD with a narrowed enum and a new required field', async () => {
    await installTestCrd(released);
    await objects.apply(narrowing('stored', { size: 1, mode: 'slow' }));

    expect(compared(released, widened)).toEqual([]);
    await installTestCrd(widened);
    await eventually('the widened schema to be served', async () => ((await refusal(() => objects.apply(narrowing('steady', { size: 1, mode: 'steady' })))) === undefined ? true : undefined));
    expect(await refusal(() => objects.apply(narrowing('stored', { size: 2, mode: 'slow' })))).toBeUndefined();

    expect(compared(widened, next)).toEqual(['spec.owner required', 'spec.mode enum']);
    await installTestCrd(next);
    // The same manifest users applied before (a restore, a GitOps tool creating it in a new cluster): refused on both counts.
    // A new name each try: a try the old schema still accepted would otherwise be an update, not a create.
    let attempt = 0;
    const created = await eventually('the narrowed schema to be served', () => refusal(() => objects.apply(narrowing(`again-${attempt++}`, { size: 1, mode: 'slow' }))));
    expect(created).toContain('spec.mode: Unsupported value: "slow"');
    expect(created).toContain('spec.owner: Required value');
    // The object already stored: still read as it was, and any update of it refused until it gains the new required field.
    expect((await objects.get<KubeObject & { spec: unknown }>(narrowing('stored', {}))).spec).toEqual({ size: 2, mode: 'slow' });
    expect(await refusal(() => objects.apply(narrowing('stored', { size: 3, mode: 'slow' })))).toContain('spec.owner: Required value');
    // The API server's own validation ratcheting (Kubernetes 1.30+) lets an unchanged value that the narrowed enum refuses stay:
    // that spares stored objects, not new ones, which is why an enum narrowed is a break here as in crdify.
    expect(await refusal(() => objects.apply(narrowing('stored', { size: 3, mode: 'slow', owner: 'team-a' })))).toBeUndefined();
  });

  it('runs a transition rule on updates only, where a new CEL rule refuses what is stored', async () => {
    const ruled = (rule?: string) =>
      defineTestKind('Ruled', {
        render: () => undefined,
        spec: s.object({ size: s.integer({ description: 'How many.', minimum: 1 }) }, { description: 'What to render.', ...(rule ? { rules: [{ cel: rule, message: `must hold: ${rule}`, holds: () => true }] } : {}) }) as never,
      });
    const object = (name: string, size: number): KubeObject => ({ apiVersion: `${ruled().group}/v1`, kind: 'Ruled', metadata: { name, namespace: namespace.name }, spec: { size } }) as KubeObject;
    let attempt = 0;
    await installTestCrd(ruled());
    await objects.apply(object('big', 7));

    // Safe: only ratchets. Stored objects keep updating (upwards), new ones are created freely.
    const growing = ruled('self.size >= oldSelf.size');
    expect(compared(ruled(), growing)).toEqual([]);
    await installTestCrd(growing);
    await eventually('the transition rule to be served', () => refusal(() => objects.apply(object('big', 6))));
    expect(await refusal(() => objects.apply(object('big', 8)))).toBeUndefined();
    expect(await refusal(() => objects.apply(object(`fresh-${attempt++}`, 9)))).toBeUndefined();

    // A break: the same object, stored under the previous CRD, is refused on its next update, and its manifest on a create.
    const small = ruled('self.size < 5');
    expect(compared(growing, small)).toEqual(['spec x-kubernetes-validations']);
    await installTestCrd(small);
    const created = await eventually('the new rule to be served', () => refusal(() => objects.apply(object(`again-${attempt++}`, 8))));
    expect(created).toContain('must hold: self.size < 5');
    expect(await refusal(() => objects.apply(object('big', 9)))).toContain('must hold: self.size < 5');
  });
});
