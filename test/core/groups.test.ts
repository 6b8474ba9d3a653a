import { main } from '../../src/cli';
import { allIdentities, checkWithoutExtraGroups, crdName, extraGroupNames, isExtraIdentity, mainIdentity, servedIdentities } from '../../src/core/groups';
import { apiVersionOf } from '../../src/core/kind';
import { childLabels, OWNER_KIND_LABEL } from '../../src/core/names';
import { withOwner } from '../../src/core/ownership';
import { defineTestKind } from '../support/test-kind';

const render = () => undefined;
const twin = defineTestKind('Twin', { extraGroups: ['twin.other.example.com'], shortNames: ['tw'], render });
const single = defineTestKind('Single', { render });

describe('a kind\u2019s API identities', () => {
  it('are its main group first, then each extra group, the same definition under another group', () => {
    const [main, extra] = servedIdentities(twin);
    expect(main).toBe(twin);
    expect(extra).toMatchObject({ group: 'twin.other.example.com', kind: 'Twin', plural: 'twins', singular: 'twin', version: 'v1', spec: twin.spec, printerColumns: twin.printerColumns });
    expect([crdName(main), crdName(extra)]).toEqual(['twins.twin.test.cdk8s-operators.io', 'twins.twin.other.example.com']);
    expect([isExtraIdentity(main), isExtraIdentity(extra)]).toEqual([false, true]);
    expect(mainIdentity(extra)).toBe(twin);
    expect(servedIdentities(single)).toEqual([single]);
  });

  it('are the same objects on every call, so that they compare with ===', () => {
    expect(servedIdentities(twin)[1]).toBe(servedIdentities(twin)[1]);
    expect(allIdentities([single, twin])).toEqual([single, twin, servedIdentities(twin)[1]]);
  });

  it('leave short names to the main group, since kubectl resolves a short name two groups share to one of them', () => {
    expect(servedIdentities(twin).map((k) => k.shortNames)).toEqual([['tw'], []]);
  });

  it('leave out the extra groups named by CRD name', () => {
    expect(servedIdentities(twin, ['twins.twin.other.example.com'])).toEqual([twin]);
    expect(extraGroupNames([single, twin])).toEqual(['twins.twin.other.example.com']);
  });

  it('give an extra group\u2019s children owner references and labels of that group, and the main group\u2019s the ones they always had', () => {
    const [main, extra] = servedIdentities(twin);
    const owner = { apiVersion: apiVersionOf(extra), kind: 'Twin', metadata: { name: 'a', namespace: 'ns', uid: 'u1' }, spec: { size: 1 } };
    expect(childLabels(main, owner)[OWNER_KIND_LABEL]).toBe('twins.twin.test.cdk8s-operators.io');
    expect(childLabels(extra, owner)[OWNER_KIND_LABEL]).toBe('twins.twin.other.example.com');
    const child = withOwner({ metadata: { name: 'a', namespace: 'ns' } }, owner, extra) as { metadata: { ownerReferences?: { apiVersion: string }[] } };
    expect(child.metadata.ownerReferences?.[0].apiVersion).toBe('twin.other.example.com/v1');
  });

  it('refuses a definition that names a group twice', () => {
    expect(() => servedIdentities(defineTestKind('Twice', { extraGroups: ['twice.test.cdk8s-operators.io'], render }))).toThrow(
      'Twice: extraGroups names the group "twice.test.cdk8s-operators.io" twice (the main group is twice.test.cdk8s-operators.io)',
    );
  });

  it('refuses to leave out an unknown group or a main group, naming the option and what it takes', () => {
    expect(() => checkWithoutExtraGroups([twin], ['twins.nowhere.io'], '--x')).toThrow('--x: unknown extra group(s) twins.nowhere.io; expected some of twins.twin.other.example.com');
    expect(() => checkWithoutExtraGroups([twin], ['twins.twin.test.cdk8s-operators.io'], '--x')).toThrow('is a main group, which cannot be left out');
    expect(() => checkWithoutExtraGroups([twin], ['twins.twin.other.example.com'], '--x')).not.toThrow();
  });
});

describe('cdk8s-operators controller --without-extra-groups', () => {
  it.each([
    [['copyrators.test.com'], /--without-extra-groups: copyrators\.test\.com is a main group, which cannot be left out .*expected some of copyrators\.flant\.com, databases\.stable\.imaginedata\.co/],
    [['flant.com'], /--without-extra-groups: unknown extra group\(s\) flant\.com; expected some of copyrators\.flant\.com, databases\.stable\.imaginedata\.co/],
  ])('refuses %j, naming the flag and what it takes, before connecting anywhere', async (groups, message) => {
    let err = '';
    const code = await main(['controller', '--kubeconfig', '/nonexistent', `--without-extra-groups=${groups.join(',')}`], () => undefined, (t) => (err += t));
    expect(code).toBe(1);
    expect(err).toMatch(message);
  });
});
