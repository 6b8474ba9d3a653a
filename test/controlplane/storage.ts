import * as k8s from '@kubernetes/client-node';
import { installDefaultStorageClass, startStorageProvisioner } from '../support/storage-provisioner';

/**
 * The local control plane's storage, one of its processes (startControlPlane with `storage`):
 * the tests' provisioner for claims of every namespace, then the default StorageClass naming
 * it, so that a claim with no class gets a volume as on kind or k3d. Arguments: the
 * kubeconfig and the volumes' folder (inside the control plane's, removed with it). Runs until
 * SIGTERM; its log is the control plane's storage.log.
 */
async function serve(kubeconfig: string, volumes: string): Promise<void> {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  const provisioner = await startStorageProvisioner(kc, undefined, { root: volumes, log: (line) => console.error(`storage: ${line}`) });
  // The volumes stay: the claims they are bound to live as long as the control plane's etcd.
  process.once('SIGTERM', () => void provisioner.stop({ keepVolumes: true }).finally(() => process.exit(0)));
  // Last, so that the class exists only once its claims get volumes: startControlPlane waits for it.
  await installDefaultStorageClass(kc);
  console.log(`storage: provisioning volumes in ${volumes} for claims of every namespace`);
}

serve(process.argv[2], process.argv[3]).catch((err: Error) => {
  console.error(`storage: ${err.message}`);
  process.exit(1);
});
