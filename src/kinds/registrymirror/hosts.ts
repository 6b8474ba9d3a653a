import { OptionSpec } from '../../engine/kind';
import { DOCKER_HUB, isUpstream } from './api';

/**
 * Registry names the public pulls from: a mirror taking one over decides what every node runs
 * for images of that name. An allowlist's wildcard never covers them; an administrator names
 * each one that a mirror may serve. A name ending in a suffix here (e.g. `.pkg.dev`) counts too.
 */
export const PUBLIC_REGISTRIES = [
  DOCKER_HUB.imageName,
  DOCKER_HUB.upstream,
  'index.docker.io',
  'ghcr.io',
  'quay.io',
  'gcr.io',
  '.gcr.io',
  'k8s.gcr.io',
  'registry.k8s.io',
  '.pkg.dev',
  'public.ecr.aws',
  '.amazonaws.com',
  'mcr.microsoft.com',
  '.azurecr.io',
  'registry.gitlab.com',
  'nvcr.io',
  'docker.elastic.co',
] as const;

/** The administrator's allowlist: a controller flag an install passes (synth's flag and the Helm value of the same meaning). */
export const MIRROR_HOSTS = {
  name: 'mirror-hosts',
  type: 'list',
  installValue: 'mirrorHosts',
  description:
    'The registry hosts RegistryMirrors may serve and masquerade (host[:port], *.suffix, or * for any host but a public registry); a public registry (docker.io, quay.io, ...) only when named. None by default: no mirror is served.',
} as const satisfies OptionSpec;

const hostOf = (name: string) => name.replace(/:[0-9]+$/, '');

/** Whether a registry name (host[:port]) is a public registry's, whatever its port. */
export function isPublicRegistry(name: string): boolean {
  const host = hostOf(name);
  return PUBLIC_REGISTRIES.some((entry) => (entry.startsWith('.') ? host.endsWith(entry) : host === entry));
}

/** Docker Hub is one registry under three names: an entry for any of them allows the one images use. */
const canonical = (name: string) => (name === DOCKER_HUB.upstream || name === 'index.docker.io' ? DOCKER_HUB.imageName : name);

/** Why an allowlist entry is no entry, or undefined for a good one. */
export function entryProblem(entry: string): string | undefined {
  if (entry === '*' || (entry.startsWith('*.') && isUpstream(entry.slice(2))) || isUpstream(entry)) return undefined;
  return `--${MIRROR_HOSTS.name}: "${entry}" is not host[:port], *.suffix or *`;
}

/** Whether the allowlist lets a mirror serve `name` (a registry name the nodes resolve: host[:port]). */
export function hostAllowed(name: string, allowlist: readonly string[]): boolean {
  const wanted = canonical(name);
  return allowlist.some((entry) => {
    if (canonical(entry) === wanted) return true;
    // A wildcard never reaches a public registry: those are named one by one.
    if (isPublicRegistry(wanted)) return false;
    return entry === '*' || (entry.startsWith('*.') && hostOf(wanted).endsWith(entry.slice(1)));
  });
}

/**
 * The registry name containerd looks up in certs.d: the one image references use. Docker Hub
 * is served from registry-1.docker.io but images name it docker.io, so a mirror of it must
 * configure docker.io or it would never be used.
 */
export function containerdRegistryName(upstream: string): string {
  return upstream === DOCKER_HUB.upstream ? DOCKER_HUB.imageName : upstream;
}

/** Every registry name on the node that resolves through the mirror: the upstream's, and the masquerade host. */
export function containerdRegistryNames(upstream: string, masquerade?: string): string[] {
  return [containerdRegistryName(upstream), ...(masquerade ? [masquerade] : [])];
}
