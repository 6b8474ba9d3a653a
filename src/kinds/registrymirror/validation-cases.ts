import { ValidationCases } from '../../engine/kind';

/** Objects the API server and the controller must both accept, and both refuse naming the field (see ValidationCases). */
export const validationCases: ValidationCases = {
  valid: [
    { name: 'a plain host', body: { spec: { upstreamUrl: 'registry-1.docker.io' } } },
    { name: 'a host with a port', body: { spec: { upstreamUrl: 'myregistry.example:5000' } } },
    { name: 'the highest port', body: { spec: { upstreamUrl: 'myregistry.example:65535' } } },
    { name: 'a single-label host', body: { spec: { upstreamUrl: 'localhost:5000' } } },
    { name: 'a credentials Secret', body: { spec: { upstreamUrl: 'ghcr.io', credentialsSecret: 'ghcr-credentials' } } },
    {
      name: 'the original README\u2019s masqueradeUrl and volumeClaimTemplate, and the priorityClass its code read',
      body: {
        spec: {
          upstreamUrl: 'registry-1.docker.io',
          masqueradeUrl: 'local.docker.io',
          volumeClaimTemplate: { spec: { storageClassName: 'standard', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '20Gi' } } } },
          priorityClass: 'system-cluster-critical',
        },
      },
    },
    { name: 'a masquerade host with a port', body: { spec: { upstreamUrl: 'quay.io', masqueradeUrl: 'local.quay.io:5000' } } },
    { name: 'a claim size as a number of bytes', body: { spec: { upstreamUrl: 'quay.io', volumeClaimTemplate: { spec: { resources: { requests: { storage: 21474836480 } } } } } } },
    { name: 'claim labels and annotations', body: { spec: { upstreamUrl: 'quay.io', volumeClaimTemplate: { metadata: { labels: { team: 'a' }, annotations: { note: 'cache' } }, spec: {} } } } },
  ],
  invalid: [
    { name: 'no upstreamUrl', body: { spec: { credentialsSecret: 'hub' } }, field: 'spec.upstreamUrl' },
    { name: 'an empty upstreamUrl', body: { spec: { upstreamUrl: '' } }, field: 'spec.upstreamUrl' },
    { name: 'a URL with https://', body: { spec: { upstreamUrl: 'https://registry-1.docker.io' } }, field: 'spec.upstreamUrl' },
    { name: 'a URL with a path', body: { spec: { upstreamUrl: 'registry-1.docker.io/library' } }, field: 'spec.upstreamUrl' },
    { name: 'a port out of range', body: { spec: { upstreamUrl: 'myregistry.example:65536' } }, field: 'spec.upstreamUrl' },
    { name: 'port 0', body: { spec: { upstreamUrl: 'myregistry.example:0' } }, field: 'spec.upstreamUrl' },
    { name: 'a non-numeric port', body: { spec: { upstreamUrl: 'myregistry.example:http' } }, field: 'spec.upstreamUrl' },
    { name: 'a host with capitals', body: { spec: { upstreamUrl: 'Registry-1.Docker.io' } }, field: 'spec.upstreamUrl' },
    { name: 'a host with shell characters', body: { spec: { upstreamUrl: 'a.example;reboot' } }, field: 'spec.upstreamUrl' },
    { name: 'a host longer than 253 characters', body: { spec: { upstreamUrl: `${'a'.repeat(62)}.`.repeat(4) + 'example' } }, field: 'spec.upstreamUrl' },
    { name: 'a number for upstreamUrl', body: { spec: { upstreamUrl: 443 } }, field: 'spec.upstreamUrl' },
    { name: 'a credentialsSecret with capitals', body: { spec: { upstreamUrl: 'ghcr.io', credentialsSecret: 'GHCR' } }, field: 'spec.credentialsSecret' },
    { name: 'no spec at all', body: {}, field: 'spec' },
    { name: 'a masqueradeUrl with a scheme', body: { spec: { upstreamUrl: 'registry-1.docker.io', masqueradeUrl: 'http://local.docker.io' } }, field: 'spec.masqueradeUrl' },
    { name: 'a masqueradeUrl with shell characters', body: { spec: { upstreamUrl: 'registry-1.docker.io', masqueradeUrl: "local'; reboot" } }, field: 'spec.masqueradeUrl' },
    { name: 'a masqueradeUrl that is the upstream', body: { spec: { upstreamUrl: 'quay.io', masqueradeUrl: 'quay.io' } }, field: 'spec.masqueradeUrl' },
    { name: 'docker.io as the masqueradeUrl of Docker Hub', body: { spec: { upstreamUrl: 'registry-1.docker.io', masqueradeUrl: 'docker.io' } }, field: 'spec.masqueradeUrl' },
    {
      name: 'a claim size that is no quantity',
      body: { spec: { upstreamUrl: 'quay.io', volumeClaimTemplate: { spec: { resources: { requests: { storage: 'twenty gigs' } } } } } },
      field: 'spec.volumeClaimTemplate.spec.resources.requests.storage',
    },
    { name: 'a storage class with capitals', body: { spec: { upstreamUrl: 'quay.io', volumeClaimTemplate: { spec: { storageClassName: 'Fast' } } } }, field: 'spec.volumeClaimTemplate.spec.storageClassName' },
    { name: 'a read-only access mode for a cache that writes', body: { spec: { upstreamUrl: 'quay.io', volumeClaimTemplate: { spec: { accessModes: ['ReadOnlyMany'] } } } }, field: 'spec.volumeClaimTemplate.spec.accessModes[0]' },
    { name: 'no access mode in the list', body: { spec: { upstreamUrl: 'quay.io', volumeClaimTemplate: { spec: { accessModes: [] } } } }, field: 'spec.volumeClaimTemplate.spec.accessModes' },
    { name: 'a priorityClass with capitals', body: { spec: { upstreamUrl: 'quay.io', priorityClass: 'High' } }, field: 'spec.priorityClass' },
    { name: 'a number for priorityClass', body: { spec: { upstreamUrl: 'quay.io', priorityClass: 1000 } }, field: 'spec.priorityClass' },
  ],
};
