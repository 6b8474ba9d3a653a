// Longest test files first, so that no worker is left running a long one alone at the end.
// Jest does so itself from the timings it caches after a run; a fresh clone has none, and Jest
// then orders by file size, which put the 7-minute soak (a small file) last, alone: 5 minutes
// of a 28-minute CI run. durations.json holds the seconds of the files that took 20 s or more
// in a CI run (2026-11-26, 1,191 tests); a file missing there counts as short.
const Sequencer = require('@jest/test-sequencer').default;
const { relative } = require('node:path');
const ESTIMATED_SECONDS = require('./durations.json');

class LongestFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const expectedMs = (test) => this.time(test) ?? (ESTIMATED_SECONDS[relative(test.context.config.rootDir, test.path)] ?? 0) * 1000;
    // A stable sort: failed files keep coming first, equals keep Jest's order.
    return [...sorted].sort((a, b) => Number(this.hasFailed(b)) - Number(this.hasFailed(a)) || expectedMs(b) - expectedMs(a));
  }
}

module.exports = LongestFirst;
