import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { createOnceSecret } from './create-once-secret';

import { DATABASE_USER, PASSWORD_KEY, REPLICATION_PASSWORD_KEY, REPLICATION_USER, REPLICATION_USERNAME_KEY, USERNAME_KEY } from './users';

export { DATABASE_USER, PASSWORD_KEY, REPLICATION_PASSWORD_KEY, REPLICATION_USER, REPLICATION_USERNAME_KEY, USERNAME_KEY };

export interface DatabaseCredentialsProps {
  /** Name of the Secret, `<database>-credentials`. */
  readonly name: string;
  /** The password the observer generated; only the first one rendered is ever created (the Secret is create-only). */
  readonly password: string;
  /** The replication role's password, generated once like the superuser's. */
  readonly replicationPassword: string;
}

/**
 * The credentials Secret. It is created once and never changed (immutable, and marked
 * create-only for the controller): PostgreSQL stores the password in its data directory at
 * the first start, so a new one here would lock every client out.
 */
export class DatabaseCredentials extends Construct {
  readonly secret: k8s.KubeSecret;

  constructor(scope: Construct, id: string, props: DatabaseCredentialsProps) {
    super(scope, id);
    this.secret = createOnceSecret(this, props.name, 'kubernetes.io/basic-auth', {
      [USERNAME_KEY]: DATABASE_USER,
      [PASSWORD_KEY]: props.password,
      [REPLICATION_USERNAME_KEY]: REPLICATION_USER,
      [REPLICATION_PASSWORD_KEY]: props.replicationPassword,
    });
  }
}
