import { App, Chart } from 'cdk8s';
import { CacheReader, CustomResource, ObserverContext } from '../../src/core/contract/kind';
import { validateResource } from '../../src/core/contract/validation';
import { MAX_LABEL_LENGTH, MAX_NAME_LENGTH } from '../../src/core/kit/names';
import { withOwner } from '../../src/core/ownership';
import { Manifest, previewChildren, renderChildren } from '../../src/core/render';
import {
  CREATE_ONLY_ANNOTATION,
  databaseController,
  databaseKind,
  databasePhase,
  DatabaseObservation,
  DatabaseSpec,
  finalizerMayBeReleased,
  KEEP_ON_DELETE_ANNOTATION,
  MAX_STATEFULSET_NAME_LENGTH,
  MAX_CRONJOB_NAME_LENGTH,
  parsePostgresImage,
  compareVersions,
} from '../../src/kinds/database';
import { DEFAULT_IMAGE } from '../../src/kinds/database/api';
import { databaseExample } from '../../src/kinds/database/example';
import { DATA_MOUNT, PGDATA, ROLE_LABEL } from '../../src/kinds/database/server';
import { sampleDatabase } from '../../src/kinds/database/sample';
import { primaryStartScript, standbyStartScript } from '../../src/kinds/database/scripts';
import { newDatabaseTls } from '../../src/kinds/database/tls';
import { createPrivateKey, X509Certificate } from 'node:crypto';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const PASSWORD = 'pw-3Zq8Kc1vT7xN2mR5yH9wB4dF6gJ0sL';
const BASE64_PASSWORD = Buffer.from(PASSWORD).toString('base64');
const REPLICATION_PASSWORD = 'rp-9Tq2Lw7Xc4Vb1Nm8Kj5Hg3Fd6Sa0Pz';
/** What the controller observes once it created the credentials Secret. */
const APP_PASSWORD = 'ap-5Rt8Yu1Io4Pa7Sd0Fg3Hj6Kl9Zx2Cv';
const CREDENTIALS = { password: PASSWORD, replicationPassword: REPLICATION_PASSWORD, appPassword: APP_PASSWORD };
const minimal = { name: 'orders', 'storage-size': '1Gi' };
/** A CA and certificates as the controller makes them, for the `-tls` Secret. */
const tls = newDatabaseTls({ dns: ['orders', 'orders.shop.svc'], superuser: 'postgres', database: 'shop/orders' });

function database(spec: Record<string, unknown>, name = 'orders', metadata: Record<string, unknown> = {}): CustomResource<DatabaseSpec> {
  const object = { apiVersion: 'stable.imaginedata.com/v1', kind: 'Database', metadata: { name, namespace: 'shop', ...metadata }, spec };
  const result = validateResource(databaseKind, object);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return { ...object, spec: result.spec };
}

const render = (spec: Record<string, unknown>, observation?: DatabaseObservation, name?: string) => renderChildren(databaseKind, database(spec, name), observation);
const ids = (children: Manifest[]) => children.map((c) => `${c.kind}/${c.metadata.name}`).sort();
const find = (children: Manifest[], kind: string, name?: string): Json => {
  const found = children.filter((c) => c.kind === kind && (name === undefined || c.metadata.name === name));
  if (found.length !== 1) throw new Error(`expected one ${kind} ${name ?? ''}, found ${found.length} in ${ids(children).join(', ')}`);
  return found[0];
};
/** The pod spec of a StatefulSet, Job or CronJob. */
const template = (workload: Json): Json => (workload.kind === 'CronJob' ? workload.spec.jobTemplate.spec : workload.spec).template;
const podSpec = (workload: Json): Json => template(workload).spec;
const container = (workload: Json): Json => podSpec(workload).containers[0];
const env = (workload: Json): Record<string, Json> => Object.fromEntries(container(workload).env.map((e: Json) => [e.name, e.value ?? e.valueFrom]));
const workloads = (children: Manifest[]): Json[] => children.filter((c) => ['StatefulSet', 'Job', 'CronJob'].includes(c.kind));

/** Every state the controller can observe, for checks that must hold in all of them. */
const STATES: Record<string, { spec: Record<string, unknown>; observation?: DatabaseObservation }> = {
  preview: { spec: { ...minimal, backup: { schedule: '0 3 * * *' } } },
  'first create': { spec: { ...minimal, backup: { schedule: '0 3 * * *' } }, observation: CREDENTIALS },
  'upgrade pending': { spec: { ...minimal, image: 'postgres:17.2' }, observation: { ...CREDENTIALS, currentImage: 'postgres:17.1' } },
  'upgrade done': { spec: { ...minimal, image: 'postgres:17.2' }, observation: { ...CREDENTIALS, currentImage: 'postgres:17.1', upgrade: 'Succeeded' } },
  'deleting with Snapshot': { spec: minimal, observation: { ...CREDENTIALS, deleting: true } },
};

