import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * `npm run test:k8s-1.36` (or `node lib/scripts/test-k8s-smoke.js <minor>`): the cluster smoke
 * on an older supported Kubernetes release, beside the whole suite on the default one (1.37).
 * Jest's global setup starts a control plane of that release (KUBERNETES_VERSION, which
 * test/controlplane/build.sh builds), and these files run on it: what depends on the API
 * server's behaviour and differs between releases.
 */
export const SMOKE_FILES = [
  // The control plane itself starts and restarts on that release.
  'test/controlplane/lifecycle.test.ts',
  // CRD schemas, CEL rules, selectable fields and conversion as its API server applies them.
  'test/kinds/validation.test.ts',
  'test/kinds/selectable-fields.cluster.test.ts',
  'test/kinds/versions.cluster.test.ts',
  'test/runtime/conversion-webhook.test.ts',
  // Storage migration: the controller's own way there, and the beta StorageVersionMigration API turned on.
  'test/runtime/storage-migration.test.ts',
  'test/runtime/storage-migration-cluster.test.ts',
  // The install's admission policies compile and judge on that release.
  'test/security/controller-policy.test.ts',
  // The install applied as a GitOps tool does, and the controller serving a kind end to end.
  'test/gitops/first-apply.cluster.test.ts',
  'test/e2e/copyrator.test.ts',
];

function main(minor: string | undefined, jestArgs: readonly string[]): number {
  if (!minor) {
    console.error('usage: node lib/scripts/test-k8s-smoke.js <minor, e.g. 1.36> [jest options]');
    return 2;
  }
  const testFile = join(__dirname, 'test-file.js');
  const run = spawnSync(process.execPath, [testFile, ...SMOKE_FILES, ...jestArgs], { env: { ...process.env, KUBERNETES_VERSION: minor }, stdio: 'inherit' });
  return run.status ?? 1;
}

process.exit(main(process.argv[2], process.argv.slice(3)));
