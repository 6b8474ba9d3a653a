import * as k8s from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { refuseInUnitTier } from './tier';

/** The kubeconfig of the cluster under test: the one global-setup started, or TEST_KUBECONFIG. */
export function testKubeConfig(): k8s.KubeConfig {
  refuseInUnitTier('control plane');
  const path = process.env.TEST_KUBECONFIG;
  if (!path) throw new Error('TEST_KUBECONFIG is not set: run the tests through jest, whose global setup starts a control plane');
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

/** Where the control plane's logs are, for a failure message to point at. */
export function controlPlaneLogs(): string {
  return process.env.TEST_CONTROL_PLANE_LOGS ?? '(an external cluster: see its own logs)';
}

/**
 * A fresh namespace per test file keeps tests independent; delete it in afterAll. Returns
 * once its default ServiceAccount exists, since Pods cannot be created before that.
 */
export async function createTestNamespace(kc: k8s.KubeConfig, prefix: string): Promise<string> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  await core.createNamespace({ body: { metadata: { name } } });
  await eventually(`the default ServiceAccount of namespace ${name}`, () => core.readNamespacedServiceAccount({ namespace: name, name: 'default' }));
  return name;
}

export async function deleteNamespace(kc: k8s.KubeConfig, name: string): Promise<void> {
  await kc.makeApiClient(k8s.CoreV1Api).deleteNamespace({ name }).catch(ignoreNotFound);
}

/** A namespace of its own for the enclosing describe block: created before its tests, deleted after them. */
export function suiteNamespace(prefix: string): { readonly name: string } {
  const kc = testKubeConfig();
  let name: string | undefined;
  beforeAll(async () => {
    name = await createTestNamespace(kc, prefix);
  });
  afterAll(async () => {
    if (name) await deleteNamespace(kc, name);
  });
  return {
    get name() {
      if (!name) throw new Error(`the ${prefix} namespace is made in beforeAll: read it in a test`);
      return name;
    },
  };
}

export function ignoreNotFound(err: unknown): void {
  if (!isStatus(err, 404)) throw err;
}

export function isStatus(err: unknown, code: number): boolean {
  return err instanceof k8s.ApiException && err.code === code;
}

/** The message of the error a write (to the API server) was refused with, or undefined when it was accepted. */
export async function refusalOf(write: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await write();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Polls `probe` until it returns a value other than undefined. On timeout the error says
 * what was awaited, the probe's last error, and where the control plane's logs are.
 */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${cause}; control plane logs: ${controlPlaneLogs()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
