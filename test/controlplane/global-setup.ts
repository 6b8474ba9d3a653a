import { KINDS } from '../../src/kinds';
import startClusterForRun from '../../src/testing/global-setup';
import { LocalConversion, startLocalConversion } from '../support/conversion';

/**
 * The test kit's global setup (a fresh control plane, or the cluster TEST_KUBECONFIG points at),
 * after this repository's conversion webhook for its own kinds.
 */
export default async function globalSetup(): Promise<void> {
  await serveConversion();
  await startClusterForRun();
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
