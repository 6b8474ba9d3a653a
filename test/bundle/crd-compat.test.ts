import { crdManifest } from '../../src/bundle/crd';
import { checkAcceptedBreaks, crdChangesMarkdown } from '../../src/bundle/crd-compat/accepted-breaks';
import { compareCrds, CrdDocument } from '../../src/bundle/crd-compat/crd-compare';
import { CRD_RULES, CrdRule } from '../../src/bundle/crd-compat/finding';
import { crdVerdict } from '../../src/bundle/crd-compat/verdict';
import { UserError } from '../../src/core/errors';
import { AnyKind } from '../../src/core/contract/kind';
import { s } from '../../src/schema';
import { defineTestKind, defineVersionedTestKind } from '../../src/testing/test-kind';

// Pure: CRD manifests compared with each other, no control plane (crd-compat-apiserver.test.ts
// shows the API server refusing what the rules call breaks).

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const evolving = defineTestKind('Evolving', {
  render: () => undefined,
  spec: s.object(
    {
      size: s.integer({ description: 'How many.', minimum: 1, maximum: 10 }),
      mode: s.optional(s.enum(['fast', 'slow'], { description: 'How fast.' })),
      name: s.optional(s.string({ description: 'A name.', minLength: 1, maxLength: 20 })),
      tags: s.optional(s.array(s.string({ description: 'A tag.', pattern: '^[a-z]+$' }), { description: 'Tags.', minItems: 1, maxItems: 5 })),
      labels: s.optional(s.map(s.string({ description: 'A value.' }), { description: 'Labels.' })),
    },
    { description: 'What to render.' },
  ) as never,
});
const webhook = { url: 'https://127.0.0.1:9443/convert' };
const baseCrd = () => JSON.parse(JSON.stringify(crdManifest(evolving))) as Json;

/** The base CRD with its v1 spec schema changed by `change`. */
function withSpec(change: (spec: Json) => void): Json {
  const crd = baseCrd();
  change(crd.spec.versions[0].schema.openAPIV3Schema.properties.spec);
  return crd;
}
function withCrd(change: (crd: Json) => void): Json {
  const crd = baseCrd();
  change(crd);
  return crd;
}
const p = (spec: Json, name: string) => spec.properties[name];
const v1 = (crd: Json) => crd.spec.versions[0];

interface Row {
  readonly rule: CrdRule;
  readonly path: string;
  readonly breaking: Json;
  readonly safe: Json;
  /** The baseline, when not the base CRD. */
  readonly before?: Json;
}

