// Runs kube-score over manifest files with the flags, ignores and exceptions of a
// kube-score.conf, prints every finding, and exits 1 when any CRITICAL or WARNING finding
// is not covered by an exception. Usage:
//   node kube-score.mjs <kube-score binary> <kube-score.conf> <file.yaml>...
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const [bin, configPath, ...files] = process.argv.slice(2);
if (!bin || !configPath || files.length === 0) {
  console.error('usage: kube-score.mjs <kube-score binary> <kube-score.conf> <file.yaml>...');
  process.exit(2);
}

// kube-score's grades (scorecard.Grade); ALMOST_OK counts as OK, as kube-score itself says.
const CRITICAL = 1;
const WARNING = 5;

function parseConfig(path) {
  const flags = [];
  const ignores = [];
  const exceptions = [];
  const problems = [];
  readFileSync(path, 'utf8').split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `${path}:${i + 1}`;
    const hash = line.search(/\s#/);
    const reason = hash < 0 ? '' : line.slice(hash).replace(/^\s*#\s*/, '').trim();
    const words = (hash < 0 ? line : line.slice(0, hash)).trim().split(/\s+/);
    if (reason === '') problems.push(`${where}: every line needs a one-line reason after '#'`);
    const [directive, ...rest] = words;
    if (directive === 'flag' && rest.length === 1) flags.push(rest[0]);
    else if (directive === 'ignore' && rest.length === 1) ignores.push({ check: rest[0], reason });
    else if (directive === 'except' && rest.length === 3) {
      const [check, kind, nameGlob] = rest;
      const name = new RegExp(`^${nameGlob.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
      exceptions.push({ check, kind, nameGlob, name, reason, used: false });
    } else problems.push(`${where}: expected 'flag <flag>', 'ignore <check-id>' or 'except <check-id> <Kind> <name-glob>'`);
  });
  if (problems.length > 0) {
    problems.forEach((p) => console.error(p));
    process.exit(2);
  }
  return { flags, ignores, exceptions };
}

const config = parseConfig(configPath);
const args = ['score', '--output-format=json', '--output-version=v2', ...config.flags];
for (const { check } of config.ignores) args.push(`--ignore-test=${check}`);
const run = spawnSync(bin, [...args, ...files], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
let scored;
try {
  if (run.error) throw run.error;
  scored = JSON.parse(run.stdout) ?? [];
} catch (err) {
  console.error(`kube-score failed (exit ${run.status}): ${run.stderr || err}`);
  process.exit(2);
}

const version = spawnSync(bin, ['version'], { encoding: 'utf8' }).stdout.trim();
console.log(`${version}; ${files.length} file(s), ${scored.length} object(s)`);
for (const { check, reason } of config.ignores) console.log(`  ignored everywhere: ${check} (${reason})`);

let failures = 0;
let accepted = 0;
const sortKey = (o) => `${o.type_meta.kind}/${o.object_meta.namespace ?? ''}/${o.object_meta.name}`;
for (const object of [...scored].sort((a, b) => sortKey(a).localeCompare(sortKey(b)))) {
  const kind = object.type_meta.kind;
  const name = object.object_meta.name;
  const ref = `${kind} ${object.object_meta.namespace ? `${object.object_meta.namespace}/` : ''}${name}`;
  const file = object.file_name ? `${relative(process.cwd(), object.file_name)}:${object.file_row}` : '';
  // An object found in two files (dist/ and the Helm chart's templates) is scored twice under one name.
  const seen = new Set();
  for (const score of [...(object.checks ?? [])].sort((a, b) => a.check.id.localeCompare(b.check.id))) {
    if (score.skipped || (score.grade !== CRITICAL && score.grade !== WARNING)) continue;
    const id = score.check.id;
    if (seen.has(id)) continue;
    seen.add(id);
    const grade = score.grade === CRITICAL ? 'CRITICAL' : 'WARNING';
    const exception = config.exceptions.find((e) => e.check === id && e.kind === kind && e.name.test(name));
    const comments = (score.comments ?? []).map((c) => `${c.path ? `(${c.path}) ` : ''}${c.summary}`);
    if (exception) {
      exception.used = true;
      accepted += 1;
      console.log(`  accepted  ${ref} ${id}: ${exception.reason}`);
    } else {
      failures += 1;
      console.log(`  ${grade.padEnd(8)}  ${ref} ${id}${file ? ` [${file}]` : ''}`);
      for (const c of comments.length > 0 ? comments : [score.check.name]) console.log(`              ${c}`);
    }
  }
}
for (const e of config.exceptions.filter((x) => !x.used)) {
  console.log(`  (exception not needed by these manifests: ${e.check} ${e.kind} ${e.nameGlob})`);
}
console.log(`kube-score: ${failures} finding(s), ${accepted} accepted by an exception in ${relative(process.cwd(), configPath)}`);
process.exit(failures > 0 ? 1 : 0);
