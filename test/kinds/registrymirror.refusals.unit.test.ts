import { KubeJson } from '../../src/core/contract/kind';
import { RegistryMirrorSpec } from '../../src/kinds/registrymirror';
import { hostAllowed, isPublicRegistry } from '../../src/kinds/registrymirror/hosts';
import { CREDENTIALS_FOR, refusal, RefusalInput } from '../../src/kinds/registrymirror/refusals';

// What the controller decides for one mirror from its options, its peers and its Secret's
// metadata; test/e2e/registrymirror-allowlist.test.ts sees the same on the API server.
type Mirror = KubeJson & { spec: RegistryMirrorSpec };
const mirror = (name: string, spec: Partial<RegistryMirrorSpec>, creationTimestamp = '2026-01-01T00:00:00Z'): Mirror => ({
  apiVersion: 'k8s.osp.tech/v1',
  kind: 'RegistryMirror',
  metadata: { name, creationTimestamp },
  spec: { volumeClaimTemplate: { spec: { resources: { requests: { storage: '10Gi' } } } }, ...spec } as RegistryMirrorSpec,
});
const decide = (m: Mirror, input: Partial<RefusalInput> = {}) => refusal(m, { options: {}, mirrors: [m], ...input });
const hosts = (...list: string[]) => ({ 'mirror-hosts': list });

describe('the hosts a RegistryMirror may serve', () => {
  it('are none without an allowlist, naming the field and the flag', () => {
    expect(decide(mirror('corp', { upstreamUrl: 'registry.corp.example' }))).toEqual({
      status: 'False',
      reason: 'HostNotAllowed',
      message:
        'spec.upstreamUrl: registry.corp.example is not in the administrator\u2019s allowlist, which a mirror may serve only when the controller runs with --mirror-hosts naming it (now: none); see docs/kinds/registrymirror.md#who-may-mirror-what',
    });
  });

  it('are those the allowlist names, a wildcard covering a domain\u2019s hosts and ports', () => {
    expect(decide(mirror('corp', { upstreamUrl: 'registry.corp.example:5000' }), { options: hosts('*.corp.example') })).toBeUndefined();
    expect(decide(mirror('corp', { upstreamUrl: 'registry.corp.example' }), { options: hosts('registry.corp.example') })).toBeUndefined();
    expect(decide(mirror('corp', { upstreamUrl: 'registry.other.example' }), { options: hosts('*.corp.example') })?.reason).toBe('HostNotAllowed');
  });

  it('never include a public registry by a wildcard: docker.io as a masquerade host is refused, naming spec.masqueradeUrl', () => {
    const takeover = mirror('evil', { upstreamUrl: 'registry.attacker.example', masqueradeUrl: 'docker.io' });
    expect(decide(takeover, { options: hosts('*') })).toMatchObject({ reason: 'HostNotAllowed', message: expect.stringMatching(/^spec\.masqueradeUrl: docker\.io is a public registry, which/) });
    for (const name of ['docker.io', 'registry-1.docker.io', 'index.docker.io', 'ghcr.io', 'quay.io', 'gcr.io', 'eu.gcr.io', 'registry.k8s.io', 'europe-docker.pkg.dev', 'public.ecr.aws', 'mcr.microsoft.com', 'quay.io:443']) {
      expect([name, isPublicRegistry(name), hostAllowed(name, ['*'])]).toEqual([name, true, false]);
    }
  });

  it('include a public registry the administrator names, Docker Hub under any of its names', () => {
    const hub = mirror('docker-hub', { upstreamUrl: 'registry-1.docker.io' });
    expect(decide(hub, { options: hosts('docker.io') })).toBeUndefined();
    expect(decide(hub, { options: hosts('registry-1.docker.io') })).toBeUndefined();
    // The original's default masquerade host goes with its upstream; one named explicitly needs its own entry.
    expect(decide(mirror('hub', { upstreamUrl: 'registry-1.docker.io', masqueradeUrl: 'local.docker.io' }), { options: hosts('docker.io') })?.message).toMatch(/^spec\.masqueradeUrl: local\.docker\.io is not/);
  });

  it('refuse every mirror, naming the entry, while the allowlist holds something that is no host', () => {
    expect(decide(mirror('q', { upstreamUrl: 'quay.io' }), { options: hosts('quay.io', 'https://quay.io') })).toMatchObject({
      reason: 'AllowlistInvalid',
      message: 'the controller\u2019s allowlist is not valid: --mirror-hosts: "https://quay.io" is not host[:port], *.suffix or *',
    });
  });
});