const table: Row[] = [
  { rule: 'existingFieldRemoval', path: 'spec.mode', breaking: withSpec((sp) => delete sp.properties.mode), safe: withSpec((sp) => (sp.properties.color = { type: 'string', description: 'new, optional' })) },
  { rule: 'type', path: 'spec.size', breaking: withSpec((sp) => (p(sp, 'size').type = 'string')), safe: withSpec((sp) => (p(sp, 'size').description = 'Reworded.')) },
  { rule: 'required', path: 'spec.mode', breaking: withSpec((sp) => sp.required.push('mode')), safe: withSpec((sp) => (sp.required = [])) },
  { rule: 'enum', path: 'spec.mode', breaking: withSpec((sp) => (p(sp, 'mode').enum = ['fast'])), safe: withSpec((sp) => p(sp, 'mode').enum.push('medium')) },
  { rule: 'enum', path: 'spec.name', breaking: withSpec((sp) => (p(sp, 'name').enum = ['a', 'b'])), safe: withSpec((sp) => delete p(sp, 'mode').enum) },
  { rule: 'minimum', path: 'spec.size', breaking: withSpec((sp) => (p(sp, 'size').minimum = 2)), safe: withSpec((sp) => (p(sp, 'size').minimum = 0)) },
  { rule: 'maximum', path: 'spec.size', breaking: withSpec((sp) => (p(sp, 'size').maximum = 5)), safe: withSpec((sp) => delete p(sp, 'size').maximum) },
  { rule: 'minLength', path: 'spec.name', breaking: withSpec((sp) => (p(sp, 'name').minLength = 3)), safe: withSpec((sp) => delete p(sp, 'name').minLength) },
  { rule: 'maxLength', path: 'spec.name', breaking: withSpec((sp) => (p(sp, 'name').maxLength = 8)), safe: withSpec((sp) => (p(sp, 'name').maxLength = 63)) },
  { rule: 'minItems', path: 'spec.tags', breaking: withSpec((sp) => (p(sp, 'tags').minItems = 2)), safe: withSpec((sp) => (p(sp, 'tags').minItems = 0)) },
  { rule: 'maxItems', path: 'spec.tags', breaking: withSpec((sp) => (p(sp, 'tags').maxItems = 4)), safe: withSpec((sp) => (p(sp, 'tags').maxItems = 50)) },
  { rule: 'minProperties', path: 'spec.labels', breaking: withSpec((sp) => (p(sp, 'labels').minProperties = 1)), safe: withSpec((sp) => (p(sp, 'labels').description = 'Any labels.')) },
  { rule: 'maxProperties', path: 'spec.labels', breaking: withSpec((sp) => (p(sp, 'labels').maxProperties = 3)), safe: withSpec((sp) => (p(sp, 'labels').additionalProperties.description = 'Any value.')) },
  { rule: 'pattern', path: 'spec.tags[*]', breaking: withSpec((sp) => (p(sp, 'tags').items.pattern = '^[a-z]{2,}$')), safe: withSpec((sp) => delete p(sp, 'tags').items.pattern) },
  { rule: 'pattern', path: 'spec.name', breaking: withSpec((sp) => (p(sp, 'name').pattern = '^[a-z]+$')), safe: withSpec((sp) => (p(sp, 'name').title = 'Name')) },
  { rule: 'default', path: 'spec.mode', breaking: withSpec((sp) => (p(sp, 'mode').default = 'slow')), safe: withSpec((sp) => (p(sp, 'mode').description = 'How fast it goes.')) },
  { rule: 'nullable', path: 'spec.name', before: withSpec((sp) => (p(sp, 'name').nullable = true)), breaking: baseCrd(), safe: withSpec((sp) => (p(sp, 'name').nullable = true)) },
  { rule: 'type', path: 'spec.labels.*', breaking: withSpec((sp) => (p(sp, 'labels').additionalProperties.type = 'integer')), safe: withSpec((sp) => (p(sp, 'labels').additionalProperties.description = 'Any text.')) },
  { rule: 'scope', path: '', breaking: withCrd((c) => (c.spec.scope = 'Cluster')), safe: withCrd((c) => (c.spec.names.shortNames = ['ev'])) },
  {
    rule: 'x-kubernetes-validations',
    path: 'spec',
    breaking: withSpec((sp) => (sp['x-kubernetes-validations'] = [{ rule: 'self.size < 5', message: 'small' }])),
    // A transition rule runs on updates only, against the object's own stored value: it ratchets.
    safe: withSpec((sp) => (sp['x-kubernetes-validations'] = [{ rule: 'self.size >= oldSelf.size', message: 'size only grows' }])),
  },
  {
    rule: 'x-kubernetes-validations',
    path: 'spec',
    before: withSpec((sp) => (sp['x-kubernetes-validations'] = [{ rule: 'self.size < 9', message: 'small' }])),
    breaking: withSpec((sp) => (sp['x-kubernetes-validations'] = [{ rule: 'self.size < 5', message: 'small' }])),
    safe: withSpec((sp) => (sp['x-kubernetes-validations'] = [{ rule: 'self.size < 9', message: 'below nine', fieldPath: '.size' }])),
  },
  {
    rule: 'x-kubernetes-validations',
    path: 'spec',
    // With optionalOldSelf the rule runs on create too, where oldSelf is none: it judges new objects as any rule does.
    breaking: withSpec((sp) => (sp['x-kubernetes-validations'] = [{ rule: '!oldSelf.hasValue() || self.size >= oldSelf.value().size', message: 'grows', optionalOldSelf: true }])),
    safe: withSpec((sp) => (sp['x-kubernetes-validations'] = [])),
  },
  {
    rule: 'x-kubernetes-preserve-unknown-fields',
    path: 'spec.extra',
    before: withSpec((sp) => (sp.properties.extra = { type: 'object', description: 'Anything.', 'x-kubernetes-preserve-unknown-fields': true })),
    breaking: withSpec((sp) => (sp.properties.extra = { type: 'object', description: 'Anything.' })),
    safe: withSpec((sp) => (sp.properties.extra = { type: 'object', description: 'Anything at all.', 'x-kubernetes-preserve-unknown-fields': true })),
  },
  {
    rule: 'x-kubernetes-int-or-string',
    path: 'spec.port',
    before: withSpec((sp) => (sp.properties.port = { description: 'A port.', 'x-kubernetes-int-or-string': true })),
    breaking: withSpec((sp) => (sp.properties.port = { description: 'A port.' })),
    safe: withSpec((sp) => (sp.properties.port = { description: 'A port, by number or name.', 'x-kubernetes-int-or-string': true })),
  },
  { rule: 'x-kubernetes-list-type', path: 'spec.tags', breaking: withSpec((sp) => (p(sp, 'tags')['x-kubernetes-list-type'] = 'set')), safe: withSpec((sp) => (p(sp, 'tags').items.description = 'One tag.')) },
  {
    rule: 'x-kubernetes-list-map-keys',
    path: 'spec.ports',
    before: withSpec((sp) => (sp.properties.ports = { type: 'array', description: 'Ports.', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, protocol: { type: 'string', default: 'TCP' } } } })),
    breaking: withSpec((sp) => (sp.properties.ports = { type: 'array', description: 'Ports.', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'protocol'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, protocol: { type: 'string', default: 'TCP' } } } })),
    safe: withSpec((sp) => (sp.properties.ports = { type: 'array', description: 'Named ports.', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, protocol: { type: 'string', default: 'TCP' } } } })),
  },
  // A keyword the check does not model fails closed; documentation never breaks anything.
  { rule: 'unknown', path: 'spec.name', breaking: withSpec((sp) => (p(sp, 'name').format = 'email')), safe: withSpec((sp) => (p(sp, 'name').example = 'web')) },
  // Beyond the schema too: a subresource dropped, or a kind renamed, is a change no rule models.
  { rule: 'unknown', path: '', breaking: withCrd((c) => delete v1(c).subresources), safe: withCrd((c) => v1(c).additionalPrinterColumns.push({ name: 'Size', type: 'integer', jsonPath: '.spec.size' })) },
  { rule: 'unknown', path: '', breaking: withCrd((c) => (c.spec.names.kind = 'Evolved')), safe: withCrd((c) => (c.spec.names.categories = ['all-operators', 'tests'])) },
  {
    rule: 'selectableFieldRemoval',
    path: 'spec.name',
    before: withCrd((c) => (v1(c).selectableFields = [{ jsonPath: '.spec.name' }])),
    breaking: withCrd((c) => (v1(c).selectableFields = [{ jsonPath: '.spec.size' }])),
    safe: withCrd((c) => (v1(c).selectableFields = [{ jsonPath: '.spec.name' }, { jsonPath: '.spec.size' }])),
  },
  { rule: 'servedVersionRemoval', path: '', breaking: withCrd((c) => (v1(c).served = false)), safe: withCrd((c) => Object.assign(v1(c), { deprecated: true, deprecationWarning: 'use v2' })) },
];

