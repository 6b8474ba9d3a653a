import { main } from '../../src/cli';
import { allIdentities, checkWithoutExtraGroups, crdName, extraGroupNames, isExtraIdentity, mainIdentity, servedIdentities } from '../../src/core/groups';
import { apiVersionOf } from '../../src/core/contract/kind';
import { childLabels, OWNER_KIND_LABEL } from '../../src/core/kit/names';
import { withOwner } from '../../src/core/ownership';
import { defineTestKind } from '../../src/testing/test-kind';

const render = () => undefined;
const pair = defineTestKind('Pair', { extraGroups: ['pair.other.example.com'], shortNames: ['tw'], render });
const single = defineTestKind('Single', { render });

describe('a kind\u2019s API identities', () => {
  it('are its main group first, then each extra group, the same definition under another group', () => {
    const [main, extra] = servedIdentities(pair);
    expect(main).toBe(pair);
    expect(extra).toMatchObject({ group: 'pair.other.example.com', kind: 'Pair', plural: 'pairs', singular: 'pair', version: 'v1', spec: pair.spec, printerColumns: pair.printerColumns });
    expect([crdName(main), crdName(extra)]).toEqual(['pairs.pair.test.cdk8s-operators.io', 'pairs.pair.other.example.com']);
    expect([isExtraIdentity(main), isExtraIdentity(extra)]).toEqual([false, true]);
    expect(mainIdentity(extra)).toBe(pair);
    expect(servedIdentities(single)).toEqual([single]);
  });

  it('are the same objects on every call, so that they compare with ===', () => {
    expect(servedIdentities(pair)[1]).toBe(servedIdentities(pair)[1]);
    expect(allIdentities([single, pair])).toEqual([single, pair, servedIdentities(pair)[1]]);
  });

  it('leave short names to the main group, since kubectl resolves a short name two groups share to one of them', () => {
    expect(servedIdentities(pair).map((k) => k.shortNames)).toEqual([['tw'], []]);
  });

  it('leave out the extra groups named by CRD name', () => {
    expect(servedIdentities(pair, ['pairs.pair.other.example.com'])).toEqual([pair]);
    expect(extraGroupNames([single, pair])).toEqual(['pairs.pair.other.example.com']);
  });

  it('give an extra group\u2019s children owner references and labels of that group, and the main group\u2019s the ones they always had', () => {
    const [main, extra] = servedIdentities(pair);
    const owner = { apiVersion: apiVersionOf(extra), kind: 'Pair', metadata: { name: 'a', namespace: 'ns', uid: 'u1' }, spec: { size: 1 } };
    expect(childLabels(main, owner)[OWNER_KIND_LABEL]).toBe('pairs.pair.test.cdk8s-operators.io');
    expect(childLabels(extra, owner)[OWNER_KIND_LABEL]).toBe('pairs.pair.other.example.com');
    const child = withOwner({ metadata: { name: 'a', namespace: 'ns' } }, owner, extra) as { metadata: { ownerReferences?: { apiVersion: string }[] } };
    expect(child.metadata.ownerReferences?.[0].apiVersion).toBe('pair.other.example.com/v1');
  });

  it('refuses a definition that names a group twice', () => {
    expect(() => servedIdentities(defineTestKind('Twice', { extraGroups: ['twice.test.cdk8s-operators.io'], render }))).toThrow(
      'Twice: extraGroups names the group "twice.test.cdk8s-operators.io" twice (the main group is twice.test.cdk8s-operators.io)',
    );
  });

  it('refuses to leave out an unknown group or a main group, naming the option and what it takes', () => {
    expect(() => checkWithoutExtraGroups([pair], ['pairs.nowhere.io'], '--x')).toThrow('--x: unknown extra group(s) pairs.nowhere.io; expected some of pairs.pair.other.example.com');
    expect(() => checkWithoutExtraGroups([pair], ['pairs.pair.test.cdk8s-operators.io'], '--x')).toThrow('is a main group, which cannot be left out');
    expect(() => checkWithoutExtraGroups([pair], ['pairs.pair.other.example.com'], '--x')).not.toThrow();
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
