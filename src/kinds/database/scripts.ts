/**
 * The shell the Jobs run, with the image's own tools (psql, pg_dump, pg_dumpall, pg_isready)
 * and POSIX sh only, so it works on both the Debian and the Alpine images. Connection
 * settings come from the standard libpq variables (PGHOST, PGPORT, PGUSER, PGPASSWORD), the
 * credentials from the Secret by reference: no value is ever written into a script.
 */

/** Mount path of the backup volume in the Jobs. */
export const BACKUP_MOUNT = '/backup';

/** How long a Job waits for the server before it fails (and is retried by its backoff). */
const READY_TRIES = 60;
const READY_INTERVAL_SECONDS = 5;

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
 * Creates database $DATABASE_NAME unless it exists. psql quotes the name (`%I`), so any
 * identifier is safe, and `\gexec` runs the CREATE only when the SELECT returns it.
 */
export function initScript(): string {
  return script(`psql --no-psqlrc --set ON_ERROR_STOP=1 --set name="$DATABASE_NAME" --dbname=postgres <<'SQL'
SELECT format('CREATE DATABASE %I', :'name')
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'name')\\gexec
SQL
echo "database $DATABASE_NAME is ready"`);
}

/**
 * One pg_dump of $PGDATABASE (custom format, for pg_restore) into scheduled/, then the
 * oldest dumps beyond $RETENTION are deleted. A dump is written under a temporary name and
 * renamed when complete, so a failed run never counts as a backup nor pushes a good one out.
 */
export function backupScript(): string {
  const dir = `${BACKUP_MOUNT}/scheduled`;
  return script(`dir=${dir}
mkdir -p "$dir"
rm -f "$dir"/*.partial
file="$dir/${NOW}-$PGDATABASE.dump"
pg_dump --format=custom --file="$file.partial"
mv "$file.partial" "$file"
echo "backup written: $file"
ls -1 "$dir" | grep '[.]dump$' | sort -r | tail -n +$((RETENTION + 1)) | while read -r old; do
  rm -f "$dir/$old"
  echo "backup removed: $dir/$old"
done`);
}

/**
 * pg_dumpall of every database and role into `<subdirectory>/<timestamp>-$DUMP_LABEL.sql.gz`:
 * the whole instance as plain SQL that any later PostgreSQL can restore with psql.
 */
export function dumpAllScript(subdirectory: string): string {
  return script(`dir=${BACKUP_MOUNT}/${subdirectory}
mkdir -p "$dir"
file="$dir/${NOW}-$DUMP_LABEL.sql"
pg_dumpall --file="$file.partial"
gzip "$file.partial"
mv "$file.partial.gz" "$file.gz"
echo "dump written: $file.gz"`);
}