describe('the CRD compatibility rules, one breaking and one safe change each', () => {
  it.each(table.map((row) => [`${row.rule} at ${row.path || 'the CRD'}`, row] as const))('%s', (_name, row) => {
    const before = (row.before ?? baseCrd()) as CrdDocument;
    const breaking = compareCrds(before, row.breaking as CrdDocument);
    expect(breaking.map(({ rule, path }) => ({ rule, path }))).toEqual([{ rule: row.rule, path: row.path }]);
    expect(breaking[0]).toMatchObject({ version: row.rule === 'scope' || breaking[0].message.includes('names.') ? '*' : 'v1' });
    expect(compareCrds(before, row.safe as CrdDocument)).toEqual([]);
  });

  it('covers every rule the check names (storedVersionRemoval below)', () => {
    const covered = new Set<string>([...table.map((row) => row.rule), 'storedVersionRemoval']);
    expect(CRD_RULES.filter((rule) => !covered.has(rule))).toEqual([]);
  });

  it('finds nothing when a kind serves a new version with a conversion, and a break when it drops the stored one', () => {
    const before = crdManifest(defineTestKind('Evolving', { render: () => undefined })) as unknown as CrdDocument;
    const versioned = crdManifest(defineVersionedTestKind('Evolving', { render: () => undefined }), webhook) as unknown as Json;
    expect(compareCrds(before, versioned as CrdDocument)).toEqual([]);
    expect(compareCrds(versioned as CrdDocument, { ...versioned, spec: { ...versioned.spec, versions: [versioned.spec.versions[1]] } } as CrdDocument)).toEqual([
      expect.objectContaining({ version: 'v2', path: '', rule: 'storedVersionRemoval' }),
    ]);
    expect(compareCrds(before, before)).toEqual([]);
  });

  it('reports a version served no longer as removed, and nothing of one that was never served', () => {
    const versioned = crdManifest(defineVersionedTestKind('Evolving', { render: () => undefined }), webhook) as unknown as Json;
    const withoutV1 = { ...versioned, spec: { ...versioned.spec, versions: [versioned.spec.versions[0]] } };
    expect(compareCrds(versioned as CrdDocument, withoutV1 as CrdDocument).map((f) => f.rule)).toEqual(['servedVersionRemoval']);
    const unserved = JSON.parse(JSON.stringify(versioned)) as Json;
    unserved.spec.versions[1].served = false;
    expect(compareCrds(unserved as CrdDocument, withoutV1 as CrdDocument)).toEqual([]);
  });
});

