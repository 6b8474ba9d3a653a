import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { crdName, servedIdentities } from '../../core/groups';
import { AnyKind } from '../../core/contract/kind';
import { hasVersions } from '../../core/contract/versions';
import { STORAGE_MIGRATION_GROUP } from '../../core/install/storage-migration';
import { CRDS_PATH as CRDS } from '../../kube/discovery';
import { groupVersionPath, resourcePath } from '../../kube/paths';
import { KubeError, KubeRest } from '../../kube/rest';
import { mapLimited } from '../limit';
import { Logger } from '../log';
import { Counter, Metrics } from '../metrics';

/**
 * Storage version migration: after a CRD's storage version changed (a kind's new hub shipped),
 * every object still stored in an older version is rewritten in the new one, and then the
 * CRD's `status.storedVersions` is pruned to the storage version alone, so that a later
 * release may drop the old version from the CRD (the API server refuses to remove a version
 * `storedVersions` still lists). This is Kubernetes' documented procedure ("Upgrade existing
 * objects to a new stored version"): migrate, then patch the status subresource.
 *
 * Two ways to migrate, per CRD:
 * - **The cluster's StorageVersionMigration API** (storagemigration.k8s.io: v1alpha1 in
 *   1.30-1.34, v1beta1 in 1.35-1.36 behind a feature gate, GA v1 served by default from 1.37)
 *   where discovery lists it: one StorageVersionMigration per resource, its Succeeded condition
 *   awaited. The API alone does nothing; kube-controller-manager's storage-version-migrator
 *   controller (on by default from 1.37) does the work, so a migration nobody acts on within a
 *   minute, or one the controller may not create (an install without that grant), falls back
 *   to the controller's own.
 * - **The controller's own** everywhere else (clusters before 1.37, unless their admin turned
 *   the API on): every object is listed in pages and written back unchanged (a PUT with its
 *   resourceVersion). The API server encodes a write in the current storage version, and an
 *   unchanged object in a new storage version encodes differently, so the write reaches etcd.
 *   A 409 Conflict means someone else wrote the object since it was listed, which stored it in
 *   the new version already; a 404 means it is gone: both are skipped.
 *
 * The local control plane of this project runs the release's defaults (test/controlplane,
 * KUBERNETES_VERSION): on 1.37 the cluster's path, on 1.36 the controller's own;
 * test/runtime/storage-migration-cluster.test.ts starts one with the other setting to prove
 * the other path on the same release.
 *
 * Idempotent and safe after a crash: storedVersions is pruned only once every object was
 * written, so a run cut short leaves it as it was and the next run (the next leader's start)
 * migrates again; rewriting an object already stored in the new version is harmless. A run
 * with nothing to do reads one CRD per versioned identity and writes nothing.
 *
 * One window it cannot close: a write already in flight on an API server that has not yet
 * seen the CRD's new storage version may still store the old one. The leader runs this at its
 * start, well after the CRD was applied, and the CRD's storage version is checked again right
 * before storedVersions is pruned.
 */

/** Which way a CRD's objects were rewritten. */
export type MigrationPath = 'storage-version-migration' | 'controller';

/** What became of one CRD. */
export interface CrdMigration {
  /** `<plural>.<group>` */
  readonly crd: string;
  /**
   * `current`: storedVersions held the storage version alone, nothing to do; `migrated`: every
   * object rewritten and storedVersions pruned; `absent`: no such CRD; `skipped`: the CRD stores
   * another version than this controller's hub (not upgraded yet, or newer than this
   * controller); `failed`: storedVersions left as it was (see `error`), to be tried again.
   */
  readonly outcome: 'current' | 'migrated' | 'absent' | 'skipped' | 'failed';
  /** storedVersions as found. */
  readonly storedVersions: readonly string[];
  /** The CRD's storage version. */
  readonly storageVersion?: string;
  readonly path?: MigrationPath;
  /** The controller's own migration's counts (zero on the cluster's path). */
  readonly objects: ObjectCounts;
  readonly durationMs: number;
  readonly error?: string;
}

export interface ObjectCounts {
  /** Written back in the storage version. */
  migrated: number;
  /** Written by someone else since listed: already stored in the storage version. */
  conflicts: number;
  /** Deleted since listed. */
  gone: number;
  /** Refused (e.g. by validation or an admission webhook): the CRD is not pruned. */
  failed: number;
}