describe('Database children', () => {
  describe('without an observation (the render command)', () => {
    const children = render(minimal);

    it('are the Services, the StatefulSet, its NetworkPolicies, the init Job and the backup volume, all in the Database\u2019s namespace', () => {
      expect(ids(children)).toEqual([
        'Job/orders-init',
        'NetworkPolicy/orders',
        'NetworkPolicy/orders-jobs',
        'PersistentVolumeClaim/orders-backup',
        'Service/orders',
        'Service/orders-headless',
        'StatefulSet/orders',
      ]);
      for (const child of children) expect(child.metadata.namespace).toBe('shop');
    });

    it('have no credentials Secret: only the controller makes one, with a password it generates once', () => {
      expect(children.filter((c) => c.kind === 'Secret')).toEqual([]);
      // The pods already refer to it by name.
      expect(env(find(children, 'StatefulSet')).POSTGRES_PASSWORD).toEqual({ secretKeyRef: { name: 'orders-credentials', key: 'password' } });
    });
  });

  describe('in a synth preview, with the sample observation of a Database that runs as its spec says', () => {
    const spec = { ...minimal, tls: 'Required', backup: { schedule: '0 3 * * *' } };
    const sample = sampleDatabase(database(spec));

    it('is Ready on spec.image with every replica, and has a last backup only with a backup schedule', () => {
      expect(databasePhase(database(spec).spec, sample)).toMatchObject({ phase: 'Ready' });
      expect(sample).toMatchObject({ currentImage: DEFAULT_IMAGE, readyReplicas: 1, deleting: false, lastBackupTime: '2025-01-02T03:00:00Z' });
      expect(sampleDatabase(database(minimal))).not.toHaveProperty('lastBackupTime');
    });

    it('carries no password and no certificate, so the preview has no Secret, only the references to them', () => {
      expect(Object.keys(sample).filter((key) => /password|tls/i.test(key))).toEqual([]);
      // As written in a file: previewChildren validates (and defaults) the spec itself.
      const preview = previewChildren(databaseKind, { ...database(spec), spec }, { withSample: true });
      if (!preview.ok) throw new Error(preview.message);
      expect(preview.sampled).toBe(true);
      expect(preview.children.filter((c) => c.kind === 'Secret')).toEqual([]);
      // No upgrade Job: the sample runs the image the spec names.
      expect(ids(preview.children)).toEqual(ids(render(spec)));
    });
  });

  describe('on first create, with the password the controller generated', () => {
    const children = render(minimal, CREDENTIALS);

    it('add the credentials Secret: basic-auth, immutable, create-only', () => {
      const secret = find(children, 'Secret', 'orders-credentials');
      expect(secret.type).toBe('kubernetes.io/basic-auth');
      expect(secret.immutable).toBe(true);
      expect(secret.metadata.annotations).toEqual({ [CREATE_ONLY_ANNOTATION]: 'true' });
      const base64 = (text: string) => Buffer.from(text).toString('base64');
      expect(secret.data).toEqual({
        username: base64('postgres'),
        password: BASE64_PASSWORD,
        'replication-username': base64('replicator'),
        'replication-password': base64(REPLICATION_PASSWORD),
      });
      expect(secret.stringData).toBeUndefined();
    });

    it('never carry the password (plain or base64) anywhere but in the Secret\u2019s data', () => {
      for (const [state, { spec, observation }] of Object.entries(STATES)) {
        for (const child of render(spec, observation)) {
          const visible = child.kind === 'Secret' ? { ...child, data: undefined } : child;
          const text = JSON.stringify(visible);
          const leaks = [PASSWORD, BASE64_PASSWORD, REPLICATION_PASSWORD, Buffer.from(REPLICATION_PASSWORD).toString('base64')].filter((p) => text.includes(p));
          expect([state, child.kind, leaks]).toEqual([state, child.kind, []]);
        }
      }
    });

    it('give every pod its credentials from the Secrets by reference, never as a value', () => {
      for (const workload of workloads(children)) {
        for (const variable of container(workload).env) {
          if (/USER$|PASSWORD/.test(variable.name)) expect(variable.valueFrom.secretKeyRef.name).toBe(variable.name.startsWith('APP_') ? 'orders-app' : 'orders-credentials');
        }
      }
      expect(env(find(children, 'StatefulSet')).POSTGRES_USER).toEqual({ secretKeyRef: { name: 'orders-credentials', key: 'username' } });
      expect(env(find(children, 'Job', 'orders-init')).PGPASSWORD).toEqual({ secretKeyRef: { name: 'orders-credentials', key: 'password' } });
    });
  });

  describe('security defaults (issue 37): an owner role for clients, TLS, and a NetworkPolicy admitting only labelled clients', () => {
    const base64 = (text: string) => Buffer.from(text).toString('base64');
    const decoded = (secret: Json) => Object.fromEntries(Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
    let children: Manifest[];
    beforeAll(async () => {
      children = render({ ...minimal, replicas: 2, backup: { schedule: '@daily' } }, { ...CREDENTIALS, tls: await tls });
    });

    it('Secret <name>-app: the owner role, its password and where to connect, basic-auth, immutable, create-only', () => {
      const secret = find(children, 'Secret', 'orders-app');
      expect([secret.type, secret.immutable, secret.metadata.annotations]).toEqual(['kubernetes.io/basic-auth', true, { [CREATE_ONLY_ANNOTATION]: 'true' }]);
      expect(decoded(secret)).toEqual({
        username: 'app',
        password: APP_PASSWORD,
        host: 'orders.shop.svc',
        port: '5432',
        dbname: 'orders',
        uri: `postgresql://app:${APP_PASSWORD}@orders.shop.svc:5432/orders?sslmode=require`,
      });
    });

    it('Secret <name>-app percent-encodes the database name in its uri, and has no sslmode without TLS', () => {
      const plain = render({ ...minimal, name: 'my db/ü', port: 6543, superuserAccess: true, tls: 'Disabled' }, CREDENTIALS);
      expect(decoded(find(plain, 'Secret', 'orders-app')).uri).toBe(`postgresql://app:${APP_PASSWORD}@orders.shop.svc:6543/my%20db%2F%C3%BC`);
    });

    it('Secret <name>-tls: the CA, the servers\u2019 key pair and the Jobs\u2019 superuser certificate, create-only; only with the observed certificates', async () => {
      const secret = find(children, 'Secret', 'orders-tls');
      const material = await tls;
      expect([secret.type, secret.immutable, secret.metadata.annotations]).toEqual(['kubernetes.io/tls', true, { [CREATE_ONLY_ANNOTATION]: 'true' }]);
      expect(secret.data).toEqual({
        'ca.crt': base64(material.caCert),
        'tls.crt': base64(material.serverCert),
        'tls.key': base64(material.serverKey),
        'superuser.crt': base64(material.superuserCert),
        'superuser.key': base64(material.superuserKey),
      });
      expect(render(minimal, CREDENTIALS).filter((c) => c.metadata.name === 'orders-tls')).toEqual([]);
      expect(render({ ...minimal, superuserAccess: true, tls: 'Disabled' }, { ...CREDENTIALS, tls: material }).filter((c) => c.metadata.name === 'orders-tls')).toEqual([]);
    });

    it('the certificates: the servers\u2019 for every Service name and loopback, the superuser\u2019s for its role, both from the Database\u2019s own CA', async () => {
      const material = await newDatabaseTls({ dns: ['orders', 'orders.shop.svc'], superuser: 'postgres', database: 'shop/orders' });
      const ca = new X509Certificate(material.caCert);
      const server = new X509Certificate(material.serverCert);
      const superuser = new X509Certificate(material.superuserCert);
      expect([ca.ca, server.ca, superuser.ca]).toEqual([true, false, false]);
      expect(server.verify(ca.publicKey) && superuser.verify(ca.publicKey)).toBe(true);
      expect(server.subjectAltName).toBe('DNS:orders, DNS:orders.shop.svc, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
      expect(superuser.subject).toBe('CN=postgres');
      expect(server.checkPrivateKey(createPrivateKey(material.serverKey)) && superuser.checkPrivateKey(createPrivateKey(material.superuserKey))).toBe(true);
      // No CA key is kept anywhere: nothing but the first render can mint a certificate the servers trust.
      expect(Object.keys(material).sort()).toEqual(['caCert', 'serverCert', 'serverKey', 'superuserCert', 'superuserKey']);
    });

    it('the servers accept only TLS (hostssl), the superuser only with its certificate, and mount the Secret readable by their group only', () => {
      for (const sts of children.filter((c) => c.kind === 'StatefulSet')) {
        expect(env(sts)).toMatchObject({ HBA_CONNECTION: 'hostssl', SUPERUSER_AUTH: 'cert', TLS_DIR: '/etc/postgresql-tls' });
        expect(podSpec(sts).volumes).toContainEqual({ name: 'tls', secret: { secretName: 'orders-tls', defaultMode: 0o440 } });
        expect(container(sts).volumeMounts).toContainEqual({ name: 'tls', mountPath: '/etc/postgresql-tls', readOnly: true });
      }
      const script = primaryStartScript();
      expect(script).toContain('$HBA_CONNECTION all "$POSTGRES_USER" all $SUPERUSER_AUTH');
      expect(script).not.toMatch(/^host /m);
    });

    it('every Job verifies the server against the CA and logs in with the superuser\u2019s certificate', () => {
      for (const workload of workloads(children).filter((w) => w.kind !== 'StatefulSet')) {
        expect(env(workload)).toMatchObject({
          PGSSLMODE: 'verify-full',
          PGSSLROOTCERT: '/etc/postgresql-tls/ca.crt',
          PGSSLCERT: '/etc/postgresql-tls/superuser.crt',
          PGSSLKEY: '/etc/postgresql-tls/superuser.key',
        });
      }
    });

    it('the NetworkPolicy admits to PostgreSQL\u2019s port only pods of the namespace labelled databases.cdk8s-operators.io/client: <service>', () => {
      const policy = find(children, 'NetworkPolicy', 'orders');
      const server = find(children, 'StatefulSet', 'orders');
      // It selects the Database's servers, primary and standbys...
      const { [ROLE_LABEL]: _role, ...serverSelector } = server.spec.selector.matchLabels;
      expect(policy.spec.podSelector).toEqual({ matchLabels: serverSelector });
      for (const sts of children.filter((c) => c.kind === 'StatefulSet')) expect(template(sts).metadata.labels).toMatchObject(serverSelector);
      // ...and admits exactly one kind of peer: a pod of this namespace (a podSelector without a
      // namespaceSelector) with the client label. No ipBlock, no namespaceSelector, no empty rule.
      expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
      expect(policy.spec.ingress).toEqual([{ from: [{ podSelector: { matchLabels: { 'databases.cdk8s-operators.io/client': 'orders' } } }], ports: [{ protocol: 'TCP', port: 5432 }] }]);
      // The Database's own pods carry the label: standbys reach the primary, the Jobs reach both.
      for (const workload of workloads(children)) expect(template(workload).metadata.labels['databases.cdk8s-operators.io/client']).toBe('orders');
      // A pod without the label, or a client of another Database, matches no peer of the rule.
      const admitted = (labels: Record<string, string>) =>
        policy.spec.ingress.some((rule: Json) => rule.from.some((peer: Json) => Object.entries(peer.podSelector.matchLabels).every(([k, v]) => labels[k] === v)));
      expect(admitted({ app: 'web' })).toBe(false);
      expect(admitted({ app: 'web', 'databases.cdk8s-operators.io/client': 'payments' })).toBe(false);
      expect(admitted({ app: 'web', 'databases.cdk8s-operators.io/client': 'orders' })).toBe(true);
    });

    it('the client label\u2019s value is the Service\u2019s name, a label value even for a Database name of 253 characters', () => {
      const long = render(minimal, CREDENTIALS, `${'a'.repeat(250)}-xy`);
      const service = long.find((c) => c.kind === 'Service' && (c as Json).spec.selector[ROLE_LABEL] === 'primary')!;
      const policy = long.find((c) => c.kind === 'NetworkPolicy' && !c.metadata.name.endsWith('-jobs')) as Json;
      const value = policy.spec.ingress[0].from[0].podSelector.matchLabels['databases.cdk8s-operators.io/client'];
      expect(value).toBe(service.metadata.name);
      expect(value.length).toBeLessThanOrEqual(MAX_LABEL_LENGTH);
    });

    it('superuserAccess: true and tls: Disabled keep the original\u2019s behaviour: passwords for everyone, no TLS, no certificate', async () => {
      const original = render({ ...minimal, superuserAccess: true, tls: 'Disabled', backup: { schedule: '@daily' } }, { ...CREDENTIALS, tls: await tls });
      const sts = find(original, 'StatefulSet', 'orders');
      expect(env(sts)).toMatchObject({ HBA_CONNECTION: 'host', SUPERUSER_AUTH: 'scram-sha-256' });
      expect(env(sts).TLS_DIR).toBeUndefined();
      for (const workload of workloads(original)) {
        expect(podSpec(workload).volumes.filter((v: Json) => v.secret)).toEqual([]);
        expect(Object.keys(env(workload)).filter((name) => name.startsWith('PGSSL'))).toEqual([]);
      }
      // With TLS still on, superuserAccess alone lets the superuser log in with its password.
      expect(env(find(render({ ...minimal, superuserAccess: true }, CREDENTIALS), 'StatefulSet', 'orders'))).toMatchObject({ HBA_CONNECTION: 'hostssl', SUPERUSER_AUTH: 'scram-sha-256' });
    });

    it('refuses tls: Disabled without superuserAccess: true, naming spec.tls', () => {
      const result = validateResource(databaseKind, { apiVersion: 'stable.imaginedata.com/v1', kind: 'Database', metadata: { name: 'orders', namespace: 'shop' }, spec: { ...minimal, tls: 'Disabled' } });
      expect(result).toMatchObject({ ok: false, errors: [{ field: 'spec.tls', message: expect.stringContaining('tls Disabled needs superuserAccess: true') }] });
      const wrong = validateResource(databaseKind, { apiVersion: 'stable.imaginedata.com/v1', kind: 'Database', metadata: { name: 'orders', namespace: 'shop' }, spec: { ...minimal, tls: 'Off' } });
      expect(wrong).toMatchObject({ ok: false, errors: [{ field: 'spec.tls' }] });
    });
  });

  describe('the observer', () => {
    const STATEFULSETS = 'apps/statefulsets';
    const observe = (db: CustomResource<DatabaseSpec>, objects: Record<string, Json> = {}) => {
      const caches: CacheReader = { get: (collection, key) => objects[`${collection.apiGroup}/${collection.resource}:${key}`], list: () => [], childrenOf: () => [] };
      return databaseController.observer!({ caches } as ObserverContext)(db as Parameters<ReturnType<NonNullable<typeof databaseController.observer>>>[0]);
    };
    const primary = (volumes: Json[], readyReplicas: number) => ({ [`${STATEFULSETS}:shop/orders`]: { spec: { template: { spec: { containers: [{ name: 'postgres', image: 'postgres:17' }], volumes } } }, status: { readyReplicas } } });
    const mounted = [{ name: 'tls', secret: { secretName: 'orders-tls' } }];

    it('generates a new owner-role password every time (only the first is ever created)', async () => {
      const [a, b] = [await observe(database(minimal)), await observe(database(minimal))];
      expect(a.appPassword).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(a.appPassword).not.toBe(b.appPassword);
    });

    it('renders Secret <name>-app only while the init Job, which reads it, has not succeeded, the primary may wait, or the Database is deleted', async () => {
      const initJob = (status: string) => ({ 'batch/jobs:shop/orders-init': { status: { conditions: [{ type: status, status: 'True' }] } } });
      expect((await observe(database(minimal), { ...primary(mounted, 1), ...initJob('Failed') })).appPassword).toBeDefined();
      expect((await observe(database(minimal), { ...primary(mounted, 1), ...initJob('Complete') })).appPassword).toBeUndefined();
      expect((await observe(database(minimal), { ...primary(mounted, 0), ...initJob('Complete') })).appPassword).toBeDefined();
      expect((await observe(database({ ...minimal, superuserAccess: true, tls: 'Disabled' }), { ...primary([], 1), ...initJob('Complete') })).appPassword).toBeUndefined();
      const deleted = database(minimal, 'orders', { deletionTimestamp: '2026-11-20T10:00:00Z' });
      expect((await observe(deleted, { ...primary(mounted, 1), ...initJob('Complete') })).appPassword).toBeDefined();
    });

    it('makes certificates only while the primary may wait for them: not yet mounting them, not ready, or the Database being deleted', async () => {
      expect((await observe(database(minimal))).tls).toBeDefined();
      expect((await observe(database(minimal), primary([], 1))).tls).toBeDefined();
      expect((await observe(database(minimal), primary(mounted, 0))).tls).toBeDefined();
      expect((await observe(database(minimal), primary(mounted, 1))).tls).toBeUndefined();
      expect((await observe(database(minimal, 'orders', { deletionTimestamp: '2026-11-20T10:00:00Z' }), primary(mounted, 1))).tls).toBeDefined();
      expect((await observe(database({ ...minimal, superuserAccess: true, tls: 'Disabled' }))).tls).toBeUndefined();
    });

    it('names in the servers\u2019 certificate every Service in every form, and the pods under the headless Service', async () => {
      const { tls: material } = await observe(database(minimal));
      const names = new X509Certificate(material!.serverCert).subjectAltName!.split(', ');
      for (const host of ['orders', 'orders.shop', 'orders.shop.svc', 'orders.shop.svc.cluster.local', 'orders-readonly.shop.svc', '*.orders-headless.shop.svc']) expect(names).toContain(`DNS:${host}`);
    });
  });

  describe('StatefulSet', () => {
    const children = render(minimal, CREDENTIALS);
    const sts = find(children, 'StatefulSet', 'orders');
    const postgres = container(sts);

    it('is governed by the headless Service and claims a data volume of storage-size per replica', () => {
      expect(sts.spec.serviceName).toBe('orders-headless');
      expect(sts.spec.volumeClaimTemplates).toEqual([
        { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
      ]);
      expect(sts.spec.persistentVolumeClaimRetentionPolicy).toEqual({ whenDeleted: 'Delete', whenScaled: 'Retain' });
    });

    it('keeps PGDATA in a directory inside the data volume', () => {
      expect(postgres.volumeMounts).toContainEqual({ name: 'data', mountPath: DATA_MOUNT });
      expect(env(sts).PGDATA).toBe(PGDATA);
      expect(PGDATA.startsWith(`${DATA_MOUNT}/`)).toBe(true);
    });

    it('runs as the image\u2019s postgres user 999 on a read-only root, with emptyDirs where PostgreSQL writes', () => {
      expect(podSpec(sts).securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 999, runAsGroup: 999, fsGroup: 999 });
      expect(postgres.securityContext).toMatchObject({ readOnlyRootFilesystem: true, runAsUser: 999 });
      const mounts = Object.fromEntries(postgres.volumeMounts.map((m: Json) => [m.mountPath, m.name]));
      const volumes = Object.fromEntries(podSpec(sts).volumes.map((v: Json) => [v.name, v]));
      for (const path of ['/var/run/postgresql', '/tmp']) expect(volumes[mounts[path]].emptyDir).toBeDefined();
    });

    it('is ready when pg_isready answers over TCP', () => {
      expect(postgres.readinessProbe.exec.command).toEqual(['pg_isready', '--quiet', '--host=127.0.0.1']);
    });

    it('is the one primary the read-write Service sends clients to, on the named port', () => {
      const service = find(children, 'Service', 'orders');
      const headless = find(children, 'Service', 'orders-headless');
      const labels = sts.spec.template.metadata.labels;
      expect(sts.spec.replicas).toBe(1);
      expect(service.spec.selector).toEqual(sts.spec.selector.matchLabels);
      expect(service.spec.selector[ROLE_LABEL]).toBe('primary');
      const { [ROLE_LABEL]: _role, ...allServers } = sts.spec.selector.matchLabels;
      expect(headless.spec).toMatchObject({ clusterIP: 'None', selector: allServers });
      for (const [key, value] of Object.entries(sts.spec.selector.matchLabels)) expect(labels[key]).toBe(value);
      expect(service.spec.ports).toEqual([{ name: 'postgres', port: 5432, targetPort: 'postgres', protocol: 'TCP' }]);
    });

    it('starts PostgreSQL with its own start-up script, which initdb’s an empty volume with the Secret’s superuser', () => {
      expect(postgres.command.slice(0, 2)).toEqual(['sh', '-c']);
      expect(postgres.command[2]).toBe(primaryStartScript());
      expect(postgres.command[2]).toContain('initdb --pgdata="$PGDATA" --username="$POSTGRES_USER" --pwfile="$pwfile"');
      expect(env(sts)).toMatchObject({ PG_RUN_DIR: '/var/run/postgresql', LISTEN_ADDRESSES: '*' });
      expect(env(sts).PRIMARY_HOST).toBeUndefined();
    });

    it('selects no Job pod', () => {
      const selector = sts.spec.selector.matchLabels;
      for (const job of workloads(render({ ...minimal, backup: { schedule: '@daily' } })).filter((w) => w.kind !== 'StatefulSet')) {
        const labels = template(job).metadata.labels;
        expect(Object.entries(selector).every(([k, v]) => labels[k] === v)).toBe(false);
      }
    });
  });

  describe('each spec field', () => {
    it('name: the database the init Job creates and the one backups dump, as written', () => {
      const children = render({ ...minimal, name: 'name-of-database', backup: { schedule: '@daily' } });
      expect(env(find(children, 'Job', 'orders-init')).DATABASE_NAME).toBe('name-of-database');
      expect(env(find(children, 'CronJob')).PGDATABASE).toBe('name-of-database');
    });

    it('port: the Services, the container, PGPORT of the server and every Job, and the NetworkPolicies', () => {
      const children = render({ ...minimal, port: 6543, backup: { schedule: '@daily' } });
      for (const name of ['orders', 'orders-headless']) expect(find(children, 'Service', name).spec.ports[0].port).toBe(6543);
      expect(container(find(children, 'StatefulSet')).ports).toEqual([{ name: 'postgres', containerPort: 6543, protocol: 'TCP' }]);
      for (const workload of workloads(children)) expect(env(workload).PGPORT).toBe('6543');
      expect(find(children, 'NetworkPolicy', 'orders').spec.ingress[0].ports).toEqual([{ protocol: 'TCP', port: 6543 }]);
      expect(find(children, 'NetworkPolicy', 'orders-jobs').spec.egress[1].ports).toEqual([{ protocol: 'TCP', port: 6543 }]);
    });

    it('storage-size: each data volume and the backup volume', () => {
      const children = render({ ...minimal, 'storage-size': '50G' });
      expect(find(children, 'StatefulSet').spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe('50G');
      expect(find(children, 'PersistentVolumeClaim', 'orders-backup').spec.resources.requests.storage).toBe('50G');
      expect(find(render({ ...minimal, 'storage-size': 10737418240 }), 'StatefulSet').spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe('10737418240');
    });

    it('image: the server and every Job (default postgres:17 pinned by digest)', () => {
      for (const workload of workloads(render({ ...minimal, backup: { schedule: '@daily' } }))) expect(container(workload).image).toBe(DEFAULT_IMAGE);
      for (const workload of workloads(render({ ...minimal, image: 'postgres:16.4-alpine', backup: { schedule: '@daily' } }))) {
        expect(container(workload).image).toBe('postgres:16.4-alpine');
      }
    });

    it('replicas: one primary, and replicas - 1 hot standbys behind the read-only Service (default 1)', () => {
      expect(ids(render(minimal)).filter((id) => /StatefulSet|Service\//.test(id))).toEqual(['Service/orders', 'Service/orders-headless', 'StatefulSet/orders']);
      const children = render({ ...minimal, replicas: 3 }, CREDENTIALS);
      expect(find(children, 'StatefulSet', 'orders').spec.replicas).toBe(1);
      const standbys = find(children, 'StatefulSet', 'orders-standby');
      expect(standbys.spec.replicas).toBe(2);
      expect(standbys.spec.serviceName).toBe('orders-headless');
      expect(standbys.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe('1Gi');
      const readonly = find(children, 'Service', 'orders-readonly');
      expect(readonly.spec.selector).toEqual(standbys.spec.selector.matchLabels);
      expect(readonly.spec.selector[ROLE_LABEL]).toBe('standby');
      const { [ROLE_LABEL]: _role, ...allServers } = standbys.spec.selector.matchLabels;
      expect(find(children, 'Service', 'orders-headless').spec.selector).toEqual(allServers);
    });

    it('replicas: each standby clones the primary through the read-write Service as the replication role, by reference', () => {
      const standbys = find(render({ ...minimal, replicas: 2 }, CREDENTIALS), 'StatefulSet', 'orders-standby');
      expect(container(standbys).command[2]).toBe(standbyStartScript());
      expect(container(standbys).command[2]).toContain('pg_basebackup');
      expect(container(standbys).command[2]).toContain('primary_conninfo=');
      expect(env(standbys).PRIMARY_HOST).toBe('orders');
      expect(env(standbys).REPLICATION_USER).toEqual({ secretKeyRef: { name: 'orders-credentials', key: 'replication-username' } });
      expect(env(standbys).REPLICATION_PASSWORD).toEqual({ secretKeyRef: { name: 'orders-credentials', key: 'replication-password' } });
      // The init Job creates the role on the primary.
      expect(env(find(render(minimal), 'Job', 'orders-init')).REPLICATION_PASSWORD).toEqual({ secretKeyRef: { name: 'orders-credentials', key: 'replication-password' } });
    });

    it('backup: a CronJob only when it is set', () => {
      expect(render(minimal).filter((c) => c.kind === 'CronJob')).toEqual([]);
      const cronJob = find(render({ ...minimal, backup: { schedule: '30 2 * * MON-FRI', retention: 3 } }), 'CronJob', 'orders-backup');
      expect(cronJob.spec).toMatchObject({ schedule: '30 2 * * MON-FRI', concurrencyPolicy: 'Forbid', startingDeadlineSeconds: 3600 });
      expect(env(cronJob).RETENTION).toBe('3');
      expect(env(find(render({ ...minimal, backup: { schedule: '@daily' } }), 'CronJob')).RETENTION).toBe('7');
    });

    it('backup: the CronJob dumps with pg_dump into the backup volume and keeps the newest `retention`', () => {
      const cronJob = find(render({ ...minimal, backup: { schedule: '@daily' } }), 'CronJob');
      const script = container(cronJob).command[2];
      expect(script).toContain('pg_dump --format=custom');
      expect(script).toContain('tail -n +$((RETENTION + 1))');
      expect(podSpec(cronJob).volumes).toContainEqual({ name: 'backup', persistentVolumeClaim: { claimName: 'orders-backup' } });
      expect(podSpec(cronJob).restartPolicy).toBe('Never');
    });

    it('deletionPolicy: the backup volume exists for the final snapshot, or for backups, or not at all', () => {
      const volumes = (spec: Record<string, unknown>) => render(spec).filter((c) => c.kind === 'PersistentVolumeClaim').map((c) => c.metadata.name);
      expect(volumes(minimal)).toEqual(['orders-backup']);
      expect(volumes({ ...minimal, deletionPolicy: 'Delete' })).toEqual([]);
      expect(volumes({ ...minimal, deletionPolicy: 'Delete', backup: { schedule: '@daily' } })).toEqual(['orders-backup']);
    });
  });

  it('marks the backup volume to outlive the Database', () => {
    const volume = find(render(minimal), 'PersistentVolumeClaim', 'orders-backup');
    expect(volume.metadata.annotations).toEqual({ [KEEP_ON_DELETE_ANNOTATION]: 'true' });
  });

  it('creates the database with the image\u2019s psql, quoting the name, only when it is missing', () => {
    const job = find(render(minimal), 'Job', 'orders-init');
    const script = container(job).command[2];
    expect(container(job).command.slice(0, 2)).toEqual(['sh', '-c']);
    expect(script).toContain("format('CREATE DATABASE %I', :'name')");
    expect(script).toContain("WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'name')\\gexec");
    expect(podSpec(job).volumes.map((v: Json) => v.name)).toEqual(['tmp', 'tls']);
  });

  describe('keep every pod to the restricted profile, in every state', () => {
    for (const [state, { spec, observation }] of Object.entries(STATES)) {
      it(state, () => {
        for (const workload of workloads(render(spec, observation))) {
          const pod = podSpec(workload);
          expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
          expect(pod.automountServiceAccountToken).toBe(false);
          for (const c of pod.containers) {
            expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
            for (const kind of ['requests', 'limits']) expect(Object.keys(c.resources[kind]).sort()).toEqual(['cpu', 'ephemeral-storage', 'memory']);
          }
          // Only the server needs the image's own uid; the Jobs run clients.
          if (workload.kind !== 'StatefulSet') expect(pod.securityContext.runAsUser).toBeGreaterThanOrEqual(10000);
        }
      });
    }
  });

  describe('upgrades', () => {
    const spec = { ...minimal, image: 'postgres:17.2', backup: { schedule: '@daily' } };

    it('run the upgrade Job with the new image while the StatefulSet and the other Jobs stay on the running one', () => {
      const children = render(spec, { ...CREDENTIALS, currentImage: 'postgres:17.1' });
      const job = find(children, 'Job', 'orders-upgrade-17.2');
      expect(container(job).image).toBe('postgres:17.2');
      expect(env(job).DUMP_LABEL).toBe('from-17.1-to-17.2');
      expect(container(job).command[2]).toContain('pg_dumpall');
      expect(podSpec(job).volumes).toContainEqual({ name: 'backup', persistentVolumeClaim: { claimName: 'orders-backup' } });
      expect(container(find(children, 'StatefulSet')).image).toBe('postgres:17.1');
      expect(container(find(children, 'Job', 'orders-init')).image).toBe('postgres:17.1');
      expect(container(find(children, 'CronJob')).image).toBe('postgres:17.1');
    });

    it('roll the StatefulSet once the Job succeeded, and drop the Job once the new image runs', () => {
      const rolling = render(spec, { ...CREDENTIALS, currentImage: 'postgres:17.1', upgrade: 'Succeeded' });
      expect(container(find(rolling, 'StatefulSet')).image).toBe('postgres:17.2');
      expect(find(rolling, 'Job', 'orders-upgrade-17.2')).toBeDefined();
      const done = render(spec, { ...CREDENTIALS, currentImage: 'postgres:17.2' });
      expect(done.filter((c) => c.metadata.name.includes('upgrade'))).toEqual([]);
      expect(container(find(done, 'StatefulSet')).image).toBe('postgres:17.2');
    });

    it('hold the running image when the Job failed', () => {
      const observation: DatabaseObservation = { ...CREDENTIALS, currentImage: 'postgres:17.1', upgrade: 'Failed' };
      expect(container(find(render(spec, observation), 'StatefulSet')).image).toBe('postgres:17.1');
      expect(databasePhase(database(spec).spec, observation)).toMatchObject({ phase: 'Held', reason: 'UpgradeFailed' });
    });

    it('dump but never roll to a new major version, which cannot open the old data directory', () => {
      const major = { ...minimal, image: 'postgres:17' };
      const observation: DatabaseObservation = { ...CREDENTIALS, currentImage: 'postgres:16.4', upgrade: 'Succeeded' };
      const children = render(major, observation);
      expect(find(children, 'Job', 'orders-upgrade-17')).toBeDefined();
      expect(container(find(children, 'StatefulSet')).image).toBe('postgres:16.4');
      expect(databasePhase(database(major).spec, observation)).toMatchObject({ phase: 'Held', reason: 'MajorUpgrade' });
    });

    it('refuse a downgrade, and a switch between glibc and musl images', () => {
      for (const [wanted, reason] of [
        ['postgres:17.1', 'Downgrade'],
        ['postgres:17.3-alpine', 'LibcChange'],
      ]) {
        const observation = { ...CREDENTIALS, currentImage: 'postgres:17.2' };
        const children = render({ ...minimal, image: wanted }, observation);
        expect(container(find(children, 'StatefulSet')).image).toBe('postgres:17.2');
        expect(children.filter((c) => c.metadata.name.includes('upgrade'))).toEqual([]);
        expect(databasePhase(database({ ...minimal, image: wanted }).spec, observation)).toMatchObject({ phase: 'Held', reason });
      }
    });

    it('roll at once to the same version from another registry', () => {
      const children = render({ ...minimal, image: 'mirror.example.com/library/postgres:17.2' }, { currentImage: 'postgres:17.2' });
      expect(container(find(children, 'StatefulSet')).image).toBe('mirror.example.com/library/postgres:17.2');
      expect(children.filter((c) => c.metadata.name.includes('upgrade'))).toEqual([]);
    });

    it('compare major.minor as numbers', () => {
      const version = (image: string) => parsePostgresImage(image)!;
      expect(compareVersions(version('postgres:17.10'), version('postgres:17.9'))).toBeGreaterThan(0);
      expect(compareVersions(version('postgres:10'), version('postgres:9.6'))).toBeGreaterThan(0);
      expect(compareVersions(version('postgres:17'), version('postgres:17.0-bookworm'))).toBe(0);
      expect(version(`r.example.com:5000/pg/postgres:16.4-alpine3.20@sha256:${'a'.repeat(64)}`)).toEqual({ repository: 'postgres', tag: '16.4-alpine3.20', major: 16, minor: 4, libc: 'musl' });
      expect(version('bitnami/postgresql:16.4.0-debian-12-r0')).toMatchObject({ repository: 'postgresql', major: 16, minor: 4, libc: 'glibc' });
      for (const image of ['postgres:latest', 'postgres', 'super-great-docker-image', `postgres@sha256:${'a'.repeat(64)}`]) expect(parsePostgresImage(image)).toBeUndefined();
    });

    it('run an image whose version cannot be read as given', () => {
      const children = render({ ...minimal, image: 'super-great-docker-image' }, CREDENTIALS);
      for (const workload of workloads(children)) expect(container(workload).image).toBe('super-great-docker-image');
      const observation = { currentImage: 'super-great-docker-image', readyReplicas: 1 };
      expect(databasePhase(database({ ...minimal, image: 'super-great-docker-image' }).spec, observation)).toMatchObject({ phase: 'Ready' });
    });

    it('hold a change to or from an image whose version cannot be read, or to another image, saying why', () => {
      for (const [running, wanted, why] of [
        ['super-great-docker-image', 'postgres:17', 'super-great-docker-image has no tag'],
        ['postgres:17.1', 'postgres:latest', 'the tag latest of postgres:latest does not start with a version'],
        ['postgres:17.1', `postgres@sha256:${'b'.repeat(64)}`, 'has no tag'],
        ['postgres:16.4', 'bitnami/postgresql:16.5.0', 'another image (postgresql) than the running postgres:16.4 (postgres)'],
      ]) {
        const observation = { ...CREDENTIALS, currentImage: running };
        const children = render({ ...minimal, image: wanted }, observation);
        expect(workloads(children).map((w) => container(w).image)).toEqual(workloads(children).map(() => running));
        expect(children.filter((c) => c.metadata.name.includes('upgrade'))).toEqual([]);
        const phase = databasePhase(database({ ...minimal, image: wanted }).spec, observation);
        expect(phase).toMatchObject({ phase: 'Held', reason: 'ImageNotComparable' });
        expect(phase.message).toContain(why);
        expect(phase.message).toContain(`set image back to ${running}`);
      }
    });

    it('name the upgrade Job after a tag with capitals and "_" as a name may be', () => {
      const children = render({ ...minimal, image: 'postgres:17.2_Custom' }, { ...CREDENTIALS, currentImage: 'postgres:17.1' });
      expect(ids(children)).toContain('Job/orders-upgrade-17.2-custom');
    });
  });

  describe('deletion', () => {
    const spec = { ...minimal, backup: { schedule: '@daily' } };

    it('with Snapshot: keeps the server up for the snapshot Job and runs nothing else', () => {
      const children = render(spec, { ...CREDENTIALS, currentImage: 'postgres:17', deleting: true });
      expect(ids(children)).toEqual([
        'Job/orders-snapshot',
        'NetworkPolicy/orders',
        'NetworkPolicy/orders-jobs',
        'PersistentVolumeClaim/orders-backup',
        'Secret/orders-app',
        'Secret/orders-credentials',
        'Service/orders',
        'Service/orders-headless',
        'StatefulSet/orders',
      ]);
      const job = find(children, 'Job', 'orders-snapshot');
      expect(container(job).command[2]).toContain('pg_dumpall');
      expect(podSpec(job).volumes).toContainEqual({ name: 'backup', persistentVolumeClaim: { claimName: 'orders-backup' } });
      expect(databasePhase(database(spec).spec, { deleting: true })).toMatchObject({ phase: 'Deleting' });
      expect(finalizerMayBeReleased(database(spec).spec, { deleting: true })).toBe(false);
    });

    it('keeps what the final snapshot needs without an ownerReference, so no foreground deletion takes it first; the rest keeps its owner', () => {
      const owner = { metadata: { name: 'orders', namespace: 'shop', uid: 'uid-1' } };
      const owned = (children: Manifest[]) => ids(children.map((c) => withOwner(c, owner, databaseKind)).filter((c) => c.metadata.ownerReferences));
      const serving = render({ ...spec, replicas: 2 }, { ...CREDENTIALS, currentImage: 'postgres:17', readyReplicas: 2 });
      expect(owned(serving)).toEqual(['CronJob/orders-backup', 'Job/orders-init']);
      expect(owned(render({ ...spec, image: 'postgres:17.2' }, { ...CREDENTIALS, currentImage: 'postgres:17.1' }))).toContain('Job/orders-upgrade-17.2');
      expect(owned(render(spec, { ...CREDENTIALS, currentImage: 'postgres:17', deleting: true }))).toEqual([]);
    });

    it('with Snapshot: keeps the snapshot Job and the finalizer when the snapshot failed', () => {
      const observation: DatabaseObservation = { ...CREDENTIALS, deleting: true, snapshot: 'Failed' };
      expect(find(render(spec, observation), 'Job', 'orders-snapshot')).toBeDefined();
      expect(finalizerMayBeReleased(database(spec).spec, observation)).toBe(false);
      expect(databasePhase(database(spec).spec, observation)).toMatchObject({ phase: 'Failed', reason: 'SnapshotFailed' });
    });

    // Released, only the Secrets are rendered: they have no ownerReference (kept.ts) and are
    // in no watched collection, so the engine deletes by name what this last render names.
    it('with Snapshot: renders only the Secrets, to be removed, and releases the finalizer once the snapshot succeeded', async () => {
      const observation: DatabaseObservation = { ...CREDENTIALS, tls: await tls, deleting: true, snapshot: 'Succeeded' };
      expect(ids(render(spec, observation))).toEqual(['Secret/orders-app', 'Secret/orders-credentials', 'Secret/orders-tls']);
      expect(finalizerMayBeReleased(database(spec).spec, observation)).toBe(true);
    });

    it('with Delete: renders only the Secrets, to be removed, and releases the finalizer at once', async () => {
      const deleteSpec = { ...spec, deletionPolicy: 'Delete' };
      expect(ids(render(deleteSpec, { ...CREDENTIALS, tls: await tls, deleting: true }))).toEqual(['Secret/orders-app', 'Secret/orders-credentials', 'Secret/orders-tls']);
      expect(render(deleteSpec, { deleting: true })).toEqual([]);
      expect(finalizerMayBeReleased(database(deleteSpec).spec, { deleting: true })).toBe(true);
    });

    it('starts when the Database has a deletionTimestamp, even without an observation', () => {
      const resource = database(minimal, 'orders', { deletionTimestamp: '2026-11-20T10:00:00Z' });
      expect(ids(renderChildren(databaseKind, resource))).toContain('Job/orders-snapshot');
    });

    it('never lets a finalizer go while the Database is not being deleted', () => {
      expect(finalizerMayBeReleased(database({ ...minimal, deletionPolicy: 'Delete' }).spec, {})).toBe(false);
    });
  });

  describe('names', () => {
    it('are the Database\u2019s name and fixed suffixes, with no hash, when they fit', async () => {
      const children = render({ ...minimal, backup: { schedule: '@daily' }, image: 'postgres:17.2' }, { ...CREDENTIALS, tls: await tls, currentImage: 'postgres:17.1' });
      expect(ids(children)).toEqual([
        'CronJob/orders-backup',
        'Job/orders-init',
        'Job/orders-upgrade-17.2',
        'NetworkPolicy/orders',
        'NetworkPolicy/orders-jobs',
        'PersistentVolumeClaim/orders-backup',
        'Secret/orders-app',
        'Secret/orders-credentials',
        'Secret/orders-tls',
        'Service/orders',
        'Service/orders-headless',
        'StatefulSet/orders',
      ]);
    });

    it('stay within every limit, distinct and consistent for a 253-character Database name', async () => {
      const name = `${'a'.repeat(250)}-xy`;
      const limits: Record<string, number> = { Service: MAX_LABEL_LENGTH, StatefulSet: MAX_STATEFULSET_NAME_LENGTH, CronJob: MAX_CRONJOB_NAME_LENGTH, Job: MAX_LABEL_LENGTH };
      const all = [
        ...render({ ...minimal, replicas: 2, backup: { schedule: '@daily' }, image: 'postgres:17.2-bookworm' }, { ...CREDENTIALS, tls: await tls, currentImage: 'postgres:17.1' }, name),
        ...render(minimal, { ...CREDENTIALS, deleting: true }, name).filter((c) => c.kind === 'Job'),
      ];
      const named = new Set<string>();
      for (const child of all) {
        const limit = limits[child.kind] ?? MAX_NAME_LENGTH;
        expect([child.kind, child.metadata.name.length <= limit]).toEqual([child.kind, true]);
        expect(child.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
        named.add(`${child.kind}/${child.metadata.name}`);
        for (const value of Object.values(child.metadata.labels ?? {})) expect(value.length).toBeLessThanOrEqual(MAX_LABEL_LENGTH);
      }
      expect(named.size).toBe(all.length);
      // Every reference between children uses the other child's real (shortened) name.
      const [sts, standbys] = all.filter((c) => c.kind === 'StatefulSet') as Json[];
      const services = all.filter((c) => c.kind === 'Service') as Json[];
      const headless = services.find((s) => s.spec.clusterIP === 'None');
      const client = services.find((s) => s.spec.selector[ROLE_LABEL] === 'primary');
      expect(sts.spec.serviceName).toBe(headless.metadata.name);
      expect(standbys.spec.serviceName).toBe(headless.metadata.name);
      expect(env(standbys).PRIMARY_HOST).toBe(client.metadata.name);
      expect(client.spec.selector).toEqual(sts.spec.selector.matchLabels);
      const secretNames = all.filter((c) => c.kind === 'Secret').map((c) => c.metadata.name);
      expect(secretNames).toHaveLength(3);
      const volumeName = find(all, 'PersistentVolumeClaim').metadata.name;
      for (const workload of workloads(all)) {
        for (const variable of container(workload).env) if (variable.valueFrom) expect(secretNames).toContain(variable.valueFrom.secretKeyRef.name);
        if (workload.kind !== 'StatefulSet') expect(env(workload).PGHOST).toBe(client.metadata.name);
        for (const volume of podSpec(workload).volumes) if (volume.persistentVolumeClaim) expect(volume.persistentVolumeClaim.claimName).toBe(volumeName);
        for (const volume of podSpec(workload).volumes) if (volume.secret) expect(secretNames).toContain(volume.secret.secretName);
      }
    });
  });

  describe('status', () => {
    const spec = database({ ...minimal, replicas: 2 }).spec;
    it.each([
      [{}, 'Creating'],
      [{ currentImage: DEFAULT_IMAGE, readyReplicas: 1 }, 'NotReady'],
      [{ currentImage: DEFAULT_IMAGE, readyReplicas: 2 }, 'Ready'],
      [{ currentImage: 'postgres:16.9', readyReplicas: 2 }, 'Held'],
    ] as [DatabaseObservation, string][])('%j is %s', (observation, phase) => {
      expect(databasePhase(spec, observation).phase).toBe(phase);
    });

    it('says Upgrading while the upgrade Job runs and while the StatefulSet rolls', () => {
      const upgrading = database({ ...minimal, image: 'postgres:17.2' }).spec;
      expect(databasePhase(upgrading, { currentImage: 'postgres:17.1', readyReplicas: 1 })).toMatchObject({ phase: 'Upgrading', reason: 'Upgrading' });
      expect(databasePhase(upgrading, { currentImage: 'postgres:17.1', readyReplicas: 1, upgrade: 'Succeeded' })).toMatchObject({ phase: 'Upgrading', reason: 'Rolling' });
    });
  });

  describe('kind', () => {
    it('has the SampleDB identity and a snapshot finalizer', () => {
      expect(databaseKind).toMatchObject({
        group: 'stable.imaginedata.com',
        version: 'v2',
        kind: 'Database',
        plural: 'databases',
        singular: 'database',
        shortNames: ['db'],
        scope: 'Namespaced',
        finalizer: 'stable.imaginedata.com/snapshot',
      });
    });

    it('manages exactly its children, and Secrets only to read, create and delete them', () => {
      const all = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
      expect(databaseKind.manages).toEqual([
        // No list or watch: the credentials are deleted by name at the release (least privilege).
        { apiGroup: '', resources: ['secrets'], verbs: ['get', 'create', 'delete'] },
        { apiGroup: '', resources: ['services', 'persistentvolumeclaims'], verbs: all },
        { apiGroup: 'apps', resources: ['statefulsets'], verbs: all },
        { apiGroup: 'batch', resources: ['jobs', 'cronjobs'], verbs: all },
        { apiGroup: 'networking.k8s.io', resources: ['networkpolicies'], verbs: all },
      ]);
    });

    it('rejects a Database name that cannot name its Service, naming metadata', () => {
      for (const name of ['my.db', '9db']) {
        const result = validateResource(databaseKind, { metadata: { name }, spec: minimal });
        expect(result).toMatchObject({ ok: false, errors: [{ field: 'metadata' }] });
      }
    });

    it('defaults port, image, replicas, deletionPolicy and backup retention', () => {
      expect(database({ ...minimal, backup: { schedule: '@daily' } }).spec).toEqual({
        name: 'orders',
        storageSize: '1Gi',
        port: 5432,
        image: DEFAULT_IMAGE,
        replicas: 1,
        deletionPolicy: 'Snapshot',
        backup: { schedule: '@daily', retention: 7 },
        superuserAccess: false,
        tls: 'Required',
      });
    });
  });

  describe('example', () => {
    const object = databaseExample(new Chart(new App(), 'examples'), 'operator-examples').toJson();
    const result = validateResource(databaseKind, object);

    it('is the orders database of the brief, on a primary and a standby', () => {
      expect(result.ok && result.spec).toEqual({
        name: 'orders',
        port: 5432,
        storageSize: '1Gi',
        image: DEFAULT_IMAGE,
        replicas: 2,
        backup: { schedule: '0 3 * * *', retention: 7 },
        deletionPolicy: 'Snapshot',
        superuserAccess: false,
        tls: 'Required',
      });
    });

    it('renders the same preview as the snapshot', () => {
      if (!result.ok) throw new Error('invalid example');
      expect(renderChildren(databaseKind, { ...object, spec: result.spec })).toMatchSnapshot();
    });
  });
});
