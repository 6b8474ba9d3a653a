import { commonStatusProperties, Infer, s } from '../../engine/kind';

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

const DNS_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
const DNS_SUBDOMAIN_HINT = 'a DNS subdomain name (lower-case letters, digits, "-" and ".")';

/** The registry name containerd looks Docker Hub up by: images name docker.io, never registry-1.docker.io. */
export const DOCKER_HUB = { upstream: 'registry-1.docker.io', imageName: 'docker.io' };

/** The original's default masquerade host, `mirror-<upstreamUrl>`, when that is a host name at all (a first label of 56 characters or less). */
export function defaultMasqueradeUrl(upstreamUrl: string): string | undefined {
  const candidate = `mirror-${upstreamUrl}`;
  return isUpstream(candidate) && candidate.length <= 253 ? candidate : undefined;
}

/** The cache claim's template, as the original's README wrote it (`volumeClaimTemplate.spec.resources.requests.storage`). */
const volumeClaimTemplate = s.object(
  {
    metadata: s.optional(
      s.object(
        {
          labels: s.optional(s.map(s.string({ description: 'A label value.', maxLength: 63 }), { description: 'Labels the cache claim carries beside the operator\u2019s own.' })),
          annotations: s.optional(s.map(s.string({ description: 'An annotation value.' }), { description: 'Annotations the cache claim carries, e.g. for a backup tool.' })),
        },
        { description: 'Labels and annotations for the cache claim; its name is always registry-mirror-<name>-cache.' },
      ),
    ),
    spec: s.object(
      {
        accessModes: s.optional(
          s.array(s.enum(['ReadWriteOnce', 'ReadWriteOncePod', 'ReadWriteMany'], { description: 'An access mode the cache (which writes) can use.' }), {
            description: 'How the volume may be mounted; default ReadWriteOnce. Fixed once the claim exists.',
            minItems: 1,
            maxItems: 3,
            unique: true,
          }),
        ),
        storageClassName: s.optional(
          s.string({
            description: 'The StorageClass of the cache volume; default: the cluster\u2019s default class. Fixed once the claim exists.',
            pattern: DNS_SUBDOMAIN,
            patternHint: DNS_SUBDOMAIN_HINT,
            maxLength: 253,
          }),
        ),
        resources: s.object(
          {
            requests: s.object(
              { storage: s.quantity({ description: 'The size of the cache volume, e.g. 20Gi; default 10Gi. It can grow where the StorageClass allows expansion, never shrink.', default: '10Gi' }) },
              { description: 'What the claim requests.', default: {} },
            ),
          },
          { description: 'The resources the claim requests.', default: {} },
        ),
      },
      { description: 'The cache claim\u2019s spec: size, storage class and access modes.', default: {} },
    ),
  },
  { description: 'The template of the claim the cache is kept on (size 10Gi by default).', default: {} },
);

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
        pattern: DNS_SUBDOMAIN,
        patternHint: DNS_SUBDOMAIN_HINT,
        maxLength: 253,
      }),
    ),
    masqueradeUrl: s.optional(
      s.string({
        description:
          'Another registry host (with an optional port) images may name to pull through this mirror, e.g. local.docker.io: ' +
          'every node\u2019s containerd resolves it to the mirror, and to the upstream when the mirror does not answer. ' +
          'Default, as the original: mirror-<upstreamUrl>.',
        pattern: UPSTREAM_PATTERN,
        patternHint: UPSTREAM_EXPECTED,
        maxLength: 253,
      }),
    ),
    volumeClaimTemplate,
    priorityClass: s.optional(
      s.string({
        description: 'The PriorityClass of the mirror\u2019s pods (the cache and the node configuration); it must exist.',
        pattern: DNS_SUBDOMAIN,
        patternHint: DNS_SUBDOMAIN_HINT,
        maxLength: 253,
      }),
    ),
  },
  {
    description: 'The registry to mirror and how to log in to it.',
    rules: [
      // The pattern's own error only quotes the regular expression; this says what was expected.
      { cel: `self.upstreamUrl.matches('${UPSTREAM_PATTERN}')`, message: `upstreamUrl must be ${UPSTREAM_EXPECTED}`, fieldPath: '.upstreamUrl', holds: (self) => isUpstream(self.upstreamUrl) },
      {
        cel: `!has(self.masqueradeUrl) || self.masqueradeUrl.matches('${UPSTREAM_PATTERN}')`,
        message: `masqueradeUrl must be ${UPSTREAM_EXPECTED}`,
        fieldPath: '.masqueradeUrl',
        holds: (self) => self.masqueradeUrl === undefined || isUpstream(self.masqueradeUrl),
      },
      {
        // Both would be one directory of containerd's certs.d, and removing one would remove the other.
        cel: `!has(self.masqueradeUrl) || (self.masqueradeUrl != self.upstreamUrl && !(self.upstreamUrl == '${DOCKER_HUB.upstream}' && self.masqueradeUrl == '${DOCKER_HUB.imageName}'))`,
        message: 'masqueradeUrl must be another host than the upstream registry images already name',
        fieldPath: '.masqueradeUrl',
        holds: (self) => self.masqueradeUrl === undefined || (self.masqueradeUrl !== self.upstreamUrl && !(self.upstreamUrl === DOCKER_HUB.upstream && self.masqueradeUrl === DOCKER_HUB.imageName)),
      },
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
    masqueradeUrl: s.optional(s.string({ description: 'The host images may name to pull through the mirror: spec.masqueradeUrl, or the default mirror-<upstreamUrl>.' })),
    cacheReady: s.optional(s.boolean({ description: 'Whether the pull-through cache (its StatefulSet) is ready.' })),
  },
  { description: 'Where the mirror answers and how many nodes use it.' },
);

export type RegistryMirrorSpec = Infer<typeof registryMirrorSpec>;
export type RegistryMirrorStatus = Infer<typeof registryMirrorStatus>;
