import { formatFieldErrors, Infer, InferInput, s } from '../../src/schema';

const spec = s.object(
  {
    name: s.string({ description: 'n', pattern: '^[a-z]+$', patternHint: 'lower-case letters', maxLength: 5 }),
    size: s.quantity({ description: 'q' }),
    port: s.integer({ description: 'p', minimum: 1, maximum: 65535, default: 5432 }),
    mode: s.enum(['a', 'b'], { description: 'm', default: 'a' }),
    on: s.optional(s.boolean({ description: 'o' })),
    tags: s.optional(s.array(s.string({ description: 't' }), { description: 'ts', unique: true, maxItems: 2 })),
    labels: s.optional(s.map(s.string({ description: 'v' }), { description: 'l', minProperties: 1 })),
  },
  { description: 'd', rules: [{ cel: 'self.port != 22', message: 'port 22 is reserved', fieldPath: '.port', holds: (self) => self.port !== 22 }] },
);

const errorsOf = (value: unknown) => formatFieldErrors(spec.validate(value, 'spec').errors);

describe('schema validation', () => {
  it('applies defaults and leaves optional fields out', () => {
    expect(spec.validate({ name: 'db', size: '50G' }, 'spec')).toEqual({ value: { name: 'db', size: '50G', port: 5432, mode: 'a' }, errors: [] });
  });
  it.each([
    [{ size: '1G' }, 'spec.name: is required'],
    [{ name: 'DB', size: '1G' }, 'spec.name: must be lower-case letters, got "DB"'],
    [{ name: 'abcdef', size: '1G' }, 'spec.name: must be at most 5 characters long, got 6'],
    [{ name: 'db', size: 'lots' }, 'spec.size: must be a quantity such as 50G or 10Gi, got string "lots"'],
    [{ name: 'db', size: '1G', port: 0 }, 'spec.port: must be between 1 and 65535, got 0'],
    [{ name: 'db', size: '1G', port: '80' }, 'spec.port: must be an integer, got string "80"'],
    [{ name: 'db', size: '1G', mode: 'c' }, 'spec.mode: must be one of "a", "b", got "c"'],
    [{ name: 'db', size: '1G', on: 'yes' }, 'spec.on: must be true or false, got string "yes"'],
    [{ name: 'db', size: '1G', tags: ['x', 'x'] }, 'spec.tags[1]: duplicate value "x"'],
    [{ name: 'db', size: '1G', tags: 'x' }, 'spec.tags: must be a list, got string "x"'],
    [{ name: 'db', size: '1G', labels: {} }, 'spec.labels: must have at least 1 entry'],
    [{ name: 'db', size: '1G', port: 22 }, 'spec.port: port 22 is reserved'],
    ['text', 'spec: must be an object, got string "text"'],
  ])('rejects %j: %s', (value, message) => {
    expect(errorsOf(value)).toBe(message);
  });
  it('reports every problem at once, and runs rules only on otherwise valid objects', () => {
    expect(errorsOf({ name: 'DB', size: 'lots', port: 22 })).toBe('spec.name: must be lower-case letters, got "DB"; spec.size: must be a quantity such as 50G or 10Gi, got string "lots"');
  });
  it('does not change the object it validates', () => {
    const input = { name: 'db', size: '1G' };
    spec.validate(input, 'spec');
    expect(input).toEqual({ name: 'db', size: '1G' });
  });
  it('gives the CRD a description for every field', () => {
    expect(spec.openApi.properties!.port).toEqual({ type: 'integer', description: 'p', minimum: 1, maximum: 65535, default: 5432 });
    expect(spec.openApi.required).toEqual(['name', 'size']);
    expect(spec.openApi['x-kubernetes-validations']).toEqual([{ rule: 'self.port != 22', message: 'port 22 is reserved', fieldPath: '.port' }]);
  });
});

describe('schema types', () => {
  // Checked by the compiler (npm run build): each @ts-expect-error line must be a type error.
  it('let a manifest leave out what has a default, which the controller always sees', () => {
    const declared: InferInput<typeof spec> = { name: 'db', size: 50 };
    // @ts-expect-error a required field without a default
    const withoutName: InferInput<typeof spec> = { size: '1G' };
    // @ts-expect-error no such field
    const misspelt: InferInput<typeof spec> = { name: 'db', size: '1G', prot: 1 };
    // @ts-expect-error the controller's type has the defaulted port
    const undefaulted: Infer<typeof spec> = { name: 'db', size: '1G', mode: 'a' };
    expect([declared, withoutName, misspelt, undefaulted].every((value) => typeof value === 'object')).toBe(true);
  });
});
