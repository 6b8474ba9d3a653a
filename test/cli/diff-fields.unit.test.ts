import { changedFields, differences } from '../../src/diff/fields';
import { formatPlans, hasChanges } from '../../src/commands/diff';
import { matches } from '../../src/runtime/matches';

// The diff lists a change exactly where the controller's own comparison would apply.
describe('changedFields', () => {
  const cases: [string, unknown, unknown][] = [
    ['equal', { data: { a: '1' } }, { data: { a: '1' } }],
    ['a field the API server added', { data: { a: '1' } }, { data: { a: '1', rate: '1.05' }, metadata: { uid: 'x' } }],
    ['a changed value', { data: { a: '1' } }, { data: { a: '2' } }],
    ['a missing field', { data: { a: '1', b: '2' } }, { data: { a: '1' } }],
    ['a list of another length', { ports: [1, 2] }, { ports: [1] }],
    ['a changed list item', { ports: [{ port: 1 }, { port: 2 }] }, { ports: [{ port: 1 }, { port: 3, protocol: 'TCP' }] }],
    ['an object where a value was', { a: { b: 1 } }, { a: 'text' }],
    ['an undefined desired field', { a: undefined, b: 1 }, { b: 1 }],
  ];

  it.each(cases)('agrees with the controller\u2019s matches(): %s', (_what, desired, live) => {
    expect(changedFields(desired, live).length === 0).toBe(matches(desired, live));
  });

  it('names each changed field with its old and new value', () => {
    expect(changedFields({ metadata: { labels: { 'app.kubernetes.io/name': 'x' } }, spec: { ports: [{ port: 1 }, { port: 2 }] } }, { metadata: { labels: {} }, spec: { ports: [{ port: 1 }, { port: 3 }] } })).toEqual([
      { path: 'metadata.labels["app.kubernetes.io/name"]', from: undefined, to: 'x' },
      { path: 'spec.ports[1].port', from: 3, to: 2 },
    ]);
  });
});

describe('differences', () => {
  it('also lists a field only the live object has (removed from Git)', () => {
    expect(differences({ currency: 'USD' }, { currency: 'USD', configMapName: 'old' }, 'spec')).toEqual([{ path: 'spec.configMapName', from: 'old', to: undefined }]);
  });
});

describe('formatPlans', () => {
  it('never prints a Secret\u2019s values, and counts what would happen', () => {
    const plans = [
      {
        name: 'Database team-a/orders',
        where: 'db.yaml',
        action: 'unchanged' as const,
        changes: [],
        children: [{ name: 'Secret team-a/orders-credentials', action: 'changed' as const, changes: [{ path: 'data.password', from: 'czNjcjN0', to: 'bmV3' }], secret: true }],
        notes: [],
      },
    ];
    const text = formatPlans(plans);
    expect(text).toBe('Database team-a/orders (db.yaml): unchanged\n  Secret team-a/orders-credentials: changed\n      data.password: (a secret value; not shown)\n\n1 resource: 1 unchanged; their children: 1 changed');
    expect(hasChanges(plans)).toBe(true);
  });
});
