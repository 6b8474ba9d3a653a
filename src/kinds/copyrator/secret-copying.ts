import { KindOptIn } from '../../engine/kind';

/**
 * Secret copying (rules with ruleType secret): off unless the install turns it on, because it
 * needs Secret access in a ClusterRole. Its spellings are the ones already published: synth's
 * --secret-copy, the Helm value secretCopy, the controller's --enable-secrets (ENABLE_SECRETS).
 */
export const SECRET_COPYING = {
  name: 'secrets',
  title: 'Secret copying',
  description: 'Let the controller copy Secrets (CopyratorRule ruleType secret)',
  access: 'Secret access',
  synthOption: 'secret-copy',
  helmValue: 'secretCopy',
  controllerOption: 'enable-secrets',
} as const satisfies KindOptIn;
