import { commonStatusProperties } from '../../core/status';
import { Infer, s } from '../../schema';

// No backslashes on purpose: the same text is a CRD `pattern`, a CEL string literal and a JavaScript RegExp.
const HOST_LABEL = '[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?';
const PORT = '(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})';

/** A registry host with an optional port (1-65535): no scheme, no path, no user info. */
export const UPSTREAM_PATTERN = `^${HOST_LABEL}([.]${HOST_LABEL})*(:${PORT})?$`;
const UPSTREAM_REGEXP = new RegExp(UPSTREAM_PATTERN, 'u');
const UPSTREAM_EXPECTED = 'a registry host with an optional port, such as registry-1.docker.io or myregistry.example:5000, without a scheme (https://) or a path';

/** Whether `text` is a valid `spec.upstreamUrl`. */
export function isUpstream(text: string): boolean {
  return UPSTREAM_REGEXP.test(text);
}

export const registryMirrorSpec = s.object(
  {
    upstreamUrl: s.string({
      description:
        'The registry to mirror: its host and an optional port, such as registry-1.docker.io or myregistry.example:5000, ' +
        'without a scheme or a path. The mirror always reaches it over HTTPS.',
      pattern: UPSTREAM_PATTERN,
      patternHint: UPSTREAM_EXPECTED,
      maxLength: 253,
    }),
    credentialsSecret: s.optional(
      s.string({
        description:
          'Name of a Secret with the keys `username` and `password` the mirror logs in to the upstream registry with. ' +
          'The Secret must be in the registry-mirrors namespace, beside the mirror, since a Pod can only reference Secrets ' +
          'of its own namespace. Leave it out for anonymous pulls.',
        pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
        patternHint: 'a DNS subdomain name (lower-case letters, digits, "-" and ".")',
        maxLength: 253,
      }),
    ),
  },
  {
    description: 'The registry to mirror and how to log in to it.',
    rules: [
      // The pattern's own error only quotes the regular expression; this says what was expected.
      { cel: `self.upstreamUrl.matches('${UPSTREAM_PATTERN}')`, message: `upstreamUrl must be ${UPSTREAM_EXPECTED}`, fieldPath: '.upstreamUrl', holds: (self) => isUpstream(self.upstreamUrl) },
    ],
  },
);

export const registryMirrorStatus = s.object(
  {
    ...commonStatusProperties,
    endpoint: s.optional(s.string({ description: 'Where the mirror answers inside the cluster, as host:port of its Service.' })),
    clusterIP: s.optional(s.string({ description: 'The ClusterIP of the mirror\u2019s Service, which the nodes\u2019 containerd pulls from.' })),
    nodesDesired: s.optional(s.integer({ description: 'Nodes that should point their containerd at the mirror.', minimum: 0 })),
    nodesConfigured: s.optional(s.integer({ description: 'Nodes whose containerd points at the mirror now.', minimum: 0 })),
    nodesPending: s.optional(
      s.array(s.string({ description: 'A node name (or the configuring pod’s, before it is scheduled).' }), { description: 'Nodes whose containerd does not use the mirror yet.', maxItems: 100 }),
    ),
    cacheReady: s.optional(s.boolean({ description: 'Whether the pull-through cache (its StatefulSet) is ready.' })),
  },
  { description: 'Where the mirror answers and how many nodes use it.' },
);

export type RegistryMirrorSpec = Infer<typeof registryMirrorSpec>;
export type RegistryMirrorStatus = Infer<typeof registryMirrorStatus>;
