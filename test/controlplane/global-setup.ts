import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KINDS } from '../../src/kinds';
import { LocalConversion, startLocalConversion } from '../support/conversion';
import { startControlPlane, startWatchdog } from './controlplane';

/**
 * Starts a fresh control plane for the test run, or uses the cluster TEST_KUBECONFIG points at.
 * Workers find it through TEST_KUBECONFIG, which they inherit.
 */
export default async function globalSetup(): Promise<void> {
  await serveConversion();
  if (process.env.TEST_KUBECONFIG) {
    console.log(`\nusing the cluster in TEST_KUBECONFIG=${process.env.TEST_KUBECONFIG}`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'cdk8s-operators-test-'));
  const started = Date.now();
  const state = await startControlPlane(dir);
  // If Jest dies without its teardown, the watchdog stops the control plane (compiled by pretest).
  startWatchdog(state.processes);
  process.env.TEST_KUBECONFIG = state.kubeconfig;
  process.env.TEST_CONTROL_PLANE_DIR = dir;
  // Only the run that started it stops it: a Jest run nested in a test inherits TEST_CONTROL_PLANE_DIR too.
  (globalThis as { startedControlPlaneDir?: string }).startedControlPlaneDir = dir;
  process.env.TEST_CONTROL_PLANE_LOGS = state.logDir;
  console.log(`\ncontrol plane (Kubernetes ${state.release?.version}) ready in ${((Date.now() - started) / 1000).toFixed(1)} s; logs in ${state.logDir}`);
}

/**
 * The run's one conversion webhook, in this process (it lives as long as the run), for every
 * control plane the run's CRDs are installed in (see installCrds); a nested run keeps its parent's.
 */
async function serveConversion(): Promise<void> {
  if (process.env.TEST_CONVERSION_URL) return;
  const conversion = await startLocalConversion(KINDS);
  process.env.TEST_CONVERSION_URL = conversion.url;
  process.env.TEST_CONVERSION_CA_BUNDLE = conversion.caBundle;
  (globalThis as { runConversion?: LocalConversion }).runConversion = conversion;
}