export interface StorageMigrationOptions {
  /** The kinds the controller serves; only those with several versions are looked at. */
  readonly kinds: readonly AnyKind[];
  /** Extra groups not served, by CRD name (as --without-extra-groups). */
  readonly withoutExtraGroups?: readonly string[];
  readonly log: Logger;
  /** Where `<operator>_storage_migration_objects_total` counts. */
  readonly metrics?: Metrics;
  /** Objects per list page. @default 500 */
  readonly pageSize?: number;
  /** Writes in flight at once. @default 4 */
  readonly concurrency?: number;
  /** `auto`: the cluster's API where discovery lists it, else the controller's own. @default 'auto' */
  readonly path?: 'auto' | MigrationPath;
  /** Stops the run between writes (the leader lost its Lease); storedVersions stays as it was. */
  readonly signal?: AbortSignal;
  /** How long a StorageVersionMigration may go without any condition before the controller migrates itself. @default 60 s */
  readonly clusterStartTimeoutMs?: number;
  /** How long a StorageVersionMigration may run in all. @default 30 min */
  readonly clusterTimeoutMs?: number;
  /** How often a StorageVersionMigration is read while it runs. @default 2 s */
  readonly pollMs?: number;
  /** Who the writes are by, in managedFields and audit logs: the operator's storageMigrationManager. */
  readonly fieldManager: string;
  /** Told of each listed object right before it is written back (tests make a concurrent write here). */
  readonly beforeWrite?: (object: ListedObject) => Promise<void> | void;
}

/** An object as listed: its identity and the resourceVersion its write-back is conditional on. */
export interface ListedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly resourceVersion?: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

interface Crd {
  metadata: { name: string; resourceVersion: string; generation?: number };
  spec: { group: string; names: { plural: string }; scope: string; versions: { name: string; storage: boolean }[] };
  status?: { storedVersions?: string[] };
}

const GROUP = STORAGE_MIGRATION_GROUP;
/** Newest first: GA from 1.37, beta from 1.35, alpha in 1.30-1.34. */
const SVM_VERSIONS = ['v1', 'v1beta1', 'v1alpha1'] as const;

/**
 * Migrates the stored objects of every served identity of the kinds that have several
 * versions, then prunes each CRD's storedVersions to its storage version. Run by the leader
 * only (writes of two replicas would only duplicate work, but the log would say it twice).
 * Never throws for one CRD's failure: each CRD's outcome is returned and logged (one line
 * each), a failed one keeps its storedVersions and is tried again on the next run.
 */
export async function migrateStoredVersions(rest: KubeRest, options: StorageMigrationOptions): Promise<CrdMigration[]> {
  const identities = options.kinds.filter(hasVersions).flatMap((kind) => servedIdentities(kind, options.withoutExtraGroups));
  const counter = options.metrics && options.metrics.counter(options.metrics.named('storage_migration_objects_total'), 'Objects the controller read and wrote back unchanged so the API server stores them in the CRD\u2019s storage version, by CRD and result (migrated, conflict, gone, failed).', ['crd', 'result']);
  const results: CrdMigration[] = [];
  let api: Promise<StorageMigrationApi | undefined> | undefined;
  const clusterApi = () => (api ??= options.path === 'controller' ? Promise.resolve(undefined) : storageMigrationApi(rest));
  for (const kind of identities) {
    if (options.signal?.aborted) break;
    const result = await migrateCrd(rest, kind, options, clusterApi, counter);
    results.push(result);
    const fields = { crd: result.crd, outcome: result.outcome, storedVersions: result.storedVersions, storageVersion: result.storageVersion, path: result.path, ...result.objects, durationMs: result.durationMs, error: result.error };
    if (result.outcome === 'failed') options.log.warn('storage migration failed; storedVersions kept, to be tried again', fields);
    else if (result.outcome === 'migrated') options.log.info('storage migrated', fields);
    else options.log.info(`storage migration: ${result.outcome === 'current' ? 'nothing to migrate' : result.outcome === 'absent' ? 'CRD not installed' : 'CRD stores another version than this controller\u2019s hub'}`, fields);
  }
  return results;
}

