import { stopControlPlane } from './controlplane/controlplane';

/**
 * Jest's global teardown for cluster tests: stops the control plane this run's global setup
 * started (not one a parent run started and handed down in TEST_CONTROL_PLANE_DIR); its logs
 * stay for a failed run to point at.
 */
export default async function globalTeardown(): Promise<void> {
  const { startedControlPlaneDir: dir } = globalThis as { startedControlPlaneDir?: string };
  if (dir) await stopControlPlane(dir);
}
