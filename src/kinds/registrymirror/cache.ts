import { dnsEgress, restrictedContainerSecurityContext, restrictedPodSecurityContext, tcpPort } from '../../engine/constructs';
import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { RegistryMirrorSpec } from './api';
import { CACHE_IMAGE, MIRROR_PORT, MIRRORS_NAMESPACE, MirrorNames, podLabels } from './names';
import { PullAccess } from './pull-access';

export interface RegistryMirrorCacheProps {
  /** The names of the mirror's children. */
  readonly names: MirrorNames;
  /** The validated spec: its volumeClaimTemplate shapes the cache claim, its priorityClass the Pod. */
  readonly spec: RegistryMirrorSpec;
  /** Who may pull: the pull Secret's htpasswd guards the registry, and only the nodes' network reaches it, where given. @default anyone */
  readonly access?: PullAccess;
  /** The registry image; it must read the REGISTRY_* variables of distribution 2. @default CACHE_IMAGE (registry 2.8.3, by digest) */
  readonly image?: string;
}

/** A uid and gid of no user in the image, high enough to match no user on the node either. */
const UID = 10001;
const CACHE_PATH = '/var/lib/registry';
/** Where the pull Secret's htpasswd is mounted, read-only. */
const AUTH_PATH = '/etc/registry-auth';
const HTTPS_PORT = 443;
const q = (text: string) => k8s.Quantity.fromString(text);

/**
 * The pull-through cache: distribution's `registry:2` in proxy mode as a one-replica
 * StatefulSet, its cache on a PVC of its own (owned by the RegistryMirror, so deleting the
 * mirror frees the storage, which a volumeClaimTemplate would keep), the Service nodes
 * pull from, the headless Service that governs the StatefulSet, and a NetworkPolicy.
 */
export class RegistryMirrorCache extends Construct {
  constructor(scope: Construct, id: string, props: RegistryMirrorCacheProps) {
    super(scope, id);
    const { names, spec } = props;
    const pullSecret = props.access?.pullSecret;
    const clientCidrs = props.access?.clientCidrs ?? [];
    const labels = podLabels(names, 'cache');
    const metadata = (name: string) => ({ name, namespace: MIRRORS_NAMESPACE, labels });
    const servicePorts = [{ name: 'registry', port: MIRROR_PORT, targetPort: k8s.IntOrString.fromString('registry'), protocol: 'TCP' }];

    new k8s.KubeService(this, 'service', { metadata: metadata(names.base), spec: { type: 'ClusterIP', selector: labels, ports: servicePorts } });
    new k8s.KubeService(this, 'headless', { metadata: metadata(names.headless), spec: { clusterIp: 'None', selector: labels, ports: servicePorts } });

    const claim = spec.volumeClaimTemplate;
    new k8s.KubePersistentVolumeClaim(this, 'cache', {
      metadata: { ...metadata(names.cache), labels: { ...claim.metadata?.labels, ...labels }, ...(claim.metadata?.annotations ? { annotations: claim.metadata.annotations } : {}) },
      spec: {
        accessModes: claim.spec.accessModes ?? ['ReadWriteOnce'],
        ...(claim.spec.storageClassName !== undefined ? { storageClassName: claim.spec.storageClassName } : {}),
        resources: { requests: { storage: q(claim.spec.resources.requests.storage) } },
      },
    });

    const credential = (name: string, key: string) => ({ name, valueFrom: { secretKeyRef: { name: spec.credentialsSecret!, key } } });
    new k8s.KubeStatefulSet(this, 'statefulset', {
      metadata: metadata(names.base),
      spec: {
        replicas: 1,
        serviceName: names.headless,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            automountServiceAccountToken: false,
            ...(spec.priorityClass ? { priorityClassName: spec.priorityClass } : {}),
            // fsGroup makes the cache volume writable for the non-root uid; the image's config is world-readable.
            securityContext: restrictedPodSecurityContext(UID),
            containers: [
              {
                name: 'registry',
                image: props.image ?? CACHE_IMAGE,
                imagePullPolicy: 'Always',
                env: [
                  { name: 'REGISTRY_PROXY_REMOTEURL', value: `https://${spec.upstreamUrl}` },
                  { name: 'REGISTRY_STORAGE_FILESYSTEM_ROOTDIRECTORY', value: CACHE_PATH },
                  // By reference only: the values never appear in a manifest, a URL or a log.
                  ...(spec.credentialsSecret ? [credential('REGISTRY_PROXY_USERNAME', 'username'), credential('REGISTRY_PROXY_PASSWORD', 'password')] : []),
                  // Pulls need the administrator's credentials (bcrypt, from the pull Secret): private upstream images are not everyone's.
                  ...(pullSecret
                    ? [
                        { name: 'REGISTRY_AUTH_HTPASSWD_REALM', value: 'registry-mirror' },
                        { name: 'REGISTRY_AUTH_HTPASSWD_PATH', value: `${AUTH_PATH}/htpasswd` },
                      ]
                    : []),
                ],
                ports: [{ name: 'registry', containerPort: MIRROR_PORT, protocol: 'TCP' }],
                readinessProbe: { httpGet: { path: '/', port: k8s.IntOrString.fromNumber(MIRROR_PORT) }, periodSeconds: 10 },
                // A plain TCP check: a slow upstream must not get the cache restarted.
                livenessProbe: { tcpSocket: { port: k8s.IntOrString.fromNumber(MIRROR_PORT) }, initialDelaySeconds: 10, periodSeconds: 20 },
                resources: {
                  requests: { cpu: q('50m'), memory: q('128Mi'), 'ephemeral-storage': q('64Mi') },
                  limits: { cpu: q('1'), memory: q('512Mi'), 'ephemeral-storage': q('256Mi') },
                },
                securityContext: restrictedContainerSecurityContext(UID),
                volumeMounts: [
                  { name: 'cache', mountPath: CACHE_PATH },
                  { name: 'tmp', mountPath: '/tmp' },
                  ...(pullSecret ? [{ name: 'pull-auth', mountPath: AUTH_PATH, readOnly: true }] : []),
                ],
              },
            ],
            volumes: [
              { name: 'cache', persistentVolumeClaim: { claimName: names.cache } },
              { name: 'tmp', emptyDir: { sizeLimit: q('64Mi') } },
              // Only the htpasswd key, readable by the Pod's group (fsGroup) alone.
              ...(pullSecret ? [{ name: 'pull-auth', secret: { secretName: pullSecret, items: [{ key: 'htpasswd', path: 'htpasswd' }], defaultMode: 0o440 } }] : []),
            ],
          },
        },
      },
    });

    const upstreamPort = Number(spec.upstreamUrl.split(':')[1] ?? HTTPS_PORT);
    new k8s.KubeNetworkPolicy(this, 'network-policy', {
      metadata: metadata(names.base),
      spec: {
        podSelector: { matchLabels: labels },
        policyTypes: ['Ingress', 'Egress'],
        // Pulls come from every node's containerd: from the nodes' network where the administrator gave it, else from any peer.
        ingress: [{ ...(clientCidrs.length ? { from: clientCidrs.map((cidr) => ({ ipBlock: { cidr } })) } : {}), ports: [tcpPort(MIRROR_PORT)] }],
        egress: [
          dnsEgress(),
          // The upstream, and HTTPS for its token service and blob storage redirects (Docker Hub sends both elsewhere).
          { ports: [...new Set([HTTPS_PORT, upstreamPort])].map(tcpPort) },
        ],
      },
    });
  }
}