/**
 * What the leader runs at its start, in the background (not blocking reconciles): the
 * migration, then again for the CRDs that failed, after `retryDelaysMs` (the last delay
 * repeating), until none fails or `signal` stops it. A try fails while the objects cannot be
 * read in the storage version (the conversion webhook not answering yet: its certificate just
 * made, its CA not yet injected) or written back (an admission webhook or policy refusing
 * them). Returns the last outcome of each CRD; never throws.
 */
export async function keepMigratingStoredVersions(rest: KubeRest, options: StorageMigrationOptions & { readonly retryDelaysMs?: readonly number[] }): Promise<CrdMigration[]> {
  const delays = options.retryDelaysMs?.length ? options.retryDelaysMs : [5_000, 15_000, 60_000, 300_000];
  const outcomes = new Map<string, CrdMigration>();
  let kinds = options.kinds;
  for (let attempt = 0; ; attempt++) {
    const results = await migrateStoredVersions(rest, { ...options, kinds });
    for (const result of results) outcomes.set(result.crd, result);
    const failed = new Set(results.filter((r) => r.outcome === 'failed').map((r) => r.crd));
    if (!failed.size || options.signal?.aborted) break;
    // A kind is run again for all of its groups: those already migrated cost one read each.
    kinds = kinds.filter((kind) => servedIdentities(kind, options.withoutExtraGroups).some((identity) => failed.has(crdName(identity))));
    if (!(await pause(delays[Math.min(attempt, delays.length - 1)], options.signal))) break;
  }
  return [...outcomes.values()];
}

/** Waits `ms`; false if the signal stopped it first. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return sleep(ms, true, { signal }).catch(() => false);
}

async function migrateCrd(
  rest: KubeRest,
  kind: AnyKind,
  options: StorageMigrationOptions,
  clusterApi: () => Promise<StorageMigrationApi | undefined>,
  counter: Counter | undefined,
): Promise<CrdMigration> {
  const started = Date.now();
  const name = crdName(kind);
  const objects: ObjectCounts = { migrated: 0, conflicts: 0, gone: 0, failed: 0 };
  const crd = await rest.request<Crd | undefined>('GET', `${CRDS}/${name}`, { notFoundAsUndefined: true }).catch((err: Error) => err);
  const done = (outcome: CrdMigration['outcome'], extra: Partial<CrdMigration> = {}): CrdMigration => ({ crd: name, outcome, storedVersions: [], objects, durationMs: Date.now() - started, ...extra });
  if (crd instanceof Error) return done('failed', { error: crd.message });
  if (!crd) return done('absent');
  const storedVersions = crd.status?.storedVersions ?? [];
  const storageVersion = storageVersionOf(crd);
  const known = { storedVersions, storageVersion };
  if (storageVersion !== kind.version) return done('skipped', known);
  if (storedVersions.every((v) => v === storageVersion)) return done('current', known);

  let path: MigrationPath = 'controller';
  try {
    const api = await clusterApi();
    let migrated = false;
    if (api) {
      path = 'storage-version-migration';
      const byCluster = await migrateByCluster(rest, api, crd, storageVersion, options);
      migrated = byCluster === 'succeeded';
      if (!migrated) {
        const why = byCluster === 'forbidden' ? 'the controller may not create StorageVersionMigrations (RBAC)' : 'the StorageVersionMigration made no progress: is kube-controller-manager\u2019s storage-version-migrator-controller running?';
        options.log.warn(`${why}; migrating with the controller\u2019s own`, { crd: name });
        path = 'controller';
      }
    }
    if (!migrated) await migrateObjects(rest, kind, crd, storageVersion, options, objects, counter);
    if (objects.failed) throw new Error(`${objects.failed} object(s) could not be written back (see the warnings before)`);
    if (options.signal?.aborted) throw new Error('stopped before the end');
    await pruneStoredVersions(rest, crd, storageVersion, storedVersions);
    return done('migrated', { ...known, path });
  } catch (err) {
    return done('failed', { ...known, path, error: (err as Error).message });
  }
}

function storageVersionOf(crd: Crd): string | undefined {
  return crd.spec.versions.find((v) => v.storage)?.name;
}

/**
 * Sets storedVersions to the storage version alone, on the CRD as it is now: only if it still
 * stores the version the objects were migrated to, and lists no stored version that was not
 * there before the migration (a storage version changed back and forth meanwhile, whose
 * objects were not migrated). A merge patch with the resourceVersion as precondition, so a
 * change in between (e.g. a CA bundle injected) makes it read and check again.
 */
