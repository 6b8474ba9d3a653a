import { createHash } from 'node:crypto';
import { childName, labelValue, MAX_LABEL_LENGTH } from '../../engine/kind';

/** Where every mirror's children live; the kind's install hook creates it. */
export const MIRRORS_NAMESPACE = 'registry-mirrors';
/** The port the registry serves on, in the Pod and on the Service. */
export const MIRROR_PORT = 5000;
/** Where containerd looks for per-registry host configuration (its `config_path`). */
export const CONTAINERD_CERTS_DIR = '/etc/containerd/certs.d';
/** The pull-through cache's image: distribution 2.8.3, which reads the REGISTRY_* variables, pinned by digest (a tag that moves would change what serves every node's pulls). */
export const CACHE_IMAGE = 'registry:2.8.3@sha256:a3d8aaa63ed8681a604f1dea0aa03f100d5895b6a58ace528858a7b332415373';
/** The node DaemonSet's image (a POSIX sh, awk, grep, cp, mv, rm and sleep), pinned by digest: a tag that moves would change what runs as root on every node. */
export const NODE_CONFIG_IMAGE = 'busybox:1.37@sha256:9db7b59979c38555a39def84a31fb98b5296952f9e3afd4f6f11f05b07adfab0';

const PREFIX = 'registry-mirror-';
/**
 * A StatefulSet's Pods carry `controller-revision-hash: <name>-<10 characters>`, a label value,
 * so its name must leave room for that; the Service shares the name so the two are found together.
 */
const MAX_STATEFULSET_NAME = MAX_LABEL_LENGTH - 11;

/** The names of one mirror's children, derived from the RegistryMirror's name alone. */
export interface MirrorNames {
  /** The Service nodes pull from, and the StatefulSet. */
  readonly base: string;
  /** The StatefulSet's governing headless Service. */
  readonly headless: string;
  /** The PersistentVolumeClaim with the cache. */
  readonly cache: string;
  /** The DaemonSet that configures each node's containerd, and its NetworkPolicy. */
  readonly utils: string;
  /** The variable kubelet sets in the mirror's namespace to the Service's ClusterIP. */
  readonly serviceHostVariable: string;
  /** The mirror's in-cluster address, `<service>.<namespace>.svc:<port>`. */
  readonly endpoint: string;
  /** The `app.kubernetes.io/instance` label value of the mirror's Pods. */
  readonly instance: string;
}

/**
 * The owner's name as it may appear in a Service name (a DNS label: no dots). A RegistryMirror
 * may be called `docker.hub`; `docker-hub` alone could be another mirror's name, so a hash of
 * the real name keeps the two apart.
 */
function withoutDots(owner: string): string {
  if (!owner.includes('.')) return owner;
  return `${owner.replace(/[.]/g, '-')}-${createHash('sha256').update(owner).digest('hex').slice(0, 8)}`;
}

export function mirrorNames(owner: string): MirrorNames {
  const label = withoutDots(owner);
  const base = childName(label, { prefix: PREFIX, maxLength: MAX_STATEFULSET_NAME });
  return {
    base,
    headless: childName(label, { prefix: PREFIX, suffix: '-headless', maxLength: MAX_LABEL_LENGTH }),
    cache: childName(label, { prefix: PREFIX, suffix: '-cache' }),
    utils: childName(label, { prefix: PREFIX, suffix: '-utils', maxLength: MAX_LABEL_LENGTH }),
    serviceHostVariable: `${base.toUpperCase().replace(/-/g, '_')}_SERVICE_HOST`,
    endpoint: `${base}.${MIRRORS_NAMESPACE}.svc:${MIRROR_PORT}`,
    instance: labelValue(owner),
  };
}

/** The stable labels a mirror's Pods are selected by (selectors are immutable, so nothing here may change). */
export function podLabels(names: MirrorNames, component: 'cache' | 'node-config'): Record<string, string> {
  return { 'app.kubernetes.io/name': 'registry-mirror', 'app.kubernetes.io/instance': names.instance, 'app.kubernetes.io/component': component };
}
