import { isChildCollection } from '../../src/core/kit/child-policy';
import { CHILD_VERBS } from '../../src/core/contract/kind';

describe('isChildCollection: the one rule the controller and the diff plan use', () => {
  it('takes a collection the kind creates, lists and watches for a child one', () => {
    expect(isChildCollection({ verbs: CHILD_VERBS })).toBe(true);
    expect(isChildCollection({ verbs: ['create', 'list', 'watch'] })).toBe(true);
  });

  it('takes one the kind only reads, or creates without watching, for no child collection', () => {
    expect(isChildCollection({ verbs: ['get', 'list', 'watch'] })).toBe(false);
    expect(isChildCollection({ verbs: ['get', 'create'] })).toBe(false);
  });
});