describe('two RegistryMirrors for one registry name', () => {
  const options = hosts('quay.io', 'local.quay.io', 'registry.corp.example');
  const first = mirror('b-first', { upstreamUrl: 'quay.io' }, '2026-01-01T00:00:00Z');
  const second = mirror('a-second', { upstreamUrl: 'quay.io' }, '2026-01-02T00:00:00Z');

  it('leave the name to the one created first; the later one is refused, naming it', () => {
    const mirrors = [second, first];
    expect(decide(first, { options, mirrors })).toBeUndefined();
    expect(decide(second, { options, mirrors })).toEqual({
      status: 'False',
      reason: 'HostTaken',
      message: 'spec.upstreamUrl: RegistryMirror b-first, created earlier, already serves quay.io; one registry name has one mirror',
    });
  });

  it('created in the same second, leave it to the first by name', () => {
    const a = mirror('a', { upstreamUrl: 'quay.io' });
    const b = mirror('b', { upstreamUrl: 'quay.io' });
    expect(decide(a, { options, mirrors: [b, a] })).toBeUndefined();
    expect(decide(b, { options, mirrors: [a, b] })?.reason).toBe('HostTaken');
  });

  it('count a masquerade host too, and ignore an earlier mirror that may not serve its names', () => {
    const squatter = mirror('squatter', { upstreamUrl: 'registry.corp.example', masqueradeUrl: 'quay.io' }, '2026-01-01T00:00:00Z');
    expect(decide(second, { options, mirrors: [squatter, second] })?.message).toBe('spec.upstreamUrl: RegistryMirror squatter, created earlier, already serves quay.io; one registry name has one mirror');
    const refused = mirror('refused', { upstreamUrl: 'registry.attacker.example', masqueradeUrl: 'quay.io' }, '2025-01-01T00:00:00Z');
    expect(decide(second, { options, mirrors: [refused, second] })).toBeUndefined();
  });
});

describe('a RegistryMirror\u2019s priority and credentials', () => {
  const options = hosts('ghcr.io');

  it('may not use a system- PriorityClass unless the administrator allows it', () => {
    const critical = mirror('ghcr', { upstreamUrl: 'ghcr.io', priorityClass: 'system-node-critical' });
    expect(decide(critical, { options })).toEqual({
      status: 'False',
      reason: 'PriorityClassNotAllowed',
      message: 'spec.priorityClass: system-node-critical is reserved for the cluster\u2019s own components; a mirror may use it only when the controller runs with --mirror-priority-classes naming it',
    });
    expect(decide(critical, { options: { ...options, 'mirror-priority-classes': ['system-node-critical'] } })).toBeUndefined();
    expect(decide(mirror('ghcr', { upstreamUrl: 'ghcr.io', priorityClass: 'registry-mirror-critical' }), { options })).toBeUndefined();
  });

  it('send a Secret upstream only when the Secret names the mirror', () => {
    const withSecret = mirror('ghcr', { upstreamUrl: 'ghcr.io', credentialsSecret: 'team-b-robot' });
    const secret = (annotations?: Record<string, string>): KubeJson => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'team-b-robot', namespace: 'registry-mirrors', ...(annotations ? { annotations } : {}) } });
    expect(decide(withSecret, { options, secret: secret() })).toEqual({
      status: 'False',
      reason: 'CredentialsNotForMirror',
      message: 'spec.credentialsSecret: Secret registry-mirrors/team-b-robot does not name this mirror, so its credentials are not sent upstream; its owner annotates it registrymirror.cdk8s-operators.io/mirror=ghcr',
    });
    expect(decide(withSecret, { options, secret: secret({ [CREDENTIALS_FOR]: 'ghcr-other' }) })?.reason).toBe('CredentialsNotForMirror');
    expect(decide(withSecret, { options, secret: secret({ [CREDENTIALS_FOR]: 'quay, ghcr' }) })).toBeUndefined();
    // A Secret that does not exist yet is CredentialsMissing, the controller's older verdict.
    expect(decide(withSecret, { options })).toBeUndefined();
  });
});
