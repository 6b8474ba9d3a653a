/**
 * The shell the server and the Jobs run, with the image's own programs and POSIX sh only, so
 * it works on the Debian and the Alpine images alike (and on Debian's own `postgresql`
 * package, which the tests run them on). Every path and connection setting comes from an
 * environment variable the construct sets (PGDATA, PG_RUN_DIR, BACKUP_DIR, PGHOST, PGPORT,
 * ...), the credentials from the Secret by reference: no value is ever written into a script.
 */

/** Mount path of the backup volume in the Jobs; BACKUP_DIR says it to the scripts. */
export const BACKUP_MOUNT = '/backup';

/** How long a Job waits for the server before it fails (and is retried by its backoff). */
const READY_TRIES = 60;
const READY_INTERVAL_SECONDS = 5;

/** WAL the primary keeps for standbys that fall behind (no replication slots: a lost standby must not fill the disk). */
const WAL_KEEP_SIZE = '512MB';

const WAIT_FOR_SERVER = `tries=0
until pg_isready --quiet; do
  tries=$((tries + 1))
  if [ "$tries" -ge ${READY_TRIES} ]; then
    echo "PostgreSQL at $PGHOST:$PGPORT is not ready after ${(READY_TRIES * READY_INTERVAL_SECONDS) / 60} minutes" >&2
    exit 1
  fi
  sleep ${READY_INTERVAL_SECONDS}
done`;

/** A UTC timestamp that sorts like time, for file names. */
const NOW = '$(date -u +%Y%m%dT%H%M%SZ)';

function script(...steps: string[]): string {
  return ['set -eu', WAIT_FOR_SERVER, ...steps].join('\n');
}

/**
 * Creates database $DATABASE_NAME unless it exists, the replication role $REPLICATION_USER
 * (LOGIN REPLICATION, password $REPLICATION_PASSWORD) unless it exists, and the owner role
 * $APP_USER: LOGIN with password $APP_PASSWORD and no other attribute (no superuser, so no
 * `COPY ... FROM PROGRAM`), set again at every run, so a run after the Secret `<name>-app`
 * was made anew gives the role its new password. The database goes to the owner role while
 * the superuser owns it (a Database made by an earlier release); another owner a person chose stays.
 * psql quotes the names (`%I`) and the passwords (`%L`), so any text is safe; `\gexec` runs
 * each statement only when its SELECT returns it. The passwords reach psql through its own
 * backquote expansion of the environment, never on a command line.
 */
export function initScript(): string {
  return script(`psql --no-psqlrc --set ON_ERROR_STOP=1 --set name="$DATABASE_NAME" --set replication_user="$REPLICATION_USER" --set app_user="$APP_USER" --dbname=postgres <<'SQL'
\\set replication_password \`printf '%s' "$REPLICATION_PASSWORD"\`
\\set app_password \`printf '%s' "$APP_PASSWORD"\`
SELECT format('CREATE DATABASE %I', :'name')
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'name')\\gexec
SELECT format('CREATE ROLE %I WITH LOGIN REPLICATION PASSWORD %L', :'replication_user', :'replication_password')
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'replication_user')\\gexec
SELECT format('CREATE ROLE %I', :'app_user')
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'app_user')\\gexec
SELECT format('ALTER ROLE %I WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD %L', :'app_user', :'app_password')\\gexec
SELECT format('ALTER DATABASE %I OWNER TO %I', :'name', :'app_user')
FROM pg_database d JOIN pg_roles r ON r.oid = d.datdba
WHERE d.datname = :'name' AND r.rolsuper\\gexec
SQL
echo "database $DATABASE_NAME is ready"`);
}

/** A file name for a database: its name may hold any character, a file name only some. */
const SAFE_DATABASE_LABEL = `$(printf '%s' "$PGDATABASE" | tr -c 'A-Za-z0-9_.-' '_')`;

/**
 * One pg_dump of $PGDATABASE (custom format, for pg_restore) into $BACKUP_DIR/scheduled/,
 * then the oldest dumps beyond $RETENTION are deleted. A dump is written under a temporary
 * name and renamed when complete, so a failed run never counts as a backup nor pushes a good
 * one out.
 */
export function backupScript(): string {
  return script(`dir="$BACKUP_DIR/scheduled"
mkdir -p "$dir"
rm -f "$dir"/*.partial
file="$dir/${NOW}-${SAFE_DATABASE_LABEL}.dump"
pg_dump --format=custom --file="$file.partial"
mv "$file.partial" "$file"
echo "backup written: $file"
ls -1 "$dir" | grep '[.]dump$' | sort -r | tail -n +$((RETENTION + 1)) | while read -r old; do
  rm -f "$dir/$old"
  echo "backup removed: $dir/$old"
done`);
}

/**
 * pg_dumpall of every database and role into `$BACKUP_DIR/<subdirectory>/<timestamp>-$DUMP_LABEL.sql.gz`:
 * the whole instance as plain SQL that any later PostgreSQL can restore with psql.
 */
