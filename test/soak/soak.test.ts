import { renderReport } from '../../bench/soak/report';
import { runSoak } from '../../bench/soak/run';

// The chaos soak (bench/soak/, docs/soak.md) for 5 minutes with a fixed seed, on a control
// plane of its own: it restarts etcd and the API server, which must not disturb other test files.
const FIVE_MINUTES = 5 * 60_000;

it('keeps every invariant through 5 minutes of churn and faults (seed 7), and converges after them', async () => {
  const report = await runSoak({ durationMs: FIVE_MINUTES, seed: 7 });
  // On failure the message is the whole report: the seed, every violation and the events that led to it.
  expect(report.passed ? 'passed' : renderReport(report)).toBe('passed');
  expect(Object.values(report.faults).reduce((n, f) => n + f.injected, 0)).toBeGreaterThan(5);
  expect(Object.keys(report.churned)).toEqual(expect.arrayContaining(['ExchangeRate', 'CopyratorRule', 'Guitar', 'RegistryMirror', 'Database']));
  // Foreground deletions happen (the garbage collector takes every owned child at once), and still nothing is lost.
  expect(Object.values(report.churned).reduce((n, c) => n + c.foreground, 0)).toBeGreaterThan(0);
}, 20 * 60_000);
