import { childName, labelValue } from '../../src/core/kit/names';

describe('childName', () => {
  it('is exactly prefix + owner + suffix when that fits', () => {
    expect(childName('docker-hub', { prefix: 'registry-mirror-', suffix: '-utils', maxLength: 63 })).toBe('registry-mirror-docker-hub-utils');
  });
  it('shortens a long owner name deterministically and keeps it unique with a hash', () => {
    const long = 'x'.repeat(100);
    const name = childName(long, { prefix: 'registry-mirror-', suffix: '-utils', maxLength: 63 });
    expect(name).toHaveLength(63);
    expect(name).toMatch(/^registry-mirror-x+-[0-9a-f]{8}-utils$/);
    expect(childName(long, { prefix: 'registry-mirror-', suffix: '-utils', maxLength: 63 })).toBe(name);
    expect(childName(`${'x'.repeat(99)}y`, { prefix: 'registry-mirror-', suffix: '-utils', maxLength: 63 })).not.toBe(name);
  });
  it('never ends the shortened part with a dash or dot', () => {
    expect(childName(`${'a'.repeat(40)}-${'b'.repeat(40)}`, { maxLength: 50 })).toMatch(/^a{40}-[0-9a-f]{8}$/);
  });
  it('refuses a prefix and suffix that leave no room', () => {
    expect(() => childName('x'.repeat(10), { prefix: 'p'.repeat(30), suffix: 's'.repeat(30), maxLength: 63 })).toThrow('cannot derive a name of at most 63 characters');
  });
});

describe('labelValue', () => {
  it('keeps short values and fits long ones into 63 characters', () => {
    expect(labelValue('usd')).toBe('usd');
    expect(labelValue('a'.repeat(253))).toHaveLength(63);
  });
});
