import { Command, InvalidArgumentError, Option } from 'commander';
import { join } from 'node:path';
import { parseDuration } from '../../src/core/kit/duration';
import { repoRoot } from '../../src/testing/controlplane/controlplane';
import { renderReport, writeReport } from './report';
import { runSoak } from './run';

/** `npm run soak -- --duration 1h --seed 7`: see docs/soak.md. */
const program = new Command('soak')
  .description('Chaos soak: every kind churned while faults are injected at random, invariants checked all the time; exits 1 on any violation.')
  .addOption(new Option('--duration <duration>', 'how long the churn and the faults last, e.g. 5m or 1h').argParser(parseOption('--duration', (v) => parseDuration(v), 'a duration such as 90s, 5m or 1h')).default(3_600_000, '1h'))
  .option('--seed <integer>', 'the seed of the workload and the faults: the same seed replays the same run', parseOption('--seed', (v) => (/^\d+$/.test(v) ? Number(v) : Number.NaN), 'a whole number from 1, such as 7'), 7)
  .option('--results <dir>', 'where the report goes (a folder per day)', join(repoRoot(), 'bench', 'results'))
  .option('--quiet', 'print only the report, not each event as it happens', false);

function parseOption(flag: string, parse: (v: string) => number, expected: string): (value: string) => number {
  return (value) => {
    const parsed = (() => {
      try {
        return parse(value);
      } catch {
        return Number.NaN;
      }
    })();
    if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError(`${flag}: expected ${expected}, got "${value}"`);
    return parsed;
  };
}

async function main(): Promise<void> {
  program.parse();
  const options = program.opts<{ duration: number; seed: number; results: string; quiet: boolean }>();
  const report = await runSoak({ durationMs: options.duration, seed: options.seed, echo: options.quiet ? undefined : (line) => console.log(line) });
  console.log(`\n${renderReport(report)}`);
  console.log(`\nreport written to ${writeReport(options.results, report)}`);
  process.exitCode = report.passed ? 0 : 1;
}

main().catch((err: Error) => {
  console.error(`soak: ${err.stack ?? err.message}`);
  process.exit(2);
});
