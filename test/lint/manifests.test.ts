import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// The manifest linter as `npm run lint:manifests` runs it, and its own fixtures.
const root = join(__dirname, '..', '..');
const checkManifests = (...args: string[]) => spawnSync('bash', [join(root, 'test', 'lint', 'check-manifests.sh'), ...args], { cwd: root, encoding: 'utf8' });

describe('the manifest linter (test/lint/check-manifests.sh)', () => {
  it('passes dist/ and the children of every kind\u2019s example (npm run lint:manifests)', () => {
    const run = checkManifests('--examples', 'dist');
    expect({ status: run.status, output: run.stdout + run.stderr }).toEqual({ status: 0, output: expect.stringContaining('kube-score: 0 finding(s)') });
    expect(run.stdout).toContain("also the children of every kind's example");
  }, 180_000);

  it('passes the good fixtures and fails the bad ones, naming each finding', () => {
    expect(checkManifests(join(root, 'test', 'lint', 'fixtures', 'good')).status).toBe(0);
    const bad = checkManifests(join(root, 'test', 'lint', 'fixtures', 'bad'));
    expect(bad.status).toBe(1);
    for (const finding of ['Deployment lint-fixtures/bad container-resources', 'Deployment lint-fixtures/bad container-image-tag', 'Deployment lint-fixtures/bad container-security-context-privileged', 'DaemonSet lint-fixtures/node-agent container-security-context-user-group-id']) {
      expect(bad.stdout).toContain(finding);
    }
  }, 180_000);
});