describe('declared breaks', () => {
  const narrowed = withSpec((sp) => (p(sp, 'mode').enum = ['fast'])) as CrdDocument;
  const before = new Map([[baseCrd().metadata.name as string, baseCrd() as CrdDocument]]);
  const declaring = (reason: string): AnyKind => ({ ...evolving, acceptedBreaks: [{ version: 'v1', path: 'spec.mode', rule: 'enum', reason }] });

  it('lets a declared break through, and keeps it for the release notes', () => {
    expect(crdVerdict(before, [narrowed], [evolving]).breaks).toHaveLength(1);
    const verdict = crdVerdict(before, [narrowed], [declaring('slow was never implemented')]);
    expect(verdict.breaks).toEqual([]);
    expect(verdict.accepted.map((f) => f.rule)).toEqual(['enum']);
    expect(crdChangesMarkdown([declaring('slow was never implemented')])).toContain('- Evolving v1 spec.mode (rule enum): slow was never implemented');
    expect(crdChangesMarkdown([evolving])).toBeUndefined();
  });

  it('refuses a declaration without a reason, of an unknown rule or of a version the kind lacks, naming the field', () => {
    const bad: AnyKind = { ...evolving, acceptedBreaks: [{ version: 'v9', path: 'spec.mode', rule: 'enums', reason: ' ' }] };
    expect(() => checkAcceptedBreaks([bad])).toThrow(UserError);
    try {
      checkAcceptedBreaks([bad]);
    } catch (err) {
      expect((err as UserError).problems).toEqual([
        expect.stringMatching(/^Evolving: acceptedBreaks\[0\]\.rule: expected one of existingFieldRemoval, .*got "enums"$/),
        'Evolving: acceptedBreaks[0].version: expected * or one of v1, got "v9"',
        'Evolving: acceptedBreaks[0].reason: is required: it goes into the release notes',
      ]);
    }
    expect(() => checkAcceptedBreaks([declaring('fine')])).not.toThrow();
  });
});