async function pruneStoredVersions(rest: KubeRest, migrated: Crd, storageVersion: string, before: readonly string[]): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const crd = await rest.request<Crd>('GET', `${CRDS}/${migrated.metadata.name}`);
    const now = crd.status?.storedVersions ?? [];
    if (storageVersionOf(crd) !== storageVersion) throw new Error(`the CRD's storage version changed to ${storageVersionOf(crd)} during the migration`);
    const added = now.filter((v) => !before.includes(v) && v !== storageVersion);
    if (added.length) throw new Error(`storedVersions gained ${added.join(', ')} during the migration`);
    if (now.length === 1 && now[0] === storageVersion) return;
    try {
      await rest.request('PATCH', `${CRDS}/${crd.metadata.name}/status`, {
        body: { metadata: { resourceVersion: crd.metadata.resourceVersion }, status: { storedVersions: [storageVersion] } },
        contentType: 'application/merge-patch+json',
      });
      return;
    } catch (err) {
      if (!(err instanceof KubeError && err.code === 409) || attempt >= 4) throw err;
    }
  }
}

/** `/apis/<group>/<version>/<plural>`, cluster-wide, or one object's path under it. */
function collectionPath(kind: AnyKind, version: string, object?: { namespace?: string; name: string }): string {
  return resourcePath({ groupVersion: `${kind.group}/${version}`, resource: kind.plural }, object);
}

/**
 * The controller's own migration: each object listed in the storage version (the API server
 * converts it from whatever it was stored in) and written back as it was. Pages of `pageSize`;
 * a continue token that expired (410) starts the list again from the beginning.
 */
async function migrateObjects(rest: KubeRest, kind: AnyKind, crd: Crd, version: string, options: StorageMigrationOptions, counts: ObjectCounts, counter: Counter | undefined): Promise<void> {
  const limit = String(options.pageSize ?? 500);
  const fieldManager = options.fieldManager;
  const count = (result: keyof ObjectCounts) => {
    counts[result] += 1;
    counter?.inc({ crd: crd.metadata.name, result: result === 'conflicts' ? 'conflict' : result });
  };
  let token: string | undefined;
  let restarts = 0;
  do {
    let page: { metadata?: { continue?: string }; items: ListedObject[] };
    try {
      page = await rest.request('GET', collectionPath(kind, version), { query: { limit, continue: token } });
    } catch (err) {
      if (err instanceof KubeError && err.code === 410 && token && restarts++ < 3) {
        token = undefined;
        continue;
      }
      throw err;
    }
    await mapLimited(page.items, options.concurrency ?? 4, async (item) => {
      if (options.signal?.aborted) return;
      const object = { ...item, apiVersion: `${kind.group}/${version}`, kind: kind.kind };
      await options.beforeWrite?.(object);
      const { namespace, name } = object.metadata;
      try {
        await rest.request('PUT', collectionPath(kind, version, { namespace, name }), { body: object, query: { fieldManager } });
        count('migrated');
      } catch (err) {
        if (err instanceof KubeError && err.code === 409) count('conflicts');
        else if (err instanceof KubeError && err.code === 404) count('gone');
        else {
          count('failed');
          // Named, with the API server's reason, never the content; the first few only, not thousands of lines.
          const level = counts.failed <= 10 ? 'warn' : 'debug';
          options.log[level]('storage migration: an object could not be written back', { crd: crd.metadata.name, namespace, name, error: (err as Error).message });
        }
      }
    });
    if (options.signal?.aborted) return;
    token = page.metadata?.continue || undefined;
  } while (token);
}

/** The StorageVersionMigration API the cluster serves: its version of storagemigration.k8s.io. */
export interface StorageMigrationApi {
  readonly groupVersion: `${typeof GROUP}/${(typeof SVM_VERSIONS)[number]}`;
}

