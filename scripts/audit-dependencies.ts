import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `npm run audit:dependencies [-- --require]`: the production dependencies (what the controller
 * image ships: `npm ci --omit=dev`) checked against the registry's security advisories by npm's
 * own audit, which reads the lockfile and asks the registry's advisory service.
 *
 * Exit 0: no advisory matches. Exit 1: a known vulnerability, each listed with its package,
 * severity, vulnerable range and advisory. Exit 2: not checked, because the advisory service
 * gave no answer (a registry mirror without it, no network); with --require that is a failure
 * too, as a release pipeline wants. The severity threshold is npm's --audit-level (default low).
 */

/** What `npm audit --json` prints: a report, or npm's error when the service did not answer. */
interface AuditOutput {
  readonly vulnerabilities?: Record<string, { name: string; severity: string; isDirect: boolean; via: (string | { title: string; url: string; severity: string; range: string })[] }>;
  readonly statusCode?: number;
  readonly message?: string;
  readonly error?: unknown;
}

export type AuditVerdict = { readonly outcome: 'clean' } | { readonly outcome: 'vulnerable'; readonly findings: string[] } | { readonly outcome: 'unchecked'; readonly why: string };

/** What npm's JSON says: which packages have which advisories, or why nothing could be checked. */
export function auditVerdict(stdout: string): AuditVerdict {
  let output: AuditOutput;
  try {
    output = JSON.parse(stdout) as AuditOutput;
  } catch {
    return { outcome: 'unchecked', why: `npm audit printed no report (${stdout.trim().slice(0, 80) || 'nothing'})` };
  }
  if (output.vulnerabilities === undefined) {
    // The message names the service's URL; the status says enough.
    return { outcome: 'unchecked', why: `the advisory service answered ${output.statusCode ?? 'nothing'}` };
  }
  const findings = Object.values(output.vulnerabilities).flatMap((v) =>
    v.via.map((via) => (typeof via === 'string' ? `${v.name} (${v.severity}): through ${via}` : `${v.name} ${via.range} (${via.severity}): ${via.title}, ${via.url}`)),
  );
  return findings.length ? { outcome: 'vulnerable', findings } : { outcome: 'clean' };
}

function main(args: readonly string[]): number {
  const required = args.includes('--require');
  const npmArgs = args.filter((a) => a !== '--require');
  // A cache of its own: advisories change daily, and npm would otherwise answer from an earlier run's.
  const cache = mkdtempSync(join(tmpdir(), 'audit-cache-'));
  const run = spawnSync('npm', ['audit', '--omit=dev', '--json', '--cache', cache, ...npmArgs], { cwd: join(__dirname, '..', '..'), encoding: 'utf8', timeout: 120_000 });
  rmSync(cache, { recursive: true, force: true });
  const verdict = auditVerdict(run.stdout ?? '');
  switch (verdict.outcome) {
    case 'clean':
      console.log('audit: no known vulnerability in the production dependencies');
      return 0;
    case 'vulnerable':
      console.error(`audit: known vulnerabilities in the production dependencies:\n${verdict.findings.map((f) => `  ${f}`).join('\n')}`);
      return 1;
    case 'unchecked':
      console.error(`audit: the production dependencies were NOT checked: ${verdict.why}${required ? '' : ' (--require makes this a failure)'}`);
      return required ? 1 : 2;
  }
}

if (require.main === module) process.exit(main(process.argv.slice(2)));
