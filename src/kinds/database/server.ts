import { restrictedContainerSecurityContext, restrictedPodSecurityContext } from '../../core/security';
import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { DatabaseSpec } from './api';
import { DatabaseChildNames } from './childnames';
import { PASSWORD_KEY, USERNAME_KEY } from './credentials';
import { podLabels, podSelector, POSTGRES_UID, resources, scratchVolume, secretEnv } from './pod';

/** Where the data volume is mounted; the image's own default. */
export const DATA_MOUNT = '/var/lib/postgresql/data';
/**
 * PGDATA is a directory inside the volume, not the volume's root: PostgreSQL wants its data
 * directory owned by its uid with mode 0700, which the root of a mounted volume (lost+found,
 * fsGroup's group permissions) may not be.
 */
export const PGDATA = `${DATA_MOUNT}/pgdata`;
/** The StatefulSet's pods label themselves with their own name; the Service selects the first. */
const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
const COMPONENT = 'database';

export interface DatabaseServerProps {
  /** Names of the Database's children. */
  readonly names: DatabaseChildNames;
  /** The validated, defaulted spec. */
  readonly spec: DatabaseSpec;
  /** The image the StatefulSet runs; differs from spec.image while an upgrade waits for its Job. Default: spec.image. */
  readonly image?: string;
  /** The labels that tie children to the Database (childLabels()); pod templates carry them and selectors use them. Default: none. */
  readonly ownerLabels?: Record<string, string>;
}

/** The running PostgreSQL: a Service for clients, a headless Service for pod DNS, and the StatefulSet. */
export class DatabaseServer extends Construct {
  readonly service: k8s.KubeService;
  readonly headless: k8s.KubeService;
  readonly statefulSet: k8s.KubeStatefulSet;

  constructor(scope: Construct, id: string, props: DatabaseServerProps) {
    super(scope, id);
    const { names, spec, ownerLabels = {} } = props;
    const selector = podSelector(ownerLabels, COMPONENT);
    const port = { name: 'postgres', port: spec.port, targetPort: k8s.IntOrString.fromString('postgres'), protocol: 'TCP' };

    // Every pod beyond the first is a server of its own (the stock image does not replicate),
    // so clients must all reach the first, or their writes would be spread over separate databases.
    this.service = new k8s.KubeService(this, 'service', {
      metadata: { name: names.service },
      spec: { type: 'ClusterIP', selector: { ...selector, [POD_NAME_LABEL]: `${names.statefulSet}-0` }, ports: [port] },
    });
    this.headless = new k8s.KubeService(this, 'headless', {
      metadata: { name: names.headless },
      // Pods get their DNS names before they are ready, as peers of a StatefulSet need.
      spec: { clusterIp: 'None', publishNotReadyAddresses: true, selector, ports: [port] },
    });

    this.statefulSet = new k8s.KubeStatefulSet(this, 'statefulset', {
      metadata: { name: names.statefulSet },
      spec: {
        serviceName: names.headless,
        replicas: spec.replicas,
        selector: { matchLabels: selector },
        podManagementPolicy: 'OrderedReady',
        updateStrategy: { type: 'RollingUpdate' },
        // The data volumes go with the StatefulSet (on deletion, after the final snapshot), but not on a scale-down.
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' },
        template: {
          metadata: { labels: podLabels(ownerLabels, COMPONENT) },
          spec: {
            automountServiceAccountToken: false,
            enableServiceLinks: false,
            securityContext: restrictedPodSecurityContext(POSTGRES_UID),
            // The image stops with SIGINT (fast shutdown); a large shared_buffers takes a while to flush.
            terminationGracePeriodSeconds: 60,
            affinity: {
              podAntiAffinity: {
                preferredDuringSchedulingIgnoredDuringExecution: [
                  { weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: selector } } },
                ],
              },
            },
            containers: [
              {
                name: 'postgres',
                image: props.image ?? spec.image,
                // The tag names a version line (postgres:17 moves with each 17.x): re-check it on every start.
                imagePullPolicy: 'Always',
                ports: [{ name: 'postgres', containerPort: spec.port, protocol: 'TCP' }],
                env: [
                  secretEnv('POSTGRES_USER', names.credentials, USERNAME_KEY),
                  secretEnv('POSTGRES_PASSWORD', names.credentials, PASSWORD_KEY),
                  // The database name is no secret and follows the spec; the init Job creates it when it changes.
                  { name: 'POSTGRES_DB', value: spec.name },
                  { name: 'PGDATA', value: PGDATA },
                  // The server, the entrypoint's temporary server and pg_isready all read PGPORT.
                  { name: 'PGPORT', value: String(spec.port) },
                ],
                readinessProbe: {
                  // Over TCP: during first-start initialisation the image runs a socket-only server that must not count as ready.
                  exec: { command: ['pg_isready', '--quiet', '--host=127.0.0.1'] },
                  periodSeconds: 10,
                  timeoutSeconds: 5,
                  failureThreshold: 3,
                },
                resources: resources({ cpu: '250m', memory: '512Mi', ephemeralStorage: '256Mi' }, { cpu: '2', memory: '2Gi', ephemeralStorage: '1Gi' }),
                securityContext: restrictedContainerSecurityContext(POSTGRES_UID),
                volumeMounts: [
                  { name: 'data', mountPath: DATA_MOUNT },
                  { name: 'run', mountPath: '/var/run/postgresql' },
                  { name: 'tmp', mountPath: '/tmp' },
                ],
              },
            ],
            volumes: [scratchVolume('run', '16Mi'), scratchVolume('tmp', '256Mi')],
          },
        },
        volumeClaimTemplates: [
          {
            // No owner labels here: these claims are not rendered children, and a controller
            // pruning what carries its labels must never take a data volume for one.
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: k8s.Quantity.fromString(spec['storage-size']) } } },
          },
        ],
      },
    });
  }
}
