import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CustomResource } from '../../src/core/contract/kind';
import { validateResource } from '../../src/core/contract/validation';
import { Manifest, renderChildren } from '../../src/core/render';
import { databaseKind, DatabaseObservation, DatabaseSpec } from '../../src/kinds/database';
import { DatabaseTlsMaterial, newDatabaseTls } from '../../src/kinds/database/tls';
import { TLS_FILE_MODE, TLS_MOUNT } from '../../src/kinds/database/tls-secret';
import { freePort } from '../../src/testing/controlplane/processes';
import { Login, psql, psqlUri, removeDir, runScript, runScriptOk, ScriptServer, scratchDir, writeSecretVolume } from '../support/postgres';

// kwok's pods run no code, so the scripts the Database's pods would run are run here, on real
// PostgreSQL servers on 127.0.0.1: taken from the rendered manifests as they are, with their
// environment as rendered, Secret references resolved from the rendered Secret, and only the
// paths, hosts and ports the pods would have pointed at temp directories and loopback.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const CREDENTIALS: DatabaseObservation = {
  password: 'pw-3Zq8Kc1vT7xN2mR5yH9wB4dF6gJ0sL',
  replicationPassword: 'rp-9Tq2Lw7Xc4Vb1Nm8Kj5Hg3Fd6Sa0Pz',
  appPassword: 'ap-5Rt8Yu1Io4Pa7Sd0Fg3Hj6Kl9Zx2Cv',
};
/** The Database's own CA and certificates, made as the controller makes them (for Service `shop` in namespace `test`). */
const newTls = () => newDatabaseTls({ dns: ['shop', 'shop.test', 'shop.test.svc'], superuser: 'postgres', database: 'test/shop' });
/** Every character a quoted identifier may hold and a shell, a file name or a conninfo string would trip on. */
const TRICKY_NAME = `it's "the" db=1/x`;
const RETENTION = 2;
/** docs/kinds/database.md's restore of a final snapshot: the Database restored into keeps its own superuser's, replication role's and owner role's passwords. */
const RESTORE_SNAPSHOT = `gunzip -c "$DUMP" | grep -v -E '^ALTER ROLE (postgres|replicator|app) WITH ' | psql --no-psqlrc --quiet --dbname=postgres`;

function render(spec: Record<string, unknown>, observation: DatabaseObservation): Manifest[] {
  const object = { apiVersion: 'stable.imaginedata.com/v1', kind: 'Database', metadata: { name: 'shop', namespace: 'test' }, spec };
  const result = validateResource(databaseKind, object);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return renderChildren(databaseKind, { ...object, spec: result.spec } as CustomResource<DatabaseSpec>, observation);
}

const secretData = (children: Manifest[], name: string): Record<string, string> => {
  const secret = children.find((c) => c.kind === 'Secret' && c.metadata.name === name) as Json;
  if (!secret) throw new Error(`no Secret/${name} rendered`);
  return Object.fromEntries(Object.entries(secret.data as Record<string, string>).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));
};

/**
 * A workload's script and environment as its container would get them, Secret references
 * resolved from the rendered Secrets; the Secret volume of `<name>-tls` written to a temp
 * directory as the kubelet would, and every variable naming a file in it pointed there.
 */
function program(children: Manifest[], kind: string, name: string, dirs: string[]): { script: string; env: Record<string, string> } {
  const workload = children.find((c) => c.kind === kind && c.metadata.name === name) as Json;
  if (!workload) throw new Error(`no ${kind}/${name} rendered`);
  const podSpec = (kind === 'CronJob' ? workload.spec.jobTemplate.spec : workload.spec).template.spec;
  const [container] = podSpec.containers;
  expect(container.command.slice(0, 2)).toEqual(['sh', '-c']);
  const mounts: [string, string][] = [];
  for (const mount of container.volumeMounts as Json[]) {
    const secretName = (podSpec.volumes as Json[]).find((v) => v.name === mount.name)?.secret?.secretName;
    if (secretName === undefined) continue;
    expect([mount.mountPath, secretName]).toEqual([TLS_MOUNT, 'shop-tls']);
    const dir = scratchDir('db-tls');
    dirs.push(dir);
    writeSecretVolume(dir, secretData(children, secretName), TLS_FILE_MODE);
    mounts.push([mount.mountPath, dir]);
  }
  const env: Record<string, string> = {};
  for (const variable of container.env as Json[]) {
    if (variable.value !== undefined) {
      const mount = mounts.find(([path]) => variable.value === path || variable.value.startsWith(`${path}/`));
      env[variable.name] = mount ? mount[1] + variable.value.slice(mount[0].length) : variable.value;
    } else {
      const { name: secretName, key } = variable.valueFrom.secretKeyRef;
      env[variable.name] = secretData(children, secretName)[key];
    }
  }
  return { script: container.command[2], env };
}