/**
 * The cluster's StorageVersionMigration API, by discovery, or undefined where the API server
 * does not serve it (the default of every Kubernetes release before 1.37). Discovery needs no RBAC beyond what every authenticated user has.
 */
export async function storageMigrationApi(rest: KubeRest): Promise<StorageMigrationApi | undefined> {
  const group = await rest.request<ApiGroupDiscovery | undefined>('GET', `/apis/${GROUP}`, { notFoundAsUndefined: true });
  const version = chooseStorageMigrationVersion(group);
  if (!version) return undefined;
  const resources = await rest.request<{ resources?: { name: string }[] } | undefined>('GET', groupVersionPath(`${GROUP}/${version}`), { notFoundAsUndefined: true });
  return resources?.resources?.some((r) => r.name === 'storageversionmigrations') ? { groupVersion: `${GROUP}/${version}` } : undefined;
}

/** An APIGroup as `GET /apis/<group>` returns it. */
export interface ApiGroupDiscovery {
  readonly versions?: readonly { readonly version: string }[];
}

/** The newest version of storagemigration.k8s.io this project knows among those the group serves. */
export function chooseStorageMigrationVersion(group: ApiGroupDiscovery | undefined): (typeof SVM_VERSIONS)[number] | undefined {
  const served = new Set((group?.versions ?? []).map((v) => v.version));
  return SVM_VERSIONS.find((v) => served.has(v));
}

interface Svm {
  status?: { conditions?: { type: string; status: string; message?: string; reason?: string }[] };
}

/**
 * One StorageVersionMigration for the resource, named after the CRD, its storage version and
 * generation, so a run after a crash finds the one it created rather than a second, while a
 * CRD changed since (a later storage version) gets a new one. `succeeded` once it Succeeded;
 * `stalled` if nothing acted on it in time (no migrator controller runs); `forbidden` where the
 * controller may not create one; throws if it Failed.
 */
async function migrateByCluster(rest: KubeRest, api: StorageMigrationApi, crd: Crd, version: string, options: StorageMigrationOptions): Promise<'succeeded' | 'stalled' | 'forbidden'> {
  const name = svmName(crd, version);
  const base = resourcePath({ groupVersion: api.groupVersion, resource: 'storageversionmigrations' });
  const resource = { group: crd.spec.group, resource: crd.spec.names.plural, ...(api.groupVersion.endsWith('/v1alpha1') ? { version } : {}) };
  try {
    await rest.request('POST', base, { body: { apiVersion: api.groupVersion, kind: 'StorageVersionMigration', metadata: { name }, spec: { resource } } });
  } catch (err) {
    if (err instanceof KubeError && err.code === 403) return 'forbidden';
    if (!(err instanceof KubeError && err.code === 409)) throw err; // AlreadyExists: ours, from a run cut short
  }
  const started = Date.now();
  const poll = options.pollMs ?? 2_000;
  for (;;) {
    const svm = await rest.request<Svm>('GET', `${base}/${name}`);
    const conditions = svm.status?.conditions ?? [];
    const isTrue = (type: string) => conditions.find((c) => c.type === type && c.status === 'True');
    if (isTrue('Succeeded')) return 'succeeded';
    const failed = isTrue('Failed');
    if (failed) throw new Error(`StorageVersionMigration ${name} failed: ${failed.message ?? failed.reason ?? 'no message'}`);
    const waited = Date.now() - started;
    if (!conditions.length && waited > (options.clusterStartTimeoutMs ?? 60_000)) return 'stalled';
    if (waited > (options.clusterTimeoutMs ?? 30 * 60_000)) throw new Error(`StorageVersionMigration ${name} did not succeed within ${Math.round(waited / 1000)} s`);
    if (options.signal?.aborted) throw new Error('stopped before the end');
    await sleep(poll);
  }
}

/** `<crd>-<version>-g<generation>`, a DNS subdomain: hashed where that would be too long. */
export function svmName(crd: Pick<Crd, 'metadata'>, version: string): string {
  const name = `${crd.metadata.name}-${version}-g${crd.metadata.generation ?? 0}`;
  if (name.length <= 253) return name;
  return `${name.slice(0, 236).replace(/[.-]+$/, '')}-${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;
}
