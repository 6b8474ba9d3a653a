import { CertificateState, nextStep, renewalDue, renewalTime } from '../../src/runtime/conversion/renewal';

// The renewal decisions of the webhook's certificates, on dates alone (hours from t0).
const t0 = Date.UTC(2030, 0, 1);
const at = (hours: number) => new Date(t0 + hours * 3600_000);
const SETTLE = 2 * 60_000;
const ca = (id: string, from: number, to: number) => ({ id, notBefore: at(from), notAfter: at(to) });
const serving = (issuer: string | undefined, from: number, to: number, namesMatch = true) => ({ issuer, notBefore: at(from), notAfter: at(to), namesMatch });

describe('renewalDue', () => {
  it('is due once two thirds of the life have passed', () => {
    expect(renewalDue({ notBefore: at(0), notAfter: at(30) }, at(19.9))).toBe(false);
    expect(renewalDue({ notBefore: at(0), notAfter: at(30) }, at(20))).toBe(true);
    expect(renewalTime({ notBefore: at(0), notAfter: at(30) })).toEqual(at(20));
  });
});

describe('nextStep', () => {
  const steady: CertificateState = { cas: [ca('a', 0, 300)], signer: 'a', serving: serving('a', 0, 90) };

  it('makes a CA when there is none, or when the key matches none of the bundle', () => {
    expect(nextStep({ cas: [] }, at(0), SETTLE)).toMatchObject({ action: 'new-ca', why: 'there is no CA yet' });
    expect(nextStep({ cas: [ca('a', 0, 300)] }, at(0), SETTLE)).toMatchObject({ action: 'new-ca', why: expect.stringMatching(/key matches no CA/) });
  });

  it('does nothing while everything is young', () => {
    expect(nextStep(steady, at(10), SETTLE)).toEqual({ action: 'none' });
  });

  it('renews the serving certificate after two thirds of its life, from the same CA without waiting', () => {
    expect(nextStep(steady, at(60), SETTLE)).toEqual({ action: 'new-serving', why: expect.stringMatching(/two thirds/), needsTrust: false });
  });

  it('renews the CA after two thirds of its life', () => {
    expect(nextStep({ ...steady, serving: serving('a', 190, 280) }, at(200), SETTLE)).toMatchObject({ action: 'new-ca', why: expect.stringMatching(/two thirds/) });
  });

  it('keeps serving the old CA’s certificate until the new CA has settled, then renews it once the CRDs trust the new CA', () => {
    const rotating: CertificateState = { cas: [ca('b', 200, 500), ca('a', 0, 300)], signer: 'b', serving: serving('a', 190, 280) };
    expect(nextStep(rotating, new Date(at(200).getTime() + SETTLE - 1), SETTLE)).toMatchObject({ action: 'wait', why: expect.stringMatching(/previous CA.*not yet settled/) });
    expect(nextStep(rotating, new Date(at(200).getTime() + SETTLE), SETTLE)).toEqual({ action: 'new-serving', why: expect.stringMatching(/previous CA/), needsTrust: true });
  });

  it('does not wait for trust when what is served has expired or is missing: anything beats nothing', () => {
    const rotating: CertificateState = { cas: [ca('b', 200, 500), ca('a', 0, 300)], signer: 'b', serving: serving('a', 190, 200) };
    expect(nextStep(rotating, at(200), SETTLE)).toMatchObject({ action: 'new-serving', needsTrust: false });
    expect(nextStep({ ...rotating, serving: undefined }, at(200), SETTLE)).toMatchObject({ action: 'new-serving', needsTrust: false });
    expect(nextStep({ ...rotating, serving: serving(undefined, 190, 280) }, at(200), SETTLE)).toMatchObject({ action: 'new-serving', why: expect.stringMatching(/no CA of the bundle/) });
  });

  it('drops the old CA from the bundle once it has expired (nothing it signed is valid by then)', () => {
    const after: CertificateState = { cas: [ca('b', 200, 500), ca('a', 0, 300)], signer: 'b', serving: serving('b', 201, 291) };
    expect(nextStep(after, at(270), SETTLE)).toEqual({ action: 'new-serving', why: expect.stringMatching(/two thirds/), needsTrust: false });
    expect(nextStep({ ...after, serving: serving('b', 290, 380) }, at(300), SETTLE)).toEqual({ action: 'drop-cas', ids: ['a'] });
  });

  it('renews a serving certificate that names other hosts (the Service or namespace changed)', () => {
    expect(nextStep({ ...steady, serving: serving('a', 0, 90, false) }, at(1), SETTLE)).toMatchObject({ action: 'new-serving', why: expect.stringMatching(/other hosts/) });
  });
});
