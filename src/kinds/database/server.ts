import { restrictedContainerSecurityContext, restrictedPodSecurityContext, spreadOverNodes } from '../../engine/constructs';
import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { DatabaseSpec } from './api';
import { DatabaseChildNames } from './childnames';
import { PASSWORD_KEY, REPLICATION_PASSWORD_KEY, REPLICATION_USERNAME_KEY, USERNAME_KEY } from './credentials';
import { podLabels, podSelector, POSTGRES_UID, resources, scratchVolume, secretEnv } from './pod';
import { primaryStartScript, standbyStartScript } from './scripts';
import { TLS_MOUNT, tlsVolume } from './tls-secret';

/** Where the data volume is mounted; the image's own default. */
export const DATA_MOUNT = '/var/lib/postgresql/data';
/**
 * PGDATA is a directory inside the volume, not the volume's root: PostgreSQL wants its data
 * directory owned by its uid with mode 0700, which the root of a mounted volume (lost+found,
 * fsGroup's group permissions) may not be.
 */
export const PGDATA = `${DATA_MOUNT}/pgdata`;
/** The socket directory, also where the start-up scripts write pg_hba.conf and the replication passfile. */
export const RUN_DIR = '/var/run/postgresql';
const COMPONENT = 'database';
/** Which server a pod is: the Services select on it. */
export const ROLE_LABEL = 'stable.imaginedata.com/role';
export type ServerRole = 'primary' | 'standby';

export interface DatabaseServerProps {
  /** Names of the Database's children. */
  readonly names: DatabaseChildNames;
  /** The validated, defaulted spec. */
  readonly spec: DatabaseSpec;
  /** The image the StatefulSets run; differs from spec.image while an upgrade waits for its Job. Default: spec.image. */
  readonly image?: string;
  /** The labels that tie children to the Database (childLabels()); pod templates carry them and selectors use them. Default: none. */
  readonly ownerLabels?: Record<string, string>;
}

/**
 * The running PostgreSQL: the primary's StatefulSet (one pod) behind the read-write Service
 * `<name>`, and with replicas > 1 the hot standbys' StatefulSet `<name>-standby` (replicas - 1 pods, each
 * streaming from the primary) behind the read-only Service `<name>-readonly`; a headless
 * Service gives every pod its DNS name. Two StatefulSets, because a Service selects pods by
 * labels and the pods of one StatefulSet all carry the same ones.
 */
export class DatabaseServer extends Construct {
  readonly service: k8s.KubeService;
  readonly readonlyService?: k8s.KubeService;
  readonly headless: k8s.KubeService;
  readonly statefulSet: k8s.KubeStatefulSet;
  readonly standbys?: k8s.KubeStatefulSet;

  constructor(scope: Construct, id: string, props: DatabaseServerProps) {
    super(scope, id);
    const { names, spec, ownerLabels = {} } = props;
    const selector = podSelector(ownerLabels, COMPONENT);
    const port = { name: 'postgres', port: spec.port, targetPort: k8s.IntOrString.fromString('postgres'), protocol: 'TCP' };

    this.service = new k8s.KubeService(this, 'service', {
      metadata: { name: names.service },
      spec: { type: 'ClusterIP', selector: { ...selector, [ROLE_LABEL]: 'primary' }, ports: [port] },
    });
    this.headless = new k8s.KubeService(this, 'headless', {
      metadata: { name: names.headless },
      // Pods get their DNS names before they are ready, as peers of a StatefulSet need.
      spec: { clusterIp: 'None', publishNotReadyAddresses: true, selector, ports: [port] },
    });

    this.statefulSet = serverStatefulSet(this, 'statefulset', props, 'primary', 1);
    if (spec.replicas > 1) {
      this.readonlyService = new k8s.KubeService(this, 'readonly', {
        metadata: { name: names.readonlyService },
        spec: { type: 'ClusterIP', selector: { ...selector, [ROLE_LABEL]: 'standby' }, ports: [port] },
      });
      this.standbys = serverStatefulSet(this, 'standbys', props, 'standby', spec.replicas - 1);
    }
  }
}

