import { ValidationCases } from '../../core/validation-cases';

/** Objects the API server and the controller must both accept, and both refuse naming the field (see ValidationCases). */
export const validationCases: ValidationCases = {
  valid: [
    { name: 'a plain host', body: { spec: { upstreamUrl: 'registry-1.docker.io' } } },
    { name: 'a host with a port', body: { spec: { upstreamUrl: 'myregistry.example:5000' } } },
    { name: 'the highest port', body: { spec: { upstreamUrl: 'myregistry.example:65535' } } },
    { name: 'a single-label host', body: { spec: { upstreamUrl: 'localhost:5000' } } },
    { name: 'a credentials Secret', body: { spec: { upstreamUrl: 'ghcr.io', credentialsSecret: 'ghcr-credentials' } } },
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
  ],
};