/** Points the variables a pod would have at temp directories and loopback; each must be one the construct sets. */
function local(env: Record<string, string>, overrides: Record<string, string>): Record<string, string> {
  for (const name of Object.keys(overrides)) if (name !== 'HOME') expect([name, env[name] !== undefined]).toEqual([name, true]);
  return { ...env, ...overrides };
}

describe('Database scripts on a real PostgreSQL', () => {
  const spec = { name: TRICKY_NAME, 'storage-size': '1Gi', replicas: 2, backup: { schedule: '@daily', retention: RETENTION } };
  const dirs: string[] = [];
  const servers: ScriptServer[] = [];
  let children: Manifest[];
  /** The primary's CA and certificates: every Job of this Database is rendered with them. */
  let material: DatabaseTlsMaterial;
  let superuser: Login;
  let app: Login;
  let primary: ScriptServer;
  let backupDir: string;

  /** The `-tls` Secret's files on disk, and how the superuser (client certificate) and the owner role (password) log in with them. */
  function logins(source: Manifest[], credentials: DatabaseObservation): { superuser: Login; app: Login; tlsDir: string } {
    const tlsDir = scratchDir('db-client-tls');
    dirs.push(tlsDir);
    writeSecretVolume(tlsDir, secretData(source, 'shop-tls'), TLS_FILE_MODE);
    const verify = { PGSSLMODE: 'verify-full', PGSSLROOTCERT: join(tlsDir, 'ca.crt') };
    return {
      superuser: { user: 'postgres', password: credentials.password!, ssl: { ...verify, PGSSLCERT: join(tlsDir, 'superuser.crt'), PGSSLKEY: join(tlsDir, 'superuser.key') } },
      app: { user: 'app', password: credentials.appPassword!, ssl: verify },
      tlsDir,
    };
  }

  /** A server started by the primary's own start-up script, in a fresh data directory. */
  async function startPrimary(what: string, source: Manifest[] = children): Promise<ScriptServer> {
    const dir = scratchDir('db-primary');
    dirs.push(dir);
    const port = await freePort();
    const { script, env } = program(source, 'StatefulSet', 'shop', dirs);
    const server = new ScriptServer(what, script, local(env, { PGDATA: join(dir, 'data/pgdata'), PG_RUN_DIR: join(dir, 'run'), LISTEN_ADDRESSES: '127.0.0.1', PGPORT: String(port) }), port, join(dir, 'server.log'));
    servers.push(server);
    await server.ready();
    return server;
  }

  /** A Job's (or the CronJob's) script and env, pointed at `server` and the backup directory. */
  function job(source: Manifest[], kind: string, name: string, server: ScriptServer) {
    const { script, env } = program(source, kind, name, dirs);
    const overrides: Record<string, string> = { PGHOST: '127.0.0.1', PGPORT: String(server.port), HOME: backupDir };
    if (env.BACKUP_DIR !== undefined) overrides.BACKUP_DIR = backupDir;
    return { script, env: local(env, overrides) };
  }

  /** libpq's variables of a login, for a script run as that login. */
  const loginEnv = (port: number, login: Login) => ({ PGHOST: '127.0.0.1', PGPORT: String(port), PGUSER: login.user, PGPASSWORD: login.password, ...login.ssl });

  const count = (port: number, database: string, table: string, user = superuser) => Number(psql(port, user, database, `SELECT count(*) FROM ${table}`));

  beforeAll(async () => {
    material = await newTls();
    children = render(spec, { ...CREDENTIALS, tls: material });
    ({ superuser, app } = logins(children, CREDENTIALS));
    backupDir = scratchDir('db-backup');
    dirs.push(backupDir);
    primary = await startPrimary('the primary');
  }, 120_000);

  afterAll(async () => {
    for (const server of servers) await server.stop();
    for (const dir of dirs) removeDir(dir);
  }, 60_000);

  it('the primary\u2019s start-up script makes the Secret\u2019s superuser, who logs in over the network only with the Jobs\u2019 client certificate', () => {
    expect(psql(primary.port, superuser, 'postgres', 'SELECT current_user')).toBe('postgres');
    // The certificate logs it in, not the password.
    expect(psql(primary.port, { ...superuser, password: 'wrong' }, 'postgres', 'SELECT current_user')).toBe('postgres');
    // The password alone, even over TLS, is not enough (superuserAccess false).
    const passwordOnly = { ...superuser, ssl: { PGSSLMODE: 'verify-full', PGSSLROOTCERT: superuser.ssl!.PGSSLROOTCERT } };
    expect(() => psql(primary.port, passwordOnly, 'postgres', 'SELECT 1')).toThrow(/connection requires a valid client certificate|certificate authentication failed for user "postgres"/);
  });

  it('init creates the database, the replication role and the owner role once, and is idempotent', async () => {
    const init = job(children, 'Job', 'shop-init', primary);
    expect(init.env.DATABASE_NAME).toBe(TRICKY_NAME);
    for (let run = 0; run < 2; run++) await runScriptOk(`init run ${run + 1}`, init.script, init.env);
    expect(psql(primary.port, superuser, 'postgres', `SELECT count(*) FROM pg_database WHERE datname = '${TRICKY_NAME.replace(/'/g, "''")}'`)).toBe('1');
    expect(psql(primary.port, superuser, 'postgres', "SELECT rolreplication, rolsuper, rolcanlogin FROM pg_roles WHERE rolname = 'replicator'")).toBe('t|f|t');
    // The name as written, not folded to lower case nor cut.
    expect(psql(primary.port, superuser, TRICKY_NAME, 'SELECT current_database()')).toBe(TRICKY_NAME);
  }, 60_000);

  describe('the owner role of Secret shop-app', () => {
    it('owns the database and has no attribute beyond LOGIN, nor any predefined role', () => {
      const attributes = 'SELECT rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls, rolcanlogin FROM pg_roles WHERE rolname = current_user';
      expect(psql(primary.port, app, TRICKY_NAME, attributes)).toBe('f|f|f|f|f|t');
      expect(psql(primary.port, app, TRICKY_NAME, 'SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()')).toBe('app');
      expect(psql(primary.port, app, TRICKY_NAME, "SELECT count(*) FROM pg_auth_members WHERE member = 'app'::regrole")).toBe('0');
      expect(psql(primary.port, app, TRICKY_NAME, 'CREATE TABLE owned (id int); INSERT INTO owned VALUES (1); SELECT count(*) FROM owned')).toBe('1');
    });

    it('cannot run a program on the server: COPY ... FROM PROGRAM and TO PROGRAM are refused', () => {
      expect(psql(primary.port, app, TRICKY_NAME, "SELECT pg_has_role('pg_execute_server_program', 'MEMBER')")).toBe('f');
      expect(() => psql(primary.port, app, TRICKY_NAME, "CREATE TEMP TABLE out (line text); COPY out FROM PROGRAM 'id'")).toThrow(
        /permission denied to COPY to or from an external program|must be superuser or have privileges of the pg_execute_server_program role/,
      );
      expect(() => psql(primary.port, app, TRICKY_NAME, "COPY (SELECT 1) TO PROGRAM 'id'")).toThrow(/external program/);
      expect(() => psql(primary.port, app, TRICKY_NAME, "SELECT pg_read_server_files('/etc/passwd')")).toThrow();
    });

    it('is refused without TLS: there is no pg_hba.conf rule for a connection without encryption', () => {
      const plain = { PGSSLMODE: 'disable' };
      expect(() => psql(primary.port, { ...app, ssl: plain }, TRICKY_NAME, 'SELECT 1')).toThrow(/no pg_hba\.conf entry for host "127\.0\.0\.1", user "app", database ".+", no encryption/);
      expect(() => psql(primary.port, { ...superuser, ssl: plain }, 'postgres', 'SELECT 1')).toThrow(/no pg_hba\.conf entry for host "127\.0\.0\.1", user "postgres", database "postgres", no encryption/);
    });

    it('connects over TLS verifying the server against the Database\u2019s CA, and refuses a server of another CA', async () => {
      expect(psql(primary.port, app, TRICKY_NAME, 'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')).toBe('t');
      const other = scratchDir('db-other-ca');
      dirs.push(other);
      writeSecretVolume(other, { 'ca.crt': (await newTls()).caCert }, TLS_FILE_MODE);
      expect(() => psql(primary.port, { ...app, ssl: { PGSSLMODE: 'verify-full', PGSSLROOTCERT: join(other, 'ca.crt') } }, TRICKY_NAME, 'SELECT 1')).toThrow(/certificate verify failed/);
    });

    it('logs in with the Secret\u2019s uri as rendered (sslmode=require), pointed at loopback', () => {
      const data = secretData(children, 'shop-app');
      expect(data).toMatchObject({ username: 'app', password: CREDENTIALS.appPassword, host: 'shop.test.svc', port: '5432', dbname: TRICKY_NAME });
      const uri = new URL(data.uri);
      expect([uri.protocol, uri.hostname, uri.port, decodeURIComponent(uri.pathname.slice(1)), uri.searchParams.get('sslmode')]).toEqual(['postgresql:', 'shop.test.svc', '5432', TRICKY_NAME, 'require']);
      uri.hostname = '127.0.0.1';
      uri.port = String(primary.port);
      expect(psqlUri(uri.toString(), 'SELECT current_user, current_database()')).toBe(`app|${TRICKY_NAME}`);
    });
  });

  it('with superuserAccess: true and tls: Disabled, the original\u2019s behaviour: the superuser logs in with its password, without TLS', async () => {
    const original = render({ ...spec, superuserAccess: true, tls: 'Disabled' }, CREDENTIALS);
    expect(original.filter((c) => c.kind === 'Secret').map((c) => c.metadata.name).sort()).toEqual(['shop-app', 'shop-credentials']);
    const server = await startPrimary('a primary as the original ran it', original);
    const plain = { user: 'postgres', password: CREDENTIALS.password!, ssl: { PGSSLMODE: 'disable' } };
    expect(psql(server.port, plain, 'postgres', 'SELECT current_user')).toBe('postgres');
    expect(() => psql(server.port, { ...plain, ssl: { PGSSLMODE: 'require' } }, 'postgres', 'SELECT 1')).toThrow(/server does not support SSL/);
    const init = job(original, 'Job', 'shop-init', server);
    await runScriptOk('init without TLS', init.script, init.env);
    expect(psql(server.port, { user: 'app', password: CREDENTIALS.appPassword!, ssl: { PGSSLMODE: 'disable' } }, TRICKY_NAME, 'SELECT current_user')).toBe('app');
    await server.stop();
  }, 120_000);

  describe('with data', () => {
    beforeAll(() => {
      psql(primary.port, superuser, TRICKY_NAME, 'CREATE TABLE orders (id int PRIMARY KEY, item text); INSERT INTO orders SELECT i, md5(i::text) FROM generate_series(1, 2500) i');
      psql(primary.port, superuser, 'postgres', "CREATE ROLE reporting LOGIN PASSWORD 'r3port'");
      psql(primary.port, superuser, 'postgres', 'CREATE DATABASE "name-of-database" OWNER reporting');
      psql(primary.port, superuser, 'name-of-database', 'CREATE TABLE visits (at timestamptz); INSERT INTO visits SELECT now() FROM generate_series(1, 42); GRANT SELECT ON visits TO reporting');
    });

    it('a standby set up by its own start-up script follows the primary over TLS', async () => {
      const dir = scratchDir('db-standby');
      dirs.push(dir);
      const port = await freePort();
      const { script, env } = program(children, 'StatefulSet', 'shop-standby', dirs);
      const overrides = { PGDATA: join(dir, 'data/pgdata'), PG_RUN_DIR: join(dir, 'run'), LISTEN_ADDRESSES: '127.0.0.1', PGPORT: String(port), PRIMARY_HOST: '127.0.0.1', PRIMARY_PORT: String(primary.port) };
      const standby = new ScriptServer('the standby', script, local(env, overrides), port, join(dir, 'server.log'));
      servers.push(standby);
      await standby.ready();
      expect(psql(standby.port, superuser, 'postgres', 'SELECT pg_is_in_recovery()')).toBe('t');
      psql(primary.port, superuser, TRICKY_NAME, "INSERT INTO orders VALUES (999999, 'written on the primary')");
      const deadline = Date.now() + 30_000;
      while (psql(standby.port, superuser, TRICKY_NAME, 'SELECT item FROM orders WHERE id = 999999') !== 'written on the primary') {
        if (Date.now() > deadline) throw new Error('the row written on the primary never reached the standby');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(() => psql(standby.port, superuser, TRICKY_NAME, "INSERT INTO orders VALUES (1000000, 'x')")).toThrow(/read-only transaction/);
      expect(psql(primary.port, superuser, 'postgres', 'SELECT r.usename, r.state, s.ssl FROM pg_stat_replication r JOIN pg_stat_ssl s USING (pid)')).toBe('replicator|streaming|t');
      // The owner role reads on the standby too.
      expect(psql(standby.port, app, TRICKY_NAME, 'SELECT count(*) FROM owned')).toBe('1');
      // A restart finds its data and goes on streaming, without a new base backup.
      await standby.stop();
      const again = new ScriptServer('the standby, restarted', script, local(env, overrides), port, join(dir, 'server.log'));
      servers.push(again);
      await again.ready();
      expect(psql(again.port, superuser, 'postgres', 'SELECT pg_is_in_recovery()')).toBe('t');
      // Promoted by a person (manual failover), it refuses to start as a standby again.
      psql(again.port, superuser, 'postgres', 'SELECT pg_promote()');
      await again.stop();
      const refused = await runScript(script, local(env, overrides));
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`the data directory ${overrides.PGDATA} was promoted to a primary (no standby.signal)`);
    }, 120_000);

    it(`a scheduled backup restores with pg_restore into a fresh server with every row, and ${RETENTION} dumps are kept`, async () => {
      const backup = job(children, 'CronJob', 'shop-backup', primary);
      expect(backup.env.RETENTION).toBe(String(RETENTION));
      for (let run = 0; run < RETENTION + 2; run++) {
        await runScriptOk(`backup run ${run + 1}`, backup.script, backup.env);
        // File names carry the time to the second.
        await new Promise((resolve) => setTimeout(resolve, 1100));
      }
      const dumps = readdirSync(join(backupDir, 'scheduled')).sort();
      expect(dumps).toHaveLength(RETENTION);
      for (const dump of dumps) expect(dump).toMatch(/^[0-9]{8}T[0-9]{6}Z-it_s__the__db_1_x[.]dump$/);

      // As docs/kinds/database.md restores: into the database of a Database (here a new one, its init Job done), replacing what is there.
      const newCredentials = { password: 'pw-other-Ab3Cd6Ef9Gh2Ij5Kl8Mn1Op4Qr', replicationPassword: 'rp-other-St7Uv0Wx3Yz6Ab9Cd2Ef5Gh8I', appPassword: 'ap-other-Qw1Er4Ty7Ui0Op3As6Df9Gh2J' };
      const newDatabase = render(spec, { ...newCredentials, tls: await newTls() });
      const fresh = await startPrimary('a fresh server for pg_restore', newDatabase);
      const init = job(newDatabase, 'Job', 'shop-init', fresh);
      await runScriptOk('init of the new Database', init.script, init.env);
      const newSuperuser = logins(newDatabase, newCredentials).superuser;
      psql(fresh.port, newSuperuser, TRICKY_NAME, "CREATE TABLE orders (id int); INSERT INTO orders VALUES (-1)");
      const restore = await runScript(`pg_restore --clean --if-exists --exit-on-error --dbname="$TARGET" "$DUMP"`, {
        ...loginEnv(fresh.port, newSuperuser),
        // A name with "=" in --dbname would be read as connection settings; this form takes any name.
        TARGET: `dbname='${TRICKY_NAME.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,
        DUMP: join(backupDir, 'scheduled', dumps[dumps.length - 1]),
      });
      expect(restore).toMatchObject({ code: 0, stderr: '' });
      expect(count(fresh.port, TRICKY_NAME, 'orders', newSuperuser)).toBe(2501);
      expect(psql(fresh.port, newSuperuser, TRICKY_NAME, 'SELECT count(*) FROM orders WHERE id = -1')).toBe('0');
    }, 120_000);

    it('the final snapshot restores with psql into a fresh server with every database, role and row', async () => {
      const snapshot = job(render(spec, { ...CREDENTIALS, tls: material, deleting: true }), 'Job', 'shop-snapshot', primary);
      await runScriptOk('the snapshot', snapshot.script, snapshot.env);
      const [file] = readdirSync(join(backupDir, 'snapshot'));
      expect(file).toMatch(/^[0-9]{8}T[0-9]{6}Z-final[.]sql[.]gz$/);

      // A new Database, with credentials of its own, its init Job done, as after a deletion.
      const newCredentials = { password: 'pw-new-Xy7Qw2Er5Ty8Ui1Op4As6Df9Gh3J', replicationPassword: 'rp-new-Lk3Jh6Gf9Ds2Aq5Wz8Xc1Vb4Nm7', appPassword: 'ap-new-Zx8Cv5Bn2Mm9Qa6Ws3Ed0Rf7Tg4Y' };
      const newDatabase = render(spec, { ...newCredentials, tls: await newTls() });
      const fresh = await startPrimary('a fresh server for the snapshot', newDatabase);
      const init = job(newDatabase, 'Job', 'shop-init', fresh);
      await runScriptOk('init of the new Database', init.script, init.env);
      const { superuser: newSuperuser, app: newApp } = logins(newDatabase, newCredentials);
      const restore = await runScript(RESTORE_SNAPSHOT, {
        ...loginEnv(fresh.port, newSuperuser),
        DUMP: join(backupDir, 'snapshot', file),
      });
      expect(restore.code).toBe(0);
      // The roles and the database the new Database made already; psql reports them and goes on.
      expect(restore.stderr.split('\n').filter((line) => line.includes('ERROR'))).toEqual([
        'ERROR:  role "app" already exists',
        'ERROR:  role "postgres" already exists',
        'ERROR:  role "replicator" already exists',
        `ERROR:  database "${TRICKY_NAME}" already exists`,
      ]);
      const databases = "SELECT string_agg(datname, ',' ORDER BY datname) FROM pg_database WHERE NOT datistemplate";
      expect(psql(fresh.port, newSuperuser, 'postgres', databases)).toBe(psql(primary.port, superuser, 'postgres', databases));
      const roles = "SELECT string_agg(rolname || ':' || rolreplication || rolcanlogin, ',' ORDER BY rolname) FROM pg_roles WHERE rolname !~ '^pg_'";
      expect(psql(fresh.port, newSuperuser, 'postgres', roles)).toBe(psql(primary.port, superuser, 'postgres', roles));
      expect(psql(fresh.port, newSuperuser, 'postgres', roles)).toBe('app:falsetrue,postgres:truetrue,replicator:truetrue,reporting:falsetrue');
      expect(count(fresh.port, TRICKY_NAME, 'orders', newSuperuser)).toBe(count(primary.port, TRICKY_NAME, 'orders'));
      expect(count(fresh.port, 'name-of-database', 'visits', newSuperuser)).toBe(42);
      // The new Database's own credentials still work, for its Jobs, its standbys and its clients.
      expect(psql(fresh.port, { user: 'replicator', password: newCredentials.replicationPassword, ssl: newApp.ssl }, 'postgres', 'SELECT current_user')).toBe('replicator');
      expect(psql(fresh.port, newApp, TRICKY_NAME, 'SELECT count(*) FROM owned')).toBe('1');
      // The roles' passwords came along.
      expect(psql(fresh.port, { user: 'reporting', password: 'r3port', ssl: newApp.ssl }, 'name-of-database', 'SELECT count(*) FROM visits')).toBe('42');
    }, 120_000);

    it('the upgrade Job dumps every database before the StatefulSet rolls', async () => {
      const upgrading = render({ ...spec, image: 'postgres:17.2' }, { ...CREDENTIALS, tls: material, currentImage: 'postgres:17.1' });
      const upgrade = job(upgrading, 'Job', 'shop-upgrade-17.2', primary);
      await runScriptOk('the upgrade dump', upgrade.script, upgrade.env);
      const [file] = readdirSync(join(backupDir, 'upgrade'));
      expect(file).toMatch(/^[0-9]{8}T[0-9]{6}Z-from-17[.]1-to-17[.]2[.]sql[.]gz$/);
    }, 60_000);
  });
});
