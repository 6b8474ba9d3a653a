import { OptionSpec, optionValue } from '../../engine/kind';

/**
 * Who may pull through the mirrors, as an administrator sets it at install (spegel's
 * `basicAuthSecretName`): without it, anyone who reaches a mirror's Service pulls what the
 * mirror's upstream credentials can read.
 */
export const MIRROR_PULL_SECRET = {
  name: 'mirror-pull-secret',
  type: 'string',
  installValue: 'mirrorPullSecret',
  description:
    'A Secret in registry-mirrors with username, password and htpasswd (htpasswd -nbB username password): every mirror then wants these credentials, and every node\u2019s containerd sends them. None by default: pulls are anonymous.',
} as const satisfies OptionSpec;

/** The network the nodes' containerd pulls from, where the administrator knows it. */
export const MIRROR_CLIENT_CIDRS = {
  name: 'mirror-client-cidrs',
  type: 'list',
  installValue: 'mirrorClientCidrs',
  description: 'The networks (CIDRs) of the nodes, the only clients a mirror\u2019s NetworkPolicy admits; any peer by default.',
} as const satisfies OptionSpec;

/** How pulls through a mirror are guarded, from the controller's options. */
export interface PullAccess {
  /** The Secret with the pull credentials (username, password, htpasswd), in the mirrors' namespace. */
  readonly pullSecret?: string;
  /** The CIDRs admitted to the mirror's port; none means any peer. */
  readonly clientCidrs?: readonly string[];
}

export function pullAccess(options: Readonly<Record<string, unknown>>): PullAccess {
  const pullSecret = optionValue(options, MIRROR_PULL_SECRET);
  const clientCidrs = optionValue(options, MIRROR_CLIENT_CIDRS) ?? [];
  return { ...(pullSecret ? { pullSecret } : {}), ...(clientCidrs.length ? { clientCidrs } : {}) };
}
