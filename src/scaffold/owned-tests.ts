import { ENGINE_PACKAGE as E } from '../core/install/identity';

/** The kind-generic tests an operator's repository runs on each of its kinds (owned: `upgrade` rewrites them). */
export function ownedTests(ts: string): [string, string][] {
  return [
    [
      'test/support/kind-cases.ts',
      `${ts}import { AnyKind, ValidationCases } from '${E}/kind';
import { kindModule, KIND_SOURCES, KINDS } from '../../src/kinds';

/** Each kind with the validation table its source keeps in validation-cases.ts. */
export const KIND_CASES: readonly { readonly source: string; readonly kind: AnyKind; readonly cases: ValidationCases }[] = KIND_SOURCES.map((source, i) => {
  const { validationCases } = kindModule<{ validationCases?: ValidationCases }>(source, 'validation-cases');
  if (!validationCases?.valid.length || !validationCases.invalid.length) throw new Error(\`\${source}/validation-cases must export validationCases with at least one valid and one invalid object\`);
  return { source, kind: KINDS[i], cases: validationCases };
});

/** An object of the kind with a case's body. */
export function objectOf(kind: AnyKind, name: string, body: Record<string, unknown>, namespace?: string): Record<string, unknown> & { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } } {
  return { apiVersion: \`\${kind.group}/\${kind.version}\`, kind: kind.kind, metadata: { name, ...(namespace ? { namespace } : {}) }, ...body };
}
`,
    ],
    [
      'test/validation.unit.test.ts',
      `${ts}import { validateResource } from '${E}/kind';
import { KIND_CASES, objectOf } from './support/kind-cases';

// The controller's validation of each kind's table: each valid object accepted, each invalid one refused naming its field.
describe.each(KIND_CASES.map((c) => [c.kind.kind, c] as const))('%s', (_kind, { kind, cases }) => {
  it.each(cases.valid.map((c) => [c.name, c] as const))('accepts %s', (_name, { body }) => {
    const result = validateResource(kind, objectOf(kind, 'valid', body));
    expect(result.ok ? 'valid' : result.errors.map((e) => \`\${e.field}: \${e.message}\`)).toBe('valid');
  });
  it.each(cases.invalid.map((c) => [c.name, c] as const))('refuses %s', (_name, { body, field }) => {
    const result = validateResource(kind, objectOf(kind, 'invalid', body));
    expect(result.ok ? [] : result.errors.map((e) => e.field)).toContain(field);
  });
});
`,
    ],
    [
      'test/kinds.test.ts',
      `${ts}import { Chart, Testing } from 'cdk8s';
import { KubeError } from '${E}/client';
import { KubeJson } from '${E}/kind';
import { operatorNames } from '${E}/operator';
import { createTestNamespace, deleteNamespace, eventually, serveTestKind, ServedTestKind, testKubeConfig } from '${E}/testing';
import { IDENTITY } from '../src/identity';
import { KIND_CASES, objectOf } from './support/kind-cases';

type Live = KubeJson & { status?: { conditions?: { type: string; status: string }[] } };

// Each kind against a real API server: its CRD's schema refuses what its table refuses, naming the
// field, and the engine, serving the kind under this operator's identity, brings its example to Ready.
describe.each(KIND_CASES.map((c) => [c.kind.kind, c] as const))('%s', (_kind, { kind, cases }) => {
  let namespace: string;
  let served: ServedTestKind;
  beforeAll(async () => {
    namespace = await createTestNamespace(testKubeConfig(), kind.singular);
    served = await serveTestKind(kind, namespace, undefined, undefined, { operator: operatorNames(IDENTITY) });
  });
  afterAll(async () => {
    await served?.stop();
    if (namespace) await deleteNamespace(testKubeConfig(), namespace);
  });

  it.each(cases.invalid.map((c, i) => [c.name, c, i] as const))('the API server refuses %s', async (_name, { body, field }, i) => {
    const error = await served.objects.create(objectOf(kind, \`invalid-\${i}\`, body, namespace) as never, { dryRun: true }).then(() => undefined, (err: unknown) => err);
    expect(error).toBeInstanceOf(KubeError);
    expect((error as KubeError).status?.message).toContain(field);
  });

  it('serves its example to Ready', async () => {
    if (!kind.example) return;
    const example = kind.example(new Chart(Testing.app(), 'example'), namespace).toJson() as Live;
    await served.objects.apply(example);
    await eventually(\`\${kind.kind} \${example.metadata.name} to be Ready\`, async () => {
      const live = await served.objects.get<Live>(example);
      return live.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? live : undefined;
    });
  });
});
`,
    ],
  ];
}
