import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { isUpstream } from './api';
import { containerdRegistryNames } from './hosts';
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
  /** The administrator's pull Secret (username, password): each node's containerd sends them to the mirror. @default none: anonymous pulls */
  readonly pullSecret?: string;
  /** The image with a POSIX sh, awk, grep, head, cp, mv, rm, rmdir and sleep. @default NODE_CONFIG_IMAGE */
  readonly image?: string;
}


/** The variables the pull Secret's username and password reach the script in. */
const PULL_USERNAME = 'PULL_USERNAME';
const PULL_PASSWORD = 'PULL_PASSWORD';

/** Where the node's certs.d is mounted in the container. */
export const NODE_CERTS_MOUNT = '/host/certs.d';
const MOUNT = NODE_CERTS_MOUNT;
const q = (text: string) => k8s.Quantity.fromString(text);

/** The first line of every hosts.toml a mirror writes: how a later start and the removal tell ours from the node's own. */
export const OURS_MARK = '# cdk8s-operators registry-mirror';
/** Where a hosts.toml that was not ours is kept, beside it, while ours is in place; the removal puts it back. */
export const KEPT_FILE = 'hosts.toml.kept-by-registry-mirror';

/** A shell loop over the registry names the mirror configures, with `dir`, `file` and `kept` set for each. */
function forEachRegistry(upstream: string, masquerade: string | undefined, body: readonly string[]): string[] {
  const registries = containerdRegistryNames(upstream, masquerade).map((r) => `'${r}'`);
  return [`for registry in ${registries.join(' ')}; do`, `  dir="${MOUNT}/$registry"; file="$dir/hosts.toml"; kept="$dir/${KEPT_FILE}"`, ...body.map((line) => `  ${line}`), 'done'];
}

/**
 * The shell command that takes the mirror's configuration off the node: the hosts.toml that was
 * there before is put back; else ours is removed (only ours: a file someone wrote since stays),
 * and the directory when nothing else is in it (the node's certificates stay).
 */
export function removeCommand(upstream: string, masquerade?: string): string {
  return forEachRegistry(upstream, masquerade, [
    'if [ -f "$kept" ]; then mv "$kept" "$file"',
    `elif head -n 1 "$file" 2>/dev/null | grep -qF '${OURS_MARK}'; then rm -f "$file"`,
    'fi',
    'rmdir "$dir" 2>/dev/null || true',
  ]).join('\n');
}

/**
 * The container's script: write containerd's hosts.toml for the upstream (and the masquerade
 * host) pointing at the mirror's ClusterIP, then wait; on SIGTERM take it back (removeCommand).
 * A hosts.toml the node already had is kept (spegel's prepend-existing): copied aside once, and
 * ours is the mirror first, then that file's own settings and hosts (its `server` too). Without
 * one, the upstream itself is the fallback (`server`) when the mirror does not answer, so an
 * image named by the masquerade host still pulls. The ClusterIP is only known once the Service
 * exists, so it comes from the variable kubelet sets at container start; without it the
 * container fails and kubelet's restart picks the Service up.
 */
export function nodeConfigScript(names: MirrorNames, upstream: string, masquerade?: string, pullSecret?: string): string {
  const variable = names.serviceHostVariable;
  const mark = `${OURS_MARK}: RegistryMirror ${names.instance}; a file the node had is kept in ${KEPT_FILE}`;
  const table = '^[[:space:]]*\\[';
  return [
    'set -eu',
    `host="\${${variable}:-}"`,
    'if [ -z "$host" ]; then',
    `  echo "${variable} is not set: Service ${names.base} did not exist when this container started; exiting so that the restart finds it" >&2`,
    '  exit 1',
    'fi',
    `unconfigure() {\n${removeCommand(upstream, masquerade)}\n}`,
    "trap 'unconfigure; exit 0' TERM INT",
    // The pull credentials are in the files: root alone reads them.
    'umask 077',
    ...(pullSecret ? [`auth="$(printf '%s:%s' "$${PULL_USERNAME}" "$${PULL_PASSWORD}" | base64 -w 0)"`] : []),
    ...forEachRegistry(upstream, masquerade, [
      'mkdir -p "$dir"',
      // Not ours: the node's own configuration, kept aside (copied, so that containerd always finds a file).
      `if [ -f "$file" ] && ! head -n 1 "$file" | grep -qF '${OURS_MARK}'; then cp "$file" "$kept.tmp" && mv "$kept.tmp" "$kept"; fi`,
      // TOML wants every top-level key before the first table: the kept file's keys, our server unless it has one, our host, its tables.
      'own=""; tables=""; note=""',
      `if [ -f "$kept" ]; then own="$(awk '/${table}/ { exit } { print }' "$kept")"; tables="$(awk '/${table}/ { t = 1 } t { print }' "$kept")"; note=", before the node's own configuration"; fi`,
      '{',
      `  echo '${mark}'`,
      `  if [ -n "$own" ]; then printf '%s\\n' "$own"; fi`,
      `  if ! printf '%s\\n' "$own" | grep -q '^[[:space:]]*server[[:space:]]*='; then echo 'server = "https://${upstream}"'; fi`,
      `  printf '\\n[host."http://%s:%s"]\\n  capabilities = ["pull", "resolve"]\\n' "$host" '${MIRROR_PORT}'`,
      ...(pullSecret ? [`  printf '  [host."http://%s:%s".header]\\n    Authorization = ["Basic %s"]\\n' "$host" '${MIRROR_PORT}' "$auth"`] : []),
      `  if [ -n "$tables" ]; then printf '\\n%s\\n' "$tables"; fi`,
      // Written aside and renamed, so containerd never reads half a file.
      '} > "$file.tmp"',
      'mv "$file.tmp" "$file"',
      `echo "containerd on this node pulls $registry through http://$host:${MIRROR_PORT} (upstream ${upstream})$note"`,
    ]),
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
                command: ['sh', '-c', nodeConfigScript(names, upstream, masquerade, props.pullSecret)],
                // By reference: the values reach only the container and the node's root-only files.
                ...(props.pullSecret
                  ? { env: ['username', 'password'].map((key) => ({ name: key === 'username' ? PULL_USERNAME : PULL_PASSWORD, valueFrom: { secretKeyRef: { name: props.pullSecret!, key } } })) }
                  : {}),
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
