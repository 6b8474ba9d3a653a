import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Violation } from './checker';
import { FaultRecord } from './faults';
import { format, HistoryEntry } from './history';
import { Invariant, INVARIANTS } from './invariants';

export interface SoakReport {
  readonly seed: number;
  readonly commit: string;
  readonly started: string;
  readonly durationSeconds: number;
  readonly failStage: boolean;
  readonly faults: Record<string, { injected: number; skipped: number }>;
  readonly faultLog: FaultRecord[];
  readonly churned: Record<string, { created: number; edited: number; deleted: number; foreground: number }>;
  readonly writes: { accepted: number; byReplica: Record<string, number>; maxPerObjectMinute: number; proxyAnswers: Record<string, number> };
  readonly leaderTerms: number;
  /** Replicas that exited on their own (losing the Lease) and were started again, as the kubelet would. */
  readonly replicaRestarts: number;
  /** Control-plane processes that exited on their own (no fault stopped them) and were started again, by name. */
  readonly controlPlaneRestarts: Record<string, number>;
  readonly convergence: { boundSeconds: number; allSeconds?: number; slowest?: { object: string; seconds: number } };
  readonly invariants: Record<Invariant, { statement: string; violations: number }>;
  readonly violations: (Violation & { history: HistoryEntry[] })[];
  readonly passed: boolean;
  /** A failed run keeps its folder: the replicas' and the control plane's logs, for the story behind a violation. */
  readonly keptFolder?: string;
}

/** The commit the soak ran, and whether the checkout had changes beside it. */
export function gitCommit(cwd: string): string {
  try {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd, encoding: 'utf8' }).trim();
    return dirty ? `${head} (with uncommitted changes)` : head;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

export function invariantCounts(violations: readonly Violation[]): SoakReport['invariants'] {
  const entries = (Object.keys(INVARIANTS) as Invariant[]).map((name) => [name, { statement: INVARIANTS[name], violations: violations.filter((v) => v.invariant === name).length }]);
  return Object.fromEntries(entries) as SoakReport['invariants'];
}

export function renderReport(report: SoakReport): string {
  const lines = [
    `soak ${report.passed ? 'PASSED' : 'FAILED'}: seed ${report.seed}, ${Math.round(report.durationSeconds / 60)} min of chaos from ${report.started}, commit ${report.commit}`,
    `kwok stage failing pods by label: ${report.failStage ? 'present' : 'ABSENT (the Database pod and Job faults were skipped)'}`,
    ...(report.keptFolder ? [`the run's folder (replicas' and control plane's logs) is kept in ${report.keptFolder}`] : []),
    '',
    'faults injected (skipped):',
    ...Object.entries(report.faults).map(([type, n]) => `  ${type.padEnd(20)} ${String(n.injected).padStart(4)}${n.skipped ? ` (${n.skipped} skipped)` : ''}`),
    '',
    'objects churned (created / edited / deleted, of which in the foreground):',
    ...Object.entries(report.churned).map(([kind, n]) => `  ${kind.padEnd(22)} ${n.created} / ${n.edited} / ${n.deleted}, ${n.foreground}`),
    '',
    `writes accepted through the proxy: ${report.writes.accepted} (${Object.entries(report.writes.byReplica).map(([r, n]) => `${r} ${n}`).join(', ')}); most to one object in a minute: ${report.writes.maxPerObjectMinute}`,
    `answers the proxy made up: ${Object.entries(report.writes.proxyAnswers).map(([code, n]) => `${code} x${n}`).join(', ') || 'none'}; leader terms: ${report.leaderTerms}; replicas that exited on their own and were restarted: ${report.replicaRestarts}`,
    `control-plane processes that exited on their own and were started again: ${Object.entries(report.controlPlaneRestarts).map(([name, n]) => `${name} x${n}`).join(', ') || 'none'}`,
    `convergence after the faults stopped: ${report.convergence.allSeconds === undefined ? `NOT within ${report.convergence.boundSeconds} s` : `${report.convergence.allSeconds} s for all (bound ${report.convergence.boundSeconds} s)`}${report.convergence.slowest ? `; slowest ${report.convergence.slowest.object} ${report.convergence.slowest.seconds} s` : ''}`,
    '',
    'invariants (violations):',
    ...Object.entries(report.invariants).map(([name, i]) => `  ${String(i.violations).padStart(4)}  ${name}: ${i.statement}`),
  ];
  for (const v of report.violations) {
    lines.push('', `VIOLATION ${v.invariant} at ${v.at} s: ${v.what}`, `  replay: npm run soak -- --seed ${report.seed} --duration ${Math.round(report.durationSeconds)}s`, '  what led to it:', ...v.history.map((e) => `  ${format(e)}`));
  }
  return lines.join('\n');
}

/**
 * Writes the report as text and JSON into `dir`, named by its date, seed and length (`-2`,
 * `-3` after it when a run of the same day had that name: a report is never written over);
 * returns the text file.
 */
export function writeReport(dir: string, report: SoakReport): string {
  const day = report.started.slice(0, 10);
  const folder = join(dir, day);
  mkdirSync(folder, { recursive: true });
  const name = `soak-seed${report.seed}-${Math.round(report.durationSeconds / 60)}min`;
  let base = join(folder, name);
  for (let n = 2; existsSync(`${base}.json`) || existsSync(`${base}.txt`); n++) base = join(folder, `${name}-${n}`);
  writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(`${base}.txt`, `${renderReport(report)}\n`);
  return `${base}.txt`;
}
