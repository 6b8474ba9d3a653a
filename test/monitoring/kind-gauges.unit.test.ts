import { objectGaugeMetric } from '../../src/core/contract/monitoring';
import { KINDS } from '../../src/kinds';
import { longestBackupInterval } from '../../src/kinds/database/backup-interval';
import { PRODUCT_NAMES } from '../../src/product';

const kind = (plural: string) => KINDS.find((k) => k.plural === plural)!;
const gauge = (plural: string, name: string) => kind(plural).monitoring!.gauges!.find((g) => g.name === name)!;
const HOUR = 3600;
const DAY = 24 * HOUR;

describe('the gauges kinds export per object', () => {
  it('are named after the kind', () => {
    const names = KINDS.flatMap((k) => (k.monitoring?.gauges ?? []).map((g) => objectGaugeMetric(PRODUCT_NAMES.metricPrefix, k, g))).sort();
    expect(names).toEqual([
      'cdk8s_operators_copyrator_conflicts',
      'cdk8s_operators_database_backup_interval_seconds',
      'cdk8s_operators_database_last_backup_timestamp_seconds',
      'cdk8s_operators_registrymirror_nodes_pending',
    ]);
  });

  it('read a Database\u2019s last backup, or its creation before the first, and only with spec.backup', () => {
    const last = gauge('databases', 'last_backup_timestamp_seconds');
    const metadata = { name: 'orders', creationTimestamp: '2026-11-20T00:00:00Z' };
    const backup = { schedule: '0 3 * * *' };
    expect(last.value({ metadata, spec: { backup }, status: { lastBackupTime: '2026-11-24T03:00:05Z' } })).toBe(Date.parse('2026-11-24T03:00:05Z') / 1000);
    expect(last.value({ metadata, spec: { backup }, status: {} })).toBe(Date.parse('2026-11-20T00:00:00Z') / 1000);
    expect(last.value({ metadata, spec: {}, status: { lastBackupTime: '2026-11-24T03:00:05Z' } })).toBeUndefined();
    expect(gauge('databases', 'backup_interval_seconds').value({ metadata, spec: { backup } })).toBe(DAY);
    expect(gauge('databases', 'backup_interval_seconds').value({ metadata, spec: {} })).toBeUndefined();
  });

  it('count a CopyratorRule\u2019s conflicts and a RegistryMirror\u2019s pending nodes, 0 without any', () => {
    expect(gauge('copyrators', 'conflicts').value({ metadata: {}, status: { conflicts: ['ConfigMap b/x', 'ConfigMap c/x'] } })).toBe(2);
    expect(gauge('copyrators', 'conflicts').value({ metadata: {}, status: {} })).toBe(0);
    expect(gauge('registrymirrors', 'nodes_pending').value({ metadata: {}, status: { nodesPending: ['node-a'] } })).toBe(1);
    expect(gauge('registrymirrors', 'nodes_pending').value({ metadata: {} })).toBe(0);
  });
});

describe('longestBackupInterval', () => {
  it.each([
    ['@hourly', HOUR],
    ['@daily', DAY],
    ['@weekly', 7 * DAY],
    ['@monthly', 31 * DAY],
    ['@yearly', 366 * DAY],
    ['*/5 * * * *', HOUR],
    ['* * * * *', 60],
    ['0 3 * * *', DAY],
    ['0 3 * * 1-5', 7 * DAY],
    ['0 3 1 * *', 31 * DAY],
    ['0 3 1 1 *', 366 * DAY],
    ['  30   4 * * SUN ', 7 * DAY],
  ])('%s: at most %d s between two backups', (schedule, seconds) => {
    expect(longestBackupInterval(schedule)).toBe(seconds);
  });

  it.each(['', '@often', '0 3 * *', 'every day'])('gives no bound for %j, which is not a schedule', (schedule) => {
    expect(longestBackupInterval(schedule)).toBeUndefined();
  });
});