function serverStatefulSet(scope: Construct, id: string, props: DatabaseServerProps, role: ServerRole, replicas: number): k8s.KubeStatefulSet {
  const { names, spec, ownerLabels = {} } = props;
  const selector = { ...podSelector(ownerLabels, COMPONENT), [ROLE_LABEL]: role };
  const antiAffinity = podSelector(ownerLabels, COMPONENT);
  const tls = spec.tls === 'Required';
  return new k8s.KubeStatefulSet(scope, id, {
    metadata: { name: role === 'primary' ? names.statefulSet : names.standbyStatefulSet },
    spec: {
      serviceName: names.headless,
      replicas,
      selector: { matchLabels: selector },
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate' },
      // The data volumes go with the StatefulSet (on deletion, after the final snapshot), but not on a scale-down.
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' },
      template: {
        metadata: { labels: { ...podLabels(ownerLabels, COMPONENT, names.service), [ROLE_LABEL]: role } },
        spec: {
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: restrictedPodSecurityContext(POSTGRES_UID),
          // The official images stop PostgreSQL with SIGINT (their STOPSIGNAL: a fast shutdown), which
          // `exec postgres` in the start-up script receives; a large shared_buffers takes a while to flush.
          terminationGracePeriodSeconds: 60,
          // Primary and standbys on different nodes where there are enough, or one node's loss takes them all.
          affinity: spreadOverNodes({ matchLabels: antiAffinity }),
          containers: [
            {
              name: 'postgres',
              image: props.image ?? spec.image,
              // The tag names a version line (postgres:17 moves with each 17.x): re-check it on every start.
              imagePullPolicy: 'Always',
              command: ['sh', '-c', role === 'primary' ? primaryStartScript() : standbyStartScript()],
              ports: [{ name: 'postgres', containerPort: spec.port, protocol: 'TCP' }],
              env: [
                secretEnv('POSTGRES_USER', names.credentials, USERNAME_KEY),
                secretEnv('POSTGRES_PASSWORD', names.credentials, PASSWORD_KEY),
                secretEnv('REPLICATION_USER', names.credentials, REPLICATION_USERNAME_KEY),
                secretEnv('REPLICATION_PASSWORD', names.credentials, REPLICATION_PASSWORD_KEY),
                { name: 'PGDATA', value: PGDATA },
                { name: 'PG_RUN_DIR', value: RUN_DIR },
                // The server and pg_isready read PGPORT.
                { name: 'PGPORT', value: String(spec.port) },
                { name: 'LISTEN_ADDRESSES', value: '*' },
                ...connectionRules(spec),
                ...(role === 'standby'
                  ? [
                      { name: 'PRIMARY_HOST', value: names.service },
                      { name: 'PRIMARY_PORT', value: String(spec.port) },
                    ]
                  : []),
              ],
              readinessProbe: {
                // Over TCP, where clients connect; a standby accepts read-only connections once it is consistent.
                exec: { command: ['pg_isready', '--quiet', '--host=127.0.0.1'] },
                periodSeconds: 10,
                timeoutSeconds: 5,
                failureThreshold: 3,
              },
              resources: resources({ cpu: '250m', memory: '512Mi', ephemeralStorage: '256Mi' }, { cpu: '2', memory: '2Gi', ephemeralStorage: '1Gi' }),
              securityContext: restrictedContainerSecurityContext(POSTGRES_UID),
              volumeMounts: [
                { name: 'data', mountPath: DATA_MOUNT },
                { name: 'run', mountPath: RUN_DIR },
                { name: 'tmp', mountPath: '/tmp' },
                ...(tls ? [{ name: 'tls', mountPath: TLS_MOUNT, readOnly: true }] : []),
              ],
            },
          ],
          volumes: [scratchVolume('run', '16Mi'), scratchVolume('tmp', '256Mi'), ...(tls ? [tlsVolume(names.tls)] : [])],
        },
      },
      volumeClaimTemplates: [
        {
          // No owner labels here: these claims are not rendered children, and a controller
          // pruning what carries its labels must never take a data volume for one.
          metadata: { name: 'data' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: k8s.Quantity.fromString(spec.storageSize) } } },
        },
      ],
    },
  });
}

/**
 * What the start-up scripts write into pg_hba.conf, and where the certificates are: TLS only
 * (`hostssl`) unless spec.tls is Disabled; the superuser by client certificate only (`cert`)
 * unless spec.superuserAccess.
 */
function connectionRules(spec: DatabaseSpec): k8s.EnvVar[] {
  const tls = spec.tls === 'Required';
  return [
    { name: 'HBA_CONNECTION', value: tls ? 'hostssl' : 'host' },
    { name: 'SUPERUSER_AUTH', value: spec.superuserAccess ? 'scram-sha-256' : 'cert' },
    ...(tls ? [{ name: 'TLS_DIR', value: TLS_MOUNT }] : []),
  ];
}
