import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { createOnceSecret } from './create-once-secret';
import { DatabaseTlsMaterial } from './tls';

/** Keys of Secret `<name>-tls`: the kubernetes.io/tls pair is the servers', ca.crt is for clients. */
export const TLS_KEYS = { ca: 'ca.crt', cert: 'tls.crt', key: 'tls.key', superuserCert: 'superuser.crt', superuserKey: 'superuser.key' } as const;
/** Where the servers and the Jobs mount the Secret. */
export const TLS_MOUNT = '/etc/postgresql-tls';
/**
 * Readable by the pod's group (fsGroup) and not by others: the files belong to root, and both
 * PostgreSQL and libpq take a root-owned key of mode 0640 or less.
 */
export const TLS_FILE_MODE = 0o440;

/** A pod's volume of the Secret. */
export function tlsVolume(secretName: string): k8s.Volume {
  return { name: 'tls', secret: { secretName, defaultMode: TLS_FILE_MODE } };
}

export interface DatabaseTlsSecretProps {
  /** Name of the Secret, `<database>-tls`. */
  readonly name: string;
  readonly material: DatabaseTlsMaterial;
}

/**
 * Secret `<name>-tls`, create-only and immutable: the first CA made is the one clients trust.
 * Clients mount only its `ca.crt` (a volume with `items`); the servers mount the rest.
 */
export class DatabaseTlsSecret extends Construct {
  readonly secret: k8s.KubeSecret;

  constructor(scope: Construct, id: string, props: DatabaseTlsSecretProps) {
    super(scope, id);
    const { material } = props;
    this.secret = createOnceSecret(this, props.name, 'kubernetes.io/tls', {
      [TLS_KEYS.ca]: material.caCert,
      [TLS_KEYS.cert]: material.serverCert,
      [TLS_KEYS.key]: material.serverKey,
      [TLS_KEYS.superuserCert]: material.superuserCert,
      [TLS_KEYS.superuserKey]: material.superuserKey,
    });
  }
}
