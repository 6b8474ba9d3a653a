import { basename, dirname } from 'node:path';

/**
 * Which Kubernetes release the local control plane runs: test/controlplane/build.sh builds the
 * one KUBERNETES_VERSION names (a minor with a tools-<minor> module, or its exact version),
 * 1.37 by default, into `<cache>/controlplane/v<version>-<checksum>/bin`.
 */
export interface Release {
  /** As the binaries report it: `v1.37.2`. */
  readonly version: string;
  readonly major: number;
  readonly minor: number;
}

/** The release of the binaries in `bin`, from the directory build.sh names after it. */
export function releaseOfBinaries(bin: string): Release {
  const match = /^v(\d+)\.(\d+)\.\d+/.exec(basename(dirname(bin)));
  if (!match) throw new Error(`cannot tell the Kubernetes release of ${bin}: build.sh names its directory v<version>-<checksum>/bin`);
  return { version: match[0], major: Number(match[1]), minor: Number(match[2]) };
}

/** Whether `release` is what KUBERNETES_VERSION `asked` names: its minor (`1.36`) or its exact version. */
export function sameRelease(release: Release, asked: string): boolean {
  const wanted = asked.replace(/^v/, '');
  return wanted.split('.').length > 2 ? release.version === `v${wanted}` : `${release.major}.${release.minor}` === wanted;
}

/**
 * kube-apiserver's flags a release needs on loopback: from 1.37 it refuses to start with an
 * advertise address in 127.0.0.0/8 while it reconciles the `kubernetes` Service's endpoints
 * ("cannot use public IP 127.0.0.1 with endpoint reconciler"); nothing here reaches the API
 * server through that Service (kwok's Pods run nothing), so there is no reconciler.
 */
export function loopbackApiServerFlags(release: Release): string[] {
  return release.major > 1 || release.minor >= 37 ? ['--endpoint-reconciler-type=none'] : [];
}

/**
 * The flags that turn the StorageVersionMigration API and its migrator on or off, beyond the
 * release's defaults. 1.37 serves storagemigration.k8s.io/v1 (GA) and runs kube-controller-
 * manager's storage-version-migrator-controller by default; 1.36 has them beta and off, and
 * serves v1beta1 only with both the runtime config and the StorageVersionMigrator feature gate.
 * `wanted` undefined: as the release's default cluster.
 */
export function storageMigrationFlags(release: Release, wanted: boolean | undefined): { apiServer: string[]; controllerManager: string[]; controllers: string[] } {
  const ga = release.major > 1 || release.minor >= 37;
  const on = wanted ?? ga;
  if (ga) {
    // The API off: neither version served (v1beta1 is off by default, said again to be sure).
    if (!on) return { apiServer: ['--runtime-config=storagemigration.k8s.io/v1=false,storagemigration.k8s.io/v1beta1=false'], controllerManager: [], controllers: [] };
    return { apiServer: [], controllerManager: [], controllers: [MIGRATOR] };
  }
  if (!on) return { apiServer: [], controllerManager: [], controllers: [] };
  return { apiServer: ['--runtime-config=storagemigration.k8s.io/v1beta1=true', BETA_GATE], controllerManager: [BETA_GATE], controllers: [MIGRATOR] };
}

const MIGRATOR = 'storage-version-migrator-controller';
const BETA_GATE = '--feature-gates=StorageVersionMigrator=true';
