// Writes test/durations.json (the seconds test/sequencer.js orders by) from a Jest JSON report:
// npm test -- --json --outputFile=/tmp/run.json && node scripts/test-durations.mjs /tmp/run.json
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const report = JSON.parse(readFileSync(process.argv[2] ?? '/dev/stdin', 'utf8'));
const target = join(root, 'test', 'durations.json');
const before = JSON.parse(readFileSync(target, 'utf8'));
const seconds = Object.fromEntries(
  report.testResults
    .map((r) => [relative(root, r.name), Math.round((r.endTime - r.startTime) / 1000)])
    .filter(([, s]) => s >= 5)
    .sort((a, b) => b[1] - a[1]),
);
writeFileSync(target, `${JSON.stringify({ ...before, seconds }, null, 2)}\n`);
console.log(`test/durations.json: ${Object.keys(seconds).length} files of 5 s or more`);
