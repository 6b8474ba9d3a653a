/**
 * `npm run bench`: the ExchangeRate figures (its options apply), then the CopyratorRule, the
 * Database and the conversion webhook's figures with their defaults, then, when the Go
 * controller-runtime peer is there, both controllers side by side against one control plane
 * (../shared/bench/side-by-side, or BENCH_PEER).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EXCHANGE_RATE_OPTIONS, main as exchangeRates } from './exchangerate';
import { main as copyrator } from './copyrator';
import { main as databases } from './database';
import { main as conversion } from './conversion';
import { benchOptions } from './support';

const ROOT = resolve(__dirname, '..', '..');
const PEER = process.env.BENCH_PEER ?? join(ROOT, '..', 'shared', 'bench', 'side-by-side');

function sideBySide(objects: number): number {
  if (process.env.BENCH_PEER === 'off' || !existsSync(PEER)) {
    console.log(`\nNo Go peer at ${PEER} (set BENCH_PEER to its side-by-side script): side-by-side figures skipped.`);
    return 0;
  }
  const args = ['--objects', String(objects), '--rounds', '3'];
  console.log(`\nSide by side with the Go controller-runtime peer: ${PEER} ${args.join(' ')}`);
  return spawnSync('bash', [PEER, ...args], { cwd: ROOT, stdio: 'inherit' }).status ?? 1;
}

void (async () => {
  const argv = process.argv.slice(2);
  // Parsed once here too: --help or a bad flag must not go on to the other benchmarks.
  const values = benchOptions('bench', EXCHANGE_RATE_OPTIONS, argv);
  if (typeof values === 'number') process.exit(values);
  const code = (await exchangeRates(argv)) || (await copyrator([])) || (await databases([])) || (await conversion([]));
  process.exit(code || sideBySide(values.objects as number));
})();
