import { fieldsOutside, ManagedFieldsEntry, takenOver } from '../../src/kube/create-then-apply';

const object = (managedFields: ManagedFieldsEntry[]) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', managedFields } });
const entry = (manager: string, operation: string, fieldsV1: ManagedFieldsEntry['fieldsV1'], extra: Partial<ManagedFieldsEntry> = {}): ManagedFieldsEntry => ({ manager, operation, apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1, ...extra });

describe('taking over the fields a POST set', () => {
  const kept = { 'f:data': { 'f:kept': {} } };
  const dropped = { 'f:data': { 'f:kept': {}, 'f:dropped': {} } };

  it('merges the POST entry into the apply entry when it holds a field the apply left out', () => {
    const other = entry('someone', 'Update', { 'f:data': { 'f:theirs': {} } });
    const fields = takenOver(object([entry('me', 'Apply', kept), entry('me-create', 'Update', dropped), other]), 'me-create', 'me');
    expect(fields).toEqual([entry('me', 'Apply', { 'f:data': { 'f:kept': {}, 'f:dropped': {} } }), other]);
  });

  it('leaves the entries alone while the apply holds every field of the POST', () => {
    expect(takenOver(object([entry('me', 'Apply', dropped), entry('me-create', 'Update', kept)]), 'me-create', 'me')).toBeUndefined();
  });

  it('makes the apply entry when there is none yet', () => {
    expect(takenOver(object([entry('me-create', 'Update', kept)]), 'me-create', 'me')).toEqual([entry('me', 'Apply', kept)]);
  });

  it('never takes a subresource entry, nor one of another apiVersion, nor another manager\u2019s', () => {
    expect(takenOver(object([entry('me', 'Apply', kept), entry('me-create', 'Update', dropped, { subresource: 'status' })]), 'me-create', 'me')).toBeUndefined();
    expect(takenOver(object([entry('me', 'Apply', kept), entry('me-create', 'Update', dropped, { apiVersion: 'v2' })]), 'me-create', 'me')).toBeUndefined();
    expect(takenOver(object([entry('me', 'Apply', kept), entry('me', 'Update', dropped)]), 'me-create', 'me')).toBeUndefined();
  });

  it('compares field sets at every depth, but not a map\u2019s own "." where the other holds the map', () => {
    expect(fieldsOutside({ 'f:a': { 'f:b': {} } }, { 'f:a': {} })).toBe(true);
    expect(fieldsOutside({ 'f:a': { '.': {}, 'f:b': {} } }, { 'f:a': { 'f:b': {} } })).toBe(false);
    expect(fieldsOutside({ 'f:a': { '.': {} } }, {})).toBe(true);
    expect(fieldsOutside({ 'f:a': {} }, { 'f:a': { 'f:b': {} } })).toBe(false);
  });
});
