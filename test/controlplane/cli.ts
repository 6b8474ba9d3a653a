import { join, resolve } from 'node:path';
import { repoRoot, stopControlPlane, upLocalControlPlane } from '../../src/testing/controlplane/controlplane';

/**
 * `npm run cluster:up` / `cluster:down`: a local control plane for demos and for running
 * tests against (TEST_KUBECONFIG), with a default StorageClass and its provisioner. State
 * lives in `.cluster/` of the checkout, or in CLUSTER_DIR. The last line `up` prints is
 * `KUBECONFIG=<path>`.
 */
async function main(command: string | undefined): Promise<void> {
  const dir = resolve(process.env.CLUSTER_DIR ?? join(repoRoot(), '.cluster'));
  if (command === 'up') {
    const { state, started } = await upLocalControlPlane(dir);
    const release = state.release ? `Kubernetes ${state.release.version}` : 'Kubernetes';
    if (started) console.error(`control plane (${release}) ready at ${state.server}, with a default StorageClass; logs in ${state.logDir}; stop it with npm run cluster:down`);
    else console.error(`the control plane (${release}) in ${dir} is already running`);
    console.log(`KUBECONFIG=${state.kubeconfig}`);
  } else if (command === 'down') {
    await stopControlPlane(dir);
    console.error(`control plane in ${dir} stopped`);
  } else {
    throw new Error(`unknown command "${command ?? ''}": expected "up" or "down"`);
  }
}

main(process.argv[2]).catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
