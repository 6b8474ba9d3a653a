import stopClusterOfRun from '../../src/testing/global-teardown';

/** The test kit's global teardown, then this repository's conversion webhook. */
export default async function globalTeardown(): Promise<void> {
  await stopClusterOfRun();
  await (globalThis as { runConversion?: { close(): Promise<void> } }).runConversion?.close();
}
