/**
 * When the webhook's certificates are renewed: decisions only, on dates, so that a unit test
 * walks a whole rotation without making a key.
 *
 * The rotation never serves a certificate the API server does not trust yet: a new CA goes into
 * the bundle (and is injected into the CRDs) first, and a serving certificate it signs is made
 * only once the CA has been in the bundle for `settleMs` and the CRDs hold it. The old CA stays
 * in the bundle until it expires; a serving certificate never outlives the CA that signed it,
 * so by then nothing it signed is valid anyway.
 */

export interface Validity {
  readonly notBefore: Date;
  readonly notAfter: Date;
}

/** What the Secret holds, as far as the decisions need it. */
export interface CertificateState {
  /** The CAs of the bundle, by id. */
  readonly cas: readonly (Validity & { readonly id: string })[];
  /** The id of the CA whose key the Secret holds: the one that signs new serving certificates. None: no usable CA. */
  readonly signer?: string;
  /** The serving certificate; none when it is missing or does not match its key. */
  readonly serving?: Validity & {
    /** The id of the bundle's CA that signed it; none when no CA of the bundle did. */
    readonly issuer?: string;
    /** Whether it names exactly the host names and addresses wanted. */
    readonly namesMatch: boolean;
  };
}

export type Step =
  | { readonly action: 'new-ca'; readonly why: string }
  | { readonly action: 'drop-cas'; readonly ids: readonly string[] }
  /** `needsTrust`: the caller first checks that the CRDs hold the signing CA, and waits if not. */
  | { readonly action: 'new-serving'; readonly why: string; readonly needsTrust: boolean }
  | { readonly action: 'wait'; readonly why: string }
  | { readonly action: 'none' };

/** A certificate is renewed once two thirds of its life have passed (as kubelet and cert-manager do by default). */
export function renewalDue(cert: Validity, now: Date): boolean {
  const life = cert.notAfter.getTime() - cert.notBefore.getTime();
  return now.getTime() >= cert.notBefore.getTime() + (life * 2) / 3;
}

/** When renewalDue turns true. */
export function renewalTime(cert: Validity): Date {
  return new Date(cert.notBefore.getTime() + ((cert.notAfter.getTime() - cert.notBefore.getTime()) * 2) / 3);
}

/** The next thing to do to the Secret; the caller does it, reads the result and asks again until none or wait. */
export function nextStep(state: CertificateState, now: Date, settleMs: number): Step {
  const signer = state.cas.find((ca) => ca.id === state.signer);
  if (!signer) return { action: 'new-ca', why: state.cas.length ? 'the CA key matches no CA of the bundle' : 'there is no CA yet' };
  if (now >= signer.notAfter) return { action: 'new-ca', why: 'the CA has expired' };
  if (renewalDue(signer, now)) return { action: 'new-ca', why: 'the CA has passed two thirds of its life' };
  const expired = state.cas.filter((ca) => ca.id !== signer.id && now >= ca.notAfter).map((ca) => ca.id);
  if (expired.length) return { action: 'drop-cas', ids: expired };

  const serving = state.serving;
  // Nothing valid is served: any certificate is better, trusted or not yet.
  if (!serving) return { action: 'new-serving', why: 'there is no serving certificate (or it does not match its key)', needsTrust: false };
  if (!serving.issuer) return { action: 'new-serving', why: 'no CA of the bundle signed the serving certificate', needsTrust: false };
  if (now >= serving.notAfter) return { action: 'new-serving', why: 'the serving certificate has expired', needsTrust: false };
  const fromOldCa = serving.issuer !== signer.id;
  const why = !serving.namesMatch
    ? 'the serving certificate names other hosts'
    : renewalDue(serving, now)
      ? 'the serving certificate has passed two thirds of its life'
      : fromOldCa
        ? 'the serving certificate was signed by the previous CA'
        : undefined;
  if (!why) return { action: 'none' };
  // The old certificate is still valid: keep it until the API server trusts the new CA.
  if (fromOldCa && now.getTime() - signer.notBefore.getTime() < settleMs) return { action: 'wait', why: `${why}; the new CA is not yet settled in the bundle` };
  return { action: 'new-serving', why, needsTrust: fromOldCa };
}
