import { CustomResource, KindController, KubeJson, ReadyVerdict, ReconcileOutcome } from '../../engine/kind';
import { defaultMasqueradeUrl, RegistryMirrorSpec, RegistryMirrorStatus } from './api';
import { MIRROR_HOSTS } from './hosts';
import { MIRRORS_NAMESPACE, mirrorNames, podLabels } from './names';
import { MIRROR_CLIENT_CIDRS, MIRROR_PULL_SECRET, PullAccess, pullAccess } from './pull-access';
import { MIRROR_PRIORITY_CLASSES, REFUSAL_REASONS, refusal } from './refusals';
import { sampleMirror } from './sample';

/** What the controller sees of a mirror beyond its own children. */
export interface RegistryMirrorObservation {
  /** Why the controller will not serve the mirror (its hosts, its credentials, its priority): it renders nothing then. */
  readonly refusal?: ReadyVerdict;
  /** Who may pull through it (the administrator's pull Secret and the nodes' network). */
  readonly access?: PullAccess;
  /** The credentials Secret named in spec, when it does not exist. */
  readonly missingSecret?: string;
  /** The PriorityClass named in spec, when it does not exist (the API server would refuse the mirror's Pods). */
  readonly missingPriorityClass?: string;
  /** Nodes whose configuring pod is not ready yet (the pod's name until it is scheduled). */
  readonly pendingNodes: readonly string[];
}

type Mirror = CustomResource<RegistryMirrorSpec>;
const SECRETS = { apiGroup: '', resource: 'secrets' };
const PODS = { apiGroup: '', resource: 'pods' };
const PRIORITY_CLASSES = { apiGroup: 'scheduling.k8s.io', resource: 'priorityclasses' };
/** Every mirror, for which one claimed a registry name first: few, cluster-scoped, watched whole. */
const MIRRORS = { apiGroup: 'k8s.osp.tech', resource: 'registrymirrors' };
type PodJson = KubeJson & {
  spec?: { nodeName?: string; affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: { matchFields?: { values?: string[] }[] }[] } } } };
  status?: { conditions?: { type: string; status: string }[] };
};

/** The node a DaemonSet pod is for: where it runs, else the node its affinity names (the DaemonSet controller sets it). */
const nodeOf = (pod: PodJson) =>
  pod.spec?.nodeName ?? pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0]?.matchFields?.[0]?.values?.[0] ?? pod.metadata.name;

const served = (outcome: ReconcileOutcome, kind: string) => outcome.served.find((c) => c.kind === kind) as (KubeJson & { spec?: Record<string, unknown>; status?: Record<string, number> }) | undefined;
const stateOf = (outcome: ReconcileOutcome, kind: string) => outcome.children.find((c) => c.kind === kind);

/** Where the mirror answers, from its Service as it is (the ClusterIP is only known once it exists). */
function endpointOf(mirror: Mirror, outcome: ReconcileOutcome): Partial<RegistryMirrorStatus> {
  const names = mirrorNames(mirror.metadata.name);
  const service = outcome.served.find((c) => c.kind === 'Service' && c.metadata.name === names.base) as (KubeJson & { spec?: { clusterIP?: string } }) | undefined;
  return service?.spec?.clusterIP ? { endpoint: names.endpoint, clusterIP: service.spec.clusterIP } : {};
}

function nodesOf(outcome: ReconcileOutcome): { desired: number; configured: number } {
  const status = served(outcome, 'DaemonSet')?.status ?? {};
  return { desired: status.desiredNumberScheduled ?? 0, configured: Math.min(status.numberReady ?? 0, status.updatedNumberScheduled ?? 0) };
}

