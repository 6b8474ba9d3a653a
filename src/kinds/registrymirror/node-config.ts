import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { DOCKER_HUB, isUpstream } from './api';
import { CONTAINERD_CERTS_DIR, MIRROR_PORT, MIRRORS_NAMESPACE, MirrorNames, NODE_CONFIG_IMAGE, podLabels } from './names';

export interface RegistryMirrorNodeConfigProps {
  /** The names of the mirror's children. */
  readonly names: MirrorNames;
  /** The registry mirrored, `spec.upstreamUrl` (host and optional port). */
  readonly upstream: string;
  /** Another host images may name to pull through the mirror (`spec.masqueradeUrl` or its default); none when undefined. */
  readonly masquerade?: string;
  /** The PriorityClass of the Pods, `spec.priorityClass`. */
  readonly priorityClass?: string;
  /** The image with a POSIX sh, mkdir, printf, mv, rm and sleep. @default busybox:1.37 */
  readonly image?: string;
}

/** Where the node's certs.d is mounted in the container. */
export const NODE_CERTS_MOUNT = '/host/certs.d';
const MOUNT = NODE_CERTS_MOUNT;
const q = (text: string) => k8s.Quantity.fromString(text);

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

/** The shell command that removes the mirror's configuration from the node. */
export function removeCommand(upstream: string, masquerade?: string): string {
  return `rm -rf ${containerdRegistryNames(upstream, masquerade)
    .map((name) => `"${MOUNT}/${name}"`)
    .join(' ')}`;
}

/**
 * The container's script: write containerd's hosts.toml for the upstream (and the masquerade
 * host) pointing at the mirror's ClusterIP, then wait; on SIGTERM remove them again. Both
 * fall back to the upstream itself (`server`) when the mirror does not answer, so an image
 * named by the masquerade host still pulls. The ClusterIP is only known once the Service
 * exists, so it comes from the variable kubelet sets at container start; without it the
 * container fails and kubelet's restart picks the Service up.
 */
export function nodeConfigScript(names: MirrorNames, upstream: string, masquerade?: string): string {
  const variable = names.serviceHostVariable;
  const registries = containerdRegistryNames(upstream, masquerade);
  return [
    'set -eu',
    `host="\${${variable}:-}"`,
    'if [ -z "$host" ]; then',
    `  echo "${variable} is not set: Service ${names.base} did not exist when this container started; exiting so that the restart finds it" >&2`,
    '  exit 1',
    'fi',
    `trap '${removeCommand(upstream, masquerade)}; exit 0' TERM INT`,
    `for registry in ${registries.map((r) => `'${r}'`).join(' ')}; do`,
    `  dir="${MOUNT}/$registry"`,
    '  mkdir -p "$dir"',
    // Written aside and renamed, so containerd never reads half a file.
    `  printf 'server = "https://%s"\\n\\n[host."http://%s:%s"]\\n  capabilities = ["pull", "resolve"]\\n' '${upstream}' "$host" '${MIRROR_PORT}' > "$dir/hosts.toml.tmp"`,
    '  mv "$dir/hosts.toml.tmp" "$dir/hosts.toml"',
    `  echo "containerd on this node pulls $registry through http://$host:${MIRROR_PORT} (upstream ${upstream})"`,
    'done',
    // sleep in the background so that the trap runs as soon as the signal arrives.
    'while true; do sleep 3600 & wait $!; done',
    '',
  ].join('\n');
}

/**
 * Points each node's containerd at the mirror through `hosts.toml` in containerd's
 * `config_path` (certs.d), and removes it when its Pod ends, so deleting the mirror cleans
 * every node. Containerd must run with `config_path = "/etc/containerd/certs.d"`.
 *
 * The ONE exception to the restricted Pod Security profile in this project: it runs as root
 * with a hostPath, because root owns the node's certs.d. Everything else stays tight: no
 * capabilities, no privilege escalation, a read-only root filesystem, RuntimeDefault
 * seccomp, no service account token, no network, requests and limits.
 */
export class RegistryMirrorNodeConfig extends Construct {
  constructor(scope: Construct, id: string, props: RegistryMirrorNodeConfigProps) {
    super(scope, id);
    const { names, upstream, masquerade } = props;
    // Both are written into a shell script and a path: refuse anything the schema would not accept.
    if (!isUpstream(upstream)) throw new Error(`spec.upstreamUrl: must be a registry host with an optional port, got "${upstream}"`);
    if (masquerade !== undefined && !isUpstream(masquerade)) throw new Error(`spec.masqueradeUrl: must be a registry host with an optional port, got "${masquerade}"`);
    const labels = podLabels(names, 'node-config');
    const metadata = { name: names.utils, namespace: MIRRORS_NAMESPACE, labels };

    new k8s.KubeDaemonSet(this, 'daemonset', {
      metadata,
      spec: {
        selector: { matchLabels: labels },
        // The old Pod must remove the node's file before the new one writes it, never after.
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: k8s.IntOrString.fromNumber(0), maxUnavailable: k8s.IntOrString.fromNumber(1) } },
        template: {
          metadata: { labels },
          spec: {
            automountServiceAccountToken: false,
            ...(props.priorityClass ? { priorityClassName: props.priorityClass } : {}),
            // The mirror's ClusterIP arrives as a Service variable.
            enableServiceLinks: true,
            // Every node pulls images, tainted ones too.
            tolerations: [{ operator: 'Exists' }],
            terminationGracePeriodSeconds: 10,
            securityContext: { runAsNonRoot: false, runAsUser: 0, runAsGroup: 0, seccompProfile: { type: 'RuntimeDefault' } },
            containers: [
              {
                name: 'configure-containerd',
                image: props.image ?? NODE_CONFIG_IMAGE,
                imagePullPolicy: 'Always',
                command: ['sh', '-c', nodeConfigScript(names, upstream, masquerade)],
                // preStop cleans up before kubelet's SIGTERM; the trap also covers a stop that skips kubelet's hooks.
                lifecycle: { preStop: { exec: { command: ['sh', '-c', removeCommand(upstream, masquerade)] } } },
                resources: {
                  requests: { cpu: q('5m'), memory: q('8Mi'), 'ephemeral-storage': q('8Mi') },
                  limits: { cpu: q('50m'), memory: q('16Mi'), 'ephemeral-storage': q('16Mi') },
                },
                securityContext: {
                  allowPrivilegeEscalation: false,
                  readOnlyRootFilesystem: true,
                  privileged: false,
                  capabilities: { drop: ['ALL'] },
                  seccompProfile: { type: 'RuntimeDefault' },
                },
                volumeMounts: [{ name: 'certs-d', mountPath: MOUNT }],
              },
            ],
            volumes: [{ name: 'certs-d', hostPath: { path: CONTAINERD_CERTS_DIR, type: 'DirectoryOrCreate' } }],
          },
        },
      },
    });

    // It talks to no one: deny all traffic in and out.
    new k8s.KubeNetworkPolicy(this, 'network-policy', {
      metadata,
      spec: { podSelector: { matchLabels: labels }, policyTypes: ['Ingress', 'Egress'] },
    });
  }
}
