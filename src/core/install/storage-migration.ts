/**
 * The cluster's StorageVersionMigration API (kube-controller-manager rewrites a resource's
 * objects in its storage version): the group the controller migrates through where served, and
 * the install grants and fences access to.
 */
export const STORAGE_MIGRATION_GROUP = 'storagemigration.k8s.io';
export const STORAGE_MIGRATION_RESOURCE = 'storageversionmigrations';
