import { KubeJson, OptionSpec, optionValue, ReadyVerdict } from '../../engine/kind';
import { defaultMasqueradeUrl, isUpstream, RegistryMirrorSpec } from './api';
import { containerdRegistryName, entryProblem, hostAllowed, isPublicRegistry, MIRROR_HOSTS } from './hosts';
import { MIRRORS_NAMESPACE } from './names';

/** PriorityClasses of the reserved `system-` prefix a mirror may use (none by default). */
export const MIRROR_PRIORITY_CLASSES = {
  name: 'mirror-priority-classes',
  type: 'list',
  installValue: 'mirrorPriorityClasses',
  description: 'The PriorityClasses of the reserved system- prefix (system-node-critical, system-cluster-critical) RegistryMirrors may use; none by default.',
} as const satisfies OptionSpec;

/** The annotation by which a credentials Secret names the mirrors that may send it upstream (comma-separated). */
export const CREDENTIALS_FOR = 'registrymirror.cdk8s-operators.io/mirror';

/** What a mirror is refused for: no children are rendered, and Ready says so. */
export const REFUSAL_REASONS = ['AllowlistInvalid', 'HostNotAllowed', 'HostTaken', 'PriorityClassNotAllowed', 'CredentialsNotForMirror'] as const;

/** A mirror as its peers see it, from the cache (raw JSON: only what the claims need). */
type Peer = KubeJson & { spec?: Partial<RegistryMirrorSpec> };

/** What the refusals need beyond the mirror: the controller's options, every mirror, the credentials Secret's metadata. */
export interface RefusalInput {
  readonly options: Readonly<Record<string, unknown>>;
  readonly mirrors: readonly Peer[];
  readonly secret?: KubeJson;
}

/** The registry names a mirror's nodes resolve through it, each with the field that asks for it. */
function namesOf(spec: Partial<RegistryMirrorSpec>): { field: string; name: string; explicit: boolean }[] {
  if (typeof spec.upstreamUrl !== 'string' || !isUpstream(spec.upstreamUrl)) return [];
  const masquerade = spec.masqueradeUrl ?? defaultMasqueradeUrl(spec.upstreamUrl);
  return [
    { field: 'spec.upstreamUrl', name: containerdRegistryName(spec.upstreamUrl), explicit: true },
    // The original's default, mirror-<upstreamUrl>, goes with its upstream: allowed when that is.
    ...(masquerade ? [{ field: 'spec.masqueradeUrl', name: masquerade, explicit: spec.masqueradeUrl !== undefined }] : []),
  ];
}

const allowedBy = (allowlist: readonly string[]) => (spec: Partial<RegistryMirrorSpec>) => namesOf(spec).every((n) => !n.explicit || hostAllowed(n.name, allowlist));

/** Earlier first: creation time, then name, so every replica and every reconcile picks the same mirror. */
const createdAt = (m: Peer) => String(m.metadata.creationTimestamp ?? '');
const created = (a: Peer, b: Peer) => createdAt(a).localeCompare(createdAt(b)) || a.metadata.name.localeCompare(b.metadata.name);

/** Why the controller refuses this mirror, or undefined when it may serve it. */
export function refusal(mirror: Peer & { spec: RegistryMirrorSpec }, input: RefusalInput): ReadyVerdict | undefined {
  const allowlist = optionValue(input.options, MIRROR_HOSTS) ?? [];
  const problems = allowlist.map(entryProblem).filter((p) => p !== undefined);
  if (problems.length) return { status: 'False', reason: 'AllowlistInvalid', message: `the controller\u2019s allowlist is not valid: ${problems.join('; ')}` };

  for (const { field, name, explicit } of namesOf(mirror.spec)) {
    if (!explicit || hostAllowed(name, allowlist)) continue;
    const what = isPublicRegistry(name) ? `${name} is a public registry, which` : `${name} is not in the administrator\u2019s allowlist, which`;
    const message = `${field}: ${what} a mirror may serve only when the controller runs with --${MIRROR_HOSTS.name} naming it (now: ${allowlist.join(',') || 'none'}); see docs/kinds/registrymirror.md#who-may-mirror-what`;
    return { status: 'False', reason: 'HostNotAllowed', message };
  }

  // One registry name, one mirror: the first created that may serve all its names keeps it.
  const eligible = input.mirrors.filter((m) => m.spec && allowedBy(allowlist)(m.spec)).sort(created);
  for (const { field, name } of namesOf(mirror.spec)) {
    const first = eligible.find((m) => namesOf(m.spec!).some((n) => n.name === name));
    if (first && first.metadata.name !== mirror.metadata.name) {
      return { status: 'False', reason: 'HostTaken', message: `${field}: RegistryMirror ${first.metadata.name}, created earlier, already serves ${name}; one registry name has one mirror` };
    }
  }

  const priorityClass = mirror.spec.priorityClass;
  const allowedClasses = optionValue(input.options, MIRROR_PRIORITY_CLASSES) ?? [];
  if (priorityClass?.startsWith('system-') && !allowedClasses.includes(priorityClass)) {
    const message = `spec.priorityClass: ${priorityClass} is reserved for the cluster\u2019s own components; a mirror may use it only when the controller runs with --${MIRROR_PRIORITY_CLASSES.name} naming it`;
    return { status: 'False', reason: 'PriorityClassNotAllowed', message };
  }

  const secret = mirror.spec.credentialsSecret;
  const namedMirrors = (input.secret?.metadata.annotations?.[CREDENTIALS_FOR] ?? '').split(',').map((n) => n.trim());
  if (secret && input.secret && !namedMirrors.includes(mirror.metadata.name)) {
    const message = `spec.credentialsSecret: Secret ${MIRRORS_NAMESPACE}/${secret} does not name this mirror, so its credentials are not sent upstream; its owner annotates it ${CREDENTIALS_FOR}=${mirror.metadata.name}`;
    return { status: 'False', reason: 'CredentialsNotForMirror', message };
  }
  return undefined;
}
