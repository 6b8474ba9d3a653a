import { crdName } from '../../src/core/groups';
import { PrinterColumn } from '../../src/core/contract/version-layout';
import { KubeObject } from '../../src/kube/objects';
import { KubeError } from '../../src/kube/rest';
import { selectableFieldsOf } from '../../src/bundle/selectable-fields';
import { KINDS } from '../../src/kinds';
import { OpenApiSchema } from '../../src/schema';
import { createTestNamespace, deleteNamespace, testKubeConfig } from '../../src/testing/cluster';
import { installCrds, testObjects } from '../support/manifests';

/**
 * CRD selectable fields (the printer columns marked `selectable`), on the real API server: the
 * CRDs of dist/ keep them as written, and a list with a field selector returns only the
 * matching objects, on the server.
 */

type Crd = KubeObject & { spec: { versions: { name: string; selectableFields?: { jsonPath: string }[] }[] } };
type List = { items: KubeObject[] };

const objects = testObjects();
const rest = objects.rest;
const guitar = KINDS.find((k) => k.kind === 'Guitar')!;
const database = KINDS.find((k) => k.kind === 'Database')!;
let namespace: string;

beforeAll(async () => {
  await installCrds(objects);
  namespace = await createTestNamespace(testKubeConfig(), 'selectable');
  for (const [name, brand] of [['strat', 'fender'], ['tele', 'fender'], ['lp', 'gibson']]) {
    await objects.create({ apiVersion: `${guitar.group}/v1`, kind: 'Guitar', metadata: { name, namespace }, spec: { brand } });
  }
  // A verdict as the controller writes it, through the status subresource.
  await rest.request('PATCH', `/apis/${guitar.group}/v1/namespaces/${namespace}/guitars/lp/status`, { body: { status: { verdict: 'great' } }, contentType: 'application/merge-patch+json' });
});
afterAll(async () => {
  await deleteNamespace(testKubeConfig(), namespace);
});

const names = (list: List) => list.items.map((o) => o.metadata.name).sort();
const guitars = (fieldSelector: string) => rest.request<List>('GET', `/apis/${guitar.group}/v1/namespaces/${namespace}/guitars`, { query: { fieldSelector } });

it('the API server keeps each CRD version\u2019s selectable fields as dist/ declares them', async () => {
  for (const kind of KINDS) {
    const crd = await objects.get<Crd>({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: crdName(kind) } });
    const hub = crd.spec.versions.find((v) => v.name === kind.version)!;
    expect(`${kind.kind}: ${hub.selectableFields?.map((f) => f.jsonPath).join(' ')}`).toBe(`${kind.kind}: ${kind.printerColumns.filter((c) => c.selectable).map((c) => c.jsonPath).join(' ')}`);
  }
});

it('lists with a field selector on a spec field and on a status field, filtered by the API server', async () => {
  expect(names(await guitars('spec.brand=fender'))).toEqual(['strat', 'tele']);
  expect(names(await guitars('spec.brand!=fender'))).toEqual(['lp']);
  expect(names(await guitars('status.verdict=great'))).toEqual(['lp']);
  expect(names(await guitars('spec.brand=fender,status.verdict=great'))).toEqual([]);
  // metadata.name and metadata.namespace stay selectable as for every resource.
  expect(names(await guitars('metadata.name=tele'))).toEqual(['tele']);
});

it('refuses a field selector on a field that is not selectable, naming it', async () => {
  const refused = await guitars('spec.comment=x').catch((err: unknown) => err);
  expect(refused).toBeInstanceOf(KubeError);
  expect((refused as KubeError).code).toBe(400);
  expect((refused as KubeError).message).toContain('spec.comment');
});

it('a kind with several versions selects in its hub, the version kubectl reads (Database v2; the API server refuses the same fields in every version)', async () => {
  const crd = await objects.get<Crd>({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: crdName(database) } });
  expect(crd.spec.versions.map((v) => [v.name, v.selectableFields?.map((f) => f.jsonPath)])).toEqual([
    ['v2', ['.spec.name', '.status.phase']],
    ['v1', undefined],
  ]);
  const list = (version: string) => rest.request<List>('GET', `/apis/${database.group}/${version}/namespaces/${namespace}/databases`, { query: { fieldSelector: 'status.phase=Ready' } });
  expect((await list('v2')).items).toEqual([]);
  await expect(list('v1')).rejects.toMatchObject({ code: 400 });
});

describe('a selectable column the API server would refuse fails the synth, naming the kind, version and column', () => {
  const schema: OpenApiSchema = {
    type: 'object',
    description: 'x',
    properties: {
      spec: {
        type: 'object',
        description: 's',
        properties: { brand: { type: 'string', description: 'b' }, size: { type: 'number', description: 'n' }, tags: { type: 'array', description: 'l', items: { type: 'string', description: 't' } } },
      },
    },
  };
  const column = (jsonPath: string): PrinterColumn => ({ name: 'Col', type: 'string', jsonPath, description: 'd', selectable: true });
  it.each([
    ['.spec.missing', 'Guitar v1: printer column Col is selectable, but .spec.missing is not a field of the schema (no missing)'],
    ['.spec.size', 'Guitar v1: printer column Col is selectable, but .spec.size is of type number: a field selector matches a string, an integer or a boolean'],
    ['.spec.tags', 'Guitar v1: printer column Col is selectable, but .spec.tags is of type array: a field selector matches a string, an integer or a boolean'],
    ['.status.conditions[?(@.type=="Ready")].status', 'is not a plain path of fields'],
  ])('%s', (jsonPath, message) => {
    expect(() => selectableFieldsOf('Guitar v1', [column(jsonPath)], schema)).toThrow(message);
  });
  it('more than eight', () => {
    expect(() => selectableFieldsOf('Guitar v1', Array.from({ length: 9 }, () => column('.spec.brand')), schema)).toThrow('Guitar v1: 9 printer columns are selectable, the API server allows 8');
  });
  it('a plain string field passes', () => {
    expect(selectableFieldsOf('Guitar v1', [column('.spec.brand'), { ...column('.spec.size'), selectable: false }], schema)).toEqual([{ jsonPath: '.spec.brand' }]);
  });
});
