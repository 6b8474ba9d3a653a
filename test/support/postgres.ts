import { ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Real PostgreSQL servers on 127.0.0.1 for tests that run the Database's own scripts: the
 * programs of Debian's `postgresql` package (.ci/run installs it), started by those scripts
 * in temp directories. PostgreSQL refuses to run as root, so as root every program runs as
 * the package's `postgres` system user (spawn's uid/gid), which owns the temp directories,
 * and in one of them: not in the checkout, which that user may not enter (a home directory of
 * mode 0700), as no pod's program starts there either.
 */

/** The newest /usr/lib/postgresql/<major>/bin, or $PG_BIN. */
export function postgresBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((v) => /^[0-9]+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  const bin = majors.map((m) => join(root, m, 'bin')).find((dir) => existsSync(join(dir, 'postgres')));
  if (!bin) throw new Error(`no PostgreSQL server programs under ${root}: install Debian's postgresql package (apt-get install -y postgresql), or set PG_BIN`);
  return bin;
}

/** The uid and gid to run PostgreSQL as: the `postgres` user when we are root, else ourselves. */
function runAs(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** A fresh temp directory the PostgreSQL user owns; remove it with rmSync when done. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const { uid, gid } = runAs();
  if (uid !== undefined && gid !== undefined) chownSync(dir, uid, gid);
  return dir;
}

/**
 * Writes a Secret volume's files as the kubelet does with `defaultMode: mode` and fsGroup the
 * PostgreSQL user's: owned by root, group the PostgreSQL user's. Not as root, our own (0600).
 */
export function writeSecretVolume(dir: string, files: Record<string, string>, mode: number): void {
  const { uid, gid } = runAs();
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    writeFileSync(path, content);
    if (uid !== undefined && gid !== undefined) {
      chownSync(path, 0, gid);
      chmodSync(path, mode);
    } else chmodSync(path, 0o600);
  }
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

let workingDir: string | undefined;

/** Where the PostgreSQL user's programs run: a temp directory of its own, made once and removed when this process exits. */
function postgresWorkingDir(): string {
  if (!workingDir) {
    const dir = scratchDir('postgres-cwd');
    process.once('exit', () => removeDir(dir));
    workingDir = dir;
  }
  return workingDir;
}

/** How to spawn a program as the PostgreSQL user: its uid and gid, a working directory it can enter, exactly `env` (and PATH). */
function asPostgres(env: Record<string, string>): { uid?: number; gid?: number; cwd: string; env: Record<string, string> } {
  return { ...runAs(), cwd: postgresWorkingDir(), env: scriptEnv(env) };
}

/** Only these variables, plus the PostgreSQL programs on PATH: what a pod's container would have. */
function scriptEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: `${postgresBin()}:/usr/local/bin:/usr/bin:/bin`, LANG: 'C.UTF-8', ...env };
}

export interface ScriptResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `sh -c script` with exactly `env` (and PATH) as the PostgreSQL user, to the end. */
export function runScript(script: string, env: Record<string, string>, timeoutMs = 120_000): Promise<ScriptResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script], { ...asPostgres(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Like runScript, but fails with the script's output unless it exits 0. */
export async function runScriptOk(what: string, script: string, env: Record<string, string>): Promise<ScriptResult> {
  const result = await runScript(script, env);
  if (result.code !== 0) throw new Error(`${what} exited with ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** A PostgreSQL server a start-up script runs in the foreground, with its output in a log file. */
export class ScriptServer {
  private readonly child: ChildProcess;
  private exited = false;

  constructor(
    readonly what: string,
    script: string,
    env: Record<string, string>,
    readonly port: number,
    readonly logFile: string,
  ) {
    const log = openSync(logFile, 'a');
    this.child = spawn('sh', ['-c', script], { ...asPostgres(env), stdio: ['ignore', log, log] });
    this.child.on('exit', () => (this.exited = true));
  }

  /** Waits until the server accepts connections on 127.0.0.1:port; fails with its log if it stops or takes too long. */
  async ready(timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const probe = spawnSync(join(postgresBin(), 'pg_isready'), ['--quiet', '--host=127.0.0.1', `--port=${this.port}`]);
      if (probe.status === 0) return;
      if (this.exited || Date.now() > deadline) {
        throw new Error(`${this.what} is not ready on 127.0.0.1:${this.port}${this.exited ? ' (it stopped)' : ''}; its log:\n${readFileSync(this.logFile, 'utf8')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** Fast shutdown (SIGINT), as a pod's termination would ask for; waits for it. */
  async stop(): Promise<void> {
    if (this.exited) return;
    const done = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGINT');
    await done;
  }
}

/** A login: a role, its password, and libpq's TLS variables (PGSSLMODE, PGSSLROOTCERT, PGSSLCERT, PGSSLKEY) if any. */
export interface Login {
  readonly user: string;
  readonly password: string;
  readonly ssl?: Record<string, string>;
}

/** Runs SQL with psql over TCP as `user`, returning unaligned, tuples-only output. */
export function psql(port: number, credentials: Login, database: string, sql: string): string {
  const result = spawnSync(
    join(postgresBin(), 'psql'),
    ['--no-psqlrc', '--quiet', '--tuples-only', '--no-align', '--set', 'ON_ERROR_STOP=1', '--host=127.0.0.1', `--port=${port}`, `--username=${credentials.user}`, '--dbname', `dbname='${database.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`, '--command', sql],
    { env: { ...process.env, PGPASSWORD: credentials.password, ...credentials.ssl }, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`psql on port ${port}, database ${database}: ${result.stderr}`);
  return result.stdout.trim();
}

/** Runs SQL with psql given a connection URI (`postgresql://...`), as a client reading one from a Secret would; unaligned, tuples-only. */
export function psqlUri(uri: string, sql: string): string {
  const result = spawnSync(join(postgresBin(), 'psql'), ['--no-psqlrc', '--quiet', '--tuples-only', '--no-align', '--set', 'ON_ERROR_STOP=1', '--command', sql, uri], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`psql with a URI: ${result.stderr}`);
  return result.stdout.trim();
}
