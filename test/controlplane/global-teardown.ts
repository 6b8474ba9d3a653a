import { stopControlPlane } from './controlplane';

/** Stops the control plane global-setup started; its logs stay for a failed run to point at. */
export default async function globalTeardown(): Promise<void> {
  const dir = process.env.TEST_CONTROL_PLANE_DIR;
  if (dir) await stopControlPlane(dir);
}
