// Longest test files first, so that the workers end together rather than one running the
// soak alone at the end. Jest does this by itself from its cache of the last run's times; a new
// machine (CI) has none, and Jest falls back to file size, which put the 7-minute soak last.
// test/durations.json holds each slow file's seconds from a whole run (docs/development.md says
// how to refresh it); Jest's own cache, where there is one, still wins.
const Sequencer = require('@jest/test-sequencer').default;
const { relative } = require('node:path');
const durations = require('./durations.json');

module.exports = class LongestFirst extends Sequencer {
  time(test) {
    return super.time(test) ?? (durations.seconds[relative(test.context.config.rootDir, test.path)] ?? durations.defaultSeconds) * 1000;
  }
};
