// The PostgreSQL roles and the credentials Secret's keys, apart from the constructs that render
// them: the controller names the superuser without loading cdk8s (constructs load at first use).

/** The superuser the image creates on first start; clients and Jobs log in as it. */
export const DATABASE_USER = 'postgres';
/** Keys of the credentials Secret (those of the kubernetes.io/basic-auth type). */
export const USERNAME_KEY = 'username';
export const PASSWORD_KEY = 'password';
/** The role the standbys stream as (LOGIN REPLICATION, no superuser); the init Job creates it. */
export const REPLICATION_USER = 'replicator';
export const REPLICATION_USERNAME_KEY = 'replication-username';
export const REPLICATION_PASSWORD_KEY = 'replication-password';
