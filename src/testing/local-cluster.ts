import { stopControlPlane, upLocalControlPlane } from './controlplane/controlplane';

/**
 * A control plane that outlives the process, for a dev loop: the one running in `dir` already,
 * else a new one (etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok's fake
 * node on 127.0.0.1). Returns its kubeconfig's path; stopLocalCluster(dir) stops it.
 */
export async function startLocalCluster(dir: string): Promise<string> {
  const { state } = await upLocalControlPlane(dir, () => console.error(`starting a control plane in ${dir}`), { storage: false });
  return state.kubeconfig;
}

export const stopLocalCluster: (dir: string) => Promise<void> = stopControlPlane;