export function dumpAllScript(subdirectory: string): string {
  return script(`dir="$BACKUP_DIR/${subdirectory}"
mkdir -p "$dir"
file="$dir/${NOW}-$DUMP_LABEL.sql"
pg_dumpall --file="$file.partial"
gzip "$file.partial"
mv "$file.partial.gz" "$file.gz"
echo "dump written: $file.gz"`);
}

/**
 * The start-up settings both roles share: where the socket and our pg_hba.conf are, who may
 * connect, and TLS. The construct says how: $HBA_CONNECTION is `hostssl` (TLS only: no `host`
 * line, so a connection without TLS matches no rule and is refused) or `host`;
 * $SUPERUSER_AUTH is `cert` (only with a client certificate of the Database's CA, which the
 * Jobs have) or `scram-sha-256`; with $TLS_DIR (the Secret `<name>-tls` mounted) the server
 * serves its certificate and checks client certificates against its CA. "$@" carries the
 * TLS settings to START_SERVER.
 */
const SERVER_COMMON = `set -eu
umask 077
mkdir -p "$PG_RUN_DIR" "$(dirname "$PGDATA")"
# Written at every start, so the rules are always these: passwords for everyone but the
# superuser, and replication connections only for the replication role.
hba="$PG_RUN_DIR/pg_hba.conf"
cat > "$hba" <<EOF
local all all scram-sha-256
$HBA_CONNECTION replication "$REPLICATION_USER" all scram-sha-256
$HBA_CONNECTION all "$POSTGRES_USER" all $SUPERUSER_AUTH
$HBA_CONNECTION all all all scram-sha-256
EOF
set --
if [ -n "\${TLS_DIR:-}" ]; then
  set -- -c ssl=on -c ssl_cert_file="$TLS_DIR/tls.crt" -c ssl_key_file="$TLS_DIR/tls.key" -c ssl_ca_file="$TLS_DIR/ca.crt"
fi`;

const START_SERVER = `exec postgres -D "$PGDATA" -c hba_file="$hba" -c listen_addresses="$LISTEN_ADDRESSES" -c port="$PGPORT" -c unix_socket_directories="$PG_RUN_DIR" -c wal_keep_size=${WAL_KEEP_SIZE} "$@"`;

/**
 * The primary's own start-up: initdb with the superuser $POSTGRES_USER / $POSTGRES_PASSWORD
 * on an empty volume (the password through a file of mode 0600 that is removed right after),
 * then PostgreSQL in the foreground. Streaming replication needs nothing more: wal_level
 * replica and max_wal_senders are PostgreSQL's defaults.
 */
export function primaryStartScript(): string {
  return `${SERVER_COMMON}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile="$PG_RUN_DIR/initdb.pw"
  printf '%s\\n' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb --pgdata="$PGDATA" --username="$POSTGRES_USER" --pwfile="$pwfile" --auth=scram-sha-256 --encoding=UTF8
  rm -f "$pwfile"
fi
${START_SERVER}`;
}

/**
 * A hot standby's own start-up: on an empty volume, a pg_basebackup of the primary
 * ($PRIMARY_HOST:$PRIMARY_PORT) into a temporary directory, renamed when complete, and standby.signal;
 * then PostgreSQL streams from the primary with primary_conninfo. The replication password
 * is in a passfile of mode 0600 in the run directory, written at every start, so it is never
 * on a command line nor in the data directory. A standby whose data directory has no
 * standby.signal was promoted by a person (manual failover): it stops with the reason rather
 * than guess which copy is the right one.
 */
export function standbyStartScript(): string {
  return `${SERVER_COMMON}
passfile="$PG_RUN_DIR/replication.pgpass"
escape() { printf '%s' "$1" | sed -e 's/[\\\\:]/\\\\&/g'; }
printf '*:*:*:%s:%s\\n' "$(escape "$REPLICATION_USER")" "$(escape "$REPLICATION_PASSWORD")" > "$passfile"
# With TLS, the primary must show a certificate of the Database's CA for its Service's name.
ssl="sslmode=prefer"
if [ -n "\${TLS_DIR:-}" ]; then ssl="sslmode=verify-full sslrootcert=$TLS_DIR/ca.crt"; fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  clone="$PGDATA.clone"
  until rm -rf "$clone" && PGPASSFILE="$passfile" pg_basebackup --dbname="$ssl" --pgdata="$clone" --host="$PRIMARY_HOST" --port="$PRIMARY_PORT" --username="$REPLICATION_USER" --no-password --wal-method=stream --checkpoint=fast; do
    echo "waiting for the primary $PRIMARY_HOST:$PRIMARY_PORT to take a base backup from" >&2
    sleep 5
  done
  touch "$clone/standby.signal"
  mv "$clone" "$PGDATA"
elif [ ! -e "$PGDATA/standby.signal" ]; then
  echo "the data directory $PGDATA was promoted to a primary (no standby.signal); to make this server a standby of $PRIMARY_HOST again, move that directory aside (its writes are not on the primary) and restart the pod" >&2
  exit 1
fi
${START_SERVER} -c primary_conninfo="host=$PRIMARY_HOST port=$PRIMARY_PORT user=$REPLICATION_USER passfile=$passfile $ssl application_name=\${HOSTNAME:-standby}" -c hot_standby=on`;
}
