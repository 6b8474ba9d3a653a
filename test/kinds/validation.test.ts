import { validateResource } from '../../src/core/contract/validation';
import { formatFieldErrors } from '../../src/schema';
import { createTestNamespace, deleteNamespace, testKubeConfig } from '../../src/testing/cluster';
import { KubeError } from '../../src/kube/rest';
import { KubeObject } from '../../src/kube/objects';
import { installCrds, testObjects } from '../support/manifests';
import { KIND_FOLDERS } from '../../src/kinds';
import { ALL_CASES } from './all-cases';
import { casesFile, objectOf, validationCasesOf } from './cases';

it.each(KIND_FOLDERS.map((folder) => [folder]))('the kind in src/kinds/%s has a validation table', (folder) => {
  const cases = validationCasesOf(folder);
  const complete = !!cases?.valid.length && !!cases.invalid.length;
  expect(complete ? 'complete' : `${casesFile(folder)} must export validationCases (see src/core/contract/validation-cases.ts) with at least one valid and one invalid object`).toBe('complete');
});

// One table per kind, run twice: through the API server (CRD schema and CEL) and through
// the controller's validation. Both must agree, and both must name the field.
describe.each(ALL_CASES.map((c) => [`${c.kind.kind} ${c.version ?? c.kind.version}`, c] as const))('%s validation', (_name, cases) => {
  const { kind, version } = cases;
  const kc = testKubeConfig();
  const objects = testObjects();
  let namespace: string;

  beforeAll(async () => {
    await installCrds(objects);
    namespace = await createTestNamespace(kc, `validation-${kind.singular}-${version ?? kind.version}`);
  });
  afterAll(async () => {
    await deleteNamespace(kc, namespace);
  });

  const createDryRun = (body: Record<string, unknown>, name: string) =>
    objects.create(objectOf(kind, name, body, namespace, version) as KubeObject, { dryRun: true });

  describe.each(cases.valid.map((c, i) => [c.name, c, i] as const))('accepts %s', (_case, { body }, i) => {
    it('on the API server', async () => {
      await expect(createDryRun(body, `valid-${i}`)).resolves.toMatchObject({ kind: kind.kind });
    });
    it('in the controller', () => {
      const result = validateResource(kind, objectOf(kind, `valid-${i}`, body, undefined, version));
      expect(result.ok ? 'valid' : formatFieldErrors(result.errors)).toBe('valid');
    });
  });

  describe.each(cases.invalid.map((c, i) => [c.name, c, i] as const))('rejects %s', (_case, { body, field }, i) => {
    it(`on the API server, naming ${field}`, async () => {
      const error = await createDryRun(body, `invalid-${i}`).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(KubeError);
      expect((error as KubeError).code).toBe(422);
      expect((error as KubeError).status?.message).toContain(field);
    });
    it(`in the controller, naming ${field}`, () => {
      const result = validateResource(kind, objectOf(kind, `invalid-${i}`, body, undefined, version));
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.errors.map((e) => e.field)).toContain(field);
    });
  });
});
