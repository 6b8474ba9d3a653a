import * as k8s from '@kubernetes/client-node';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isStatus } from '../../src/testing/cluster';

/** Marks the PersistentVolumes this provisioner made, so it deletes only its own. */
export const PROVISIONED_BY_LABEL = 'cdk8s-operators.io/test-provisioner';
const PROVISIONER_NAME = 'cdk8s-operators.io/test-provisioner';
/** The default StorageClass of `npm run cluster:up`'s control plane, named as kind names its own. */
export const DEFAULT_STORAGE_CLASS = 'standard';

/**
 * The test cluster's storage provisioner: the local control plane has none, so a claim would
 * stay Pending and the scheduler would never place a pod that needs it. Like a cluster's own
 * provisioner, this one watches PersistentVolumeClaims and creates a PersistentVolume of the
 * requested size and access modes for each claim that has none, bound to it through
 * spec.claimRef; kube-controller-manager's PV binder then binds the two. When a claim goes,
 * its volume goes too (reclaim policy Delete, carried out here).
 *
 * The volumes are hostPath directories under a temp directory, with no node affinity, so the
 * scheduler may place their pods on any node, kwok's fake node included (a `local` volume
 * would need node affinity naming that node). kwok runs no kubelet: nothing is mounted, the
 * directories only stand for the storage.
 */
export interface StorageProvisioner {
  /** Where the volumes' directories are. */
  readonly root: string;
  /** How many of the volumes it created still exist. */
  readonly provisioned: () => number;
  /** Stops watching; deletes the volumes it made unless `keepVolumes` (a cluster that outlives it keeps its claims bound). */
  stop(options?: { keepVolumes?: boolean }): Promise<void>;
}

export interface ProvisionerOptions {
  /** Where the volumes' directories go; default a new temp directory. */
  readonly root?: string;
  /** Told of each failure as it happens (stop() reports them all in the end). */
  readonly log?: (line: string) => void;
}

/** Starts provisioning for claims in `namespace`, or in every namespace when it is undefined. */
export async function startStorageProvisioner(kc: k8s.KubeConfig, namespace?: string, options: ProvisionerOptions = {}): Promise<StorageProvisioner> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const root = options.root ?? mkdtempSync(join(tmpdir(), 'test-volumes-'));
  mkdirSync(root, { recursive: true });
  const path = namespace ? `/api/v1/namespaces/${namespace}/persistentvolumeclaims` : '/api/v1/persistentvolumeclaims';
  const list = () => (namespace ? core.listNamespacedPersistentVolumeClaim({ namespace }) : core.listPersistentVolumeClaimForAllNamespaces());
  const informer = k8s.makeInformer<k8s.V1PersistentVolumeClaim>(kc, path, list);
  const created = new Set<string>();
  const errors: string[] = [];
  const fail = (line: string) => {
    errors.push(line);
    options.log?.(line);
  };
  const volumeName = (claim: k8s.V1PersistentVolumeClaim) => `pvc-${claim.metadata!.uid}`;

  const provision = async (claim: k8s.V1PersistentVolumeClaim) => {
    if (claim.spec?.volumeName || claim.metadata?.deletionTimestamp) return;
    const dir = join(root, volumeName(claim));
    mkdirSync(dir, { recursive: true });
    try {
      await core.createPersistentVolume({
        body: {
          // As an external provisioner marks its volumes: the PV binder then leaves their deletion to it.
          metadata: { name: volumeName(claim), labels: { [PROVISIONED_BY_LABEL]: 'true' }, annotations: { 'pv.kubernetes.io/provisioned-by': PROVISIONER_NAME } },
          spec: {
            capacity: { storage: claim.spec?.resources?.requests?.storage ?? '1Gi' },
            accessModes: claim.spec?.accessModes ?? ['ReadWriteOnce'],
            volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
            // The claim's class, or none: the binder matches a claim without a class to a volume of class "".
            storageClassName: claim.spec?.storageClassName ?? '',
            persistentVolumeReclaimPolicy: 'Delete',
            claimRef: { namespace: claim.metadata!.namespace, name: claim.metadata!.name, uid: claim.metadata!.uid },
            hostPath: { path: dir, type: 'DirectoryOrCreate' },
          },
        },
      });
      created.add(volumeName(claim));
    } catch (err) {
      // Already made on an earlier event for the same claim.
      if (!isStatus(err, 409)) fail(`${claim.metadata?.namespace}/${claim.metadata?.name}: ${String(err)}`);
    }
  };

  const reclaim = async (claim: k8s.V1PersistentVolumeClaim) => {
    await core.deletePersistentVolume({ name: volumeName(claim) }).catch((err: unknown) => {
      if (!isStatus(err, 404)) fail(`deleting ${volumeName(claim)}: ${String(err)}`);
    });
    rmSync(join(root, volumeName(claim)), { recursive: true, force: true });
    created.delete(volumeName(claim));
  };

  informer.on('add', (claim) => void provision(claim));
  informer.on('update', (claim) => void provision(claim));
  informer.on('delete', (claim) => void reclaim(claim));
  // The informer stops on an error; a provisioner must go on, as a cluster's would.
  let stopped = false;
  informer.on('error', () => {
    if (!stopped) setTimeout(() => void informer.start().catch(() => undefined), 1000);
  });
  await informer.start();

  return {
    root,
    provisioned: () => created.size,
    stop: async ({ keepVolumes = false } = {}) => {
      stopped = true;
      await informer.stop();
      if (keepVolumes) return;
      // Claims still there (their namespace is being deleted) lose their volumes with the provisioner.
      for (const name of created) await core.deletePersistentVolume({ name }).catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
      if (errors.length > 0) throw new Error(`the storage provisioner failed:\n${errors.join('\n')}`);
    },
  };
}

/**
 * Makes this provisioner's StorageClass the cluster's default, as kind's and k3d's local-path
 * class is: the API server then gives every claim without a class this one.
 */
export async function installDefaultStorageClass(kc: k8s.KubeConfig): Promise<void> {
  await kc
    .makeApiClient(k8s.StorageV1Api)
    .createStorageClass({
      body: {
        metadata: { name: DEFAULT_STORAGE_CLASS, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
        provisioner: PROVISIONER_NAME,
        reclaimPolicy: 'Delete',
        // The provisioner makes a volume as soon as a claim exists, with no node affinity to wait for.
        volumeBindingMode: 'Immediate',
      },
    })
    .catch((err: unknown) => {
      if (!isStatus(err, 409)) throw err;
    });
}
