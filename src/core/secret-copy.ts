/**
 * Secret copying (CopyratorRule ruleType secret): the one opt-in of an install, off unless
 * turned on, because it needs Secret rules in a ClusterRole. Its one name in code is
 * `secretCopy`; where users meet it, it keeps the spellings already published:
 *
 * - `npm run synth -- --secret-copy` (scripts/synth.sh hands it to src/main.ts as CDK8S_OPERATORS_SECRET_COPY)
 * - the Helm value `secretCopy`
 * - the controller's `--enable-secrets` (ENABLE_SECRETS), which the install passes when it grants the access
 * - `optIn: 'secrets'` on a kind's permission or watch: granted and watched only when turned on
 */
export const SECRET_COPY = { optIn: 'secrets', synthOption: 'secret-copy', helmValue: 'secretCopy', controllerOption: 'enable-secrets' } as const;

/** What a kind's permission or watch may be opted into. */
export type OptIn = typeof SECRET_COPY.optIn;

/** Whether a permission or watch with this opt-in is on, given the controller's option values. */
export function optedIn(optIn: OptIn | undefined, options: Readonly<Record<string, unknown>>): boolean {
  return !optIn || Boolean(options[SECRET_COPY.controllerOption]);
}
