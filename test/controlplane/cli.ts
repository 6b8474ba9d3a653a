import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isRunning, readState, repoRoot, startControlPlane, stopControlPlane } from './controlplane';

/**
 * `npm run cluster:up` / `cluster:down`: a local control plane for demos and for running
 * tests against (TEST_KUBECONFIG). State lives in `.cluster/` of the checkout, or in
 * CLUSTER_DIR. The last line `up` prints is `KUBECONFIG=<path>`.
 */
async function main(command: string | undefined): Promise<void> {
  const dir = resolve(process.env.CLUSTER_DIR ?? join(repoRoot(), '.cluster'));
  if (command === 'up') {
    mkdirSync(dir, { recursive: true });
    let state = readState(dir);
    if (state && isRunning(state)) {
      console.error(`the control plane in ${dir} is already running`);
    } else {
      if (state) await stopControlPlane(dir);
      state = await startControlPlane(dir);
      console.error(`control plane ready at ${state.server}; logs in ${state.logDir}; stop it with npm run cluster:down`);
    }
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
