import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane, startWatchdog } from './controlplane/controlplane';

/**
 * Jest's global setup for cluster tests (`globalSetup` in jest.config.js): starts a fresh control
 * plane for the run from the binaries the engine's build script keeps in ~/.cache/cdk8s-operators,
 * or uses the cluster TEST_KUBECONFIG points at (bring your own kubeconfig). Workers find it
 * through TEST_KUBECONFIG, which they inherit; global-teardown.ts stops what this started.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.TEST_KUBECONFIG) {
    console.log(`\nusing the cluster in TEST_KUBECONFIG=${process.env.TEST_KUBECONFIG}`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'cdk8s-operators-test-'));
  const started = Date.now();
  const state = await startControlPlane(dir);
  // If Jest dies without its teardown, the watchdog stops the control plane.
  startWatchdog(state.processes);
  process.env.TEST_KUBECONFIG = state.kubeconfig;
  process.env.TEST_CONTROL_PLANE_DIR = dir;
  // Only the run that started it stops it: a Jest run nested in a test inherits TEST_CONTROL_PLANE_DIR too.
  (globalThis as { startedControlPlaneDir?: string }).startedControlPlaneDir = dir;
  process.env.TEST_CONTROL_PLANE_LOGS = state.logDir;
  console.log(`\ncontrol plane (Kubernetes ${state.release?.version}) ready in ${((Date.now() - started) / 1000).toFixed(1)} s; logs in ${state.logDir}`);
}