export const registryMirrorController: KindController<RegistryMirrorSpec, RegistryMirrorStatus, RegistryMirrorObservation> = {
  options: [MIRROR_HOSTS, MIRROR_PRIORITY_CLASSES, MIRROR_PULL_SECRET, MIRROR_CLIENT_CIDRS],
  watches: [
    MIRRORS,
    // Only whether the Secret exists, never its values: metadata only, in the mirrors' namespace only (a Role).
    { ...SECRETS, metadataOnly: true, queries: (mirror) => (mirror.spec.credentialsSecret ? [{ namespace: MIRRORS_NAMESPACE }] : []) },
    // Cluster-scoped and few: whether the named one exists.
    { ...PRIORITY_CLASSES, metadataOnly: true, queries: (mirror) => (mirror.spec.priorityClass ? [{}] : []) },
    { ...PODS, queries: (mirror) => [{ namespace: MIRRORS_NAMESPACE, labels: podLabels(mirrorNames(mirror.metadata.name), 'node-config') }] },
  ],
  observer:
    ({ caches, options }) =>
    async (mirror) => {
      const secret = mirror.spec.credentialsSecret;
      const secretMetadata = secret ? caches.list(SECRETS, { namespace: MIRRORS_NAMESPACE }).find((s) => s.metadata.name === secret) : undefined;
      const refused = refusal(mirror, { options, mirrors: caches.list(MIRRORS), secret: secretMetadata });
      if (refused) return { refusal: refused, pendingNodes: [] };
      const exists = !secret || secretMetadata !== undefined;
      const pods = caches.list(PODS, { namespace: MIRRORS_NAMESPACE, labels: podLabels(mirrorNames(mirror.metadata.name), 'node-config') }) as PodJson[];
      const pendingNodes = pods.filter((p) => !p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).map(nodeOf);
      const priorityClass = mirror.spec.priorityClass;
      const priorityClassExists = !priorityClass || caches.list(PRIORITY_CLASSES).some((c) => c.metadata.name === priorityClass);
      return { access: pullAccess(options), ...(exists ? {} : { missingSecret: secret }), ...(priorityClassExists ? {} : { missingPriorityClass: priorityClass }), pendingNodes: pendingNodes.sort() };
    },
  sampleObservation: sampleMirror,
  status: (mirror, observation, outcome) => {
    const nodes = nodesOf(outcome);
    const masqueradeUrl = mirror.spec.masqueradeUrl ?? defaultMasqueradeUrl(mirror.spec.upstreamUrl);
    return {
      ...endpointOf(mirror, outcome),
      ...(masqueradeUrl ? { masqueradeUrl } : {}),
      cacheReady: stateOf(outcome, 'StatefulSet')?.ready ?? false,
      nodesDesired: nodes.desired,
      nodesConfigured: nodes.configured,
      nodesPending: [...(observation?.pendingNodes ?? [])].slice(0, 100),
    };
  },
  ready: (_mirror, observation, outcome): ReadyVerdict | undefined => {
    if (observation?.refusal) return observation.refusal;
    if (observation?.missingSecret) {
      return { status: 'False', reason: 'CredentialsMissing', message: `Secret ${MIRRORS_NAMESPACE}/${observation.missingSecret} does not exist; create it with the keys username and password` };
    }
    if (observation?.missingPriorityClass) {
      const message = `PriorityClass ${observation.missingPriorityClass} (spec.priorityClass) does not exist, so the API server refuses the mirror\u2019s Pods; create it or change spec.priorityClass`;
      return { status: 'False', reason: 'PriorityClassMissing', message };
    }
    const cache = outcome.children.find((c) => !c.ready && c.kind !== 'DaemonSet');
    if (cache) return { status: 'False', reason: 'CacheNotReady', message: `${cache.child}: ${cache.message}` };
    const nodes = nodesOf(outcome);
    const daemonSet = stateOf(outcome, 'DaemonSet');
    if (!daemonSet?.ready || observation?.pendingNodes.length) {
      const pending = observation?.pendingNodes.length ? `; pending: ${observation.pendingNodes.slice(0, 10).join(', ')}` : '';
      return { status: 'False', reason: 'NodesPending', message: `${nodes.configured} of ${nodes.desired} nodes pull through the mirror${pending}` };
    }
    return undefined;
  },
  // Nothing pulls through the mirror until someone creates the Secret or the PriorityClass.
  failureReasons: ['CredentialsMissing', 'PriorityClassMissing', ...REFUSAL_REASONS],
  progressReasons: ['CacheNotReady', 'NodesPending'],
  readyReason: 'Mirroring',
};
