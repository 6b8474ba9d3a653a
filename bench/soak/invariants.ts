/** The invariants the checker holds the controller to, with the bound each one states. */
export const INVARIANTS = {
  'orphan-children': 'no child lives without its owner longer than 120 s of the control plane being up (the garbage collector and a controller back from a fault have that long; it cannot work while the API server or etcd is down)',
  'unmanaged-changed': 'no object the controller does not manage (the users\u2019 planted ones) is ever changed or deleted: its resourceVersion stays',
  'two-actors': 'no two replicas write one object within one leader term (terms from the Lease, writers from the proxy\u2019s listeners)',
  'write-without-lease': 'no replica writes (Lease and Events aside) while another holds the Lease, 2 s after that term began',
  'data-before-snapshot': 'no Database data volume goes before the Database\u2019s final snapshot Job succeeded (a standby\u2019s may go when the Database scales down before its deletion began, even if the garbage collector removes the claim after)',
  'ready-with-unready-children': 'no status says Ready while a child was not ready at that resourceVersion (children as the checker\u2019s own watches saw them)',
  'secret-leak': 'no Secret value (the soak\u2019s, and every Secret the checker saw) in a controller log line, an Event or a status',
  'write-storm': 'at most 30 writes to one object in any minute, and at most 2 per object in the quiet 45 s after convergence',
  'replica-crash': 'no replica exits unless the soak killed it or it lost the Lease (it then exits by design, and is started again)',
  'acted-while-stopping': 'no replica starts work again once it began stopping (after losing the Lease its caches are stale)',
  convergence: 'after the faults stop, every object converges within 180 s: status of the latest generation, Ready (or the Conflict / failed Job it must report), deletions finished, no orphan',
} as const;
export type Invariant = keyof typeof INVARIANTS;

export const ORPHAN_BOUND_MS = 120_000;
export const STORM_PER_MINUTE = 30;
export const QUIET_WINDOW_MS = 45_000;
export const QUIET_WRITES_PER_OBJECT = 2;
export const CONVERGENCE_BOUND_MS = 180_000;
export const LEASE_GRACE_MS = 2_000;
