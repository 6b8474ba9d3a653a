import { anyOf, KindMonitoring } from '../../engine/kind';
import { longestBackupInterval } from './backup-interval';
import { HELD_REASONS } from './plan';

/** How long a backup may take beyond its schedule before it is overdue. */
export const BACKUP_MARGIN_SECONDS = 3600;

const seconds = (time: unknown) => (typeof time === 'string' ? Date.parse(time) / 1000 : undefined);

/** Backups taken on schedule, and image changes held back. */
export const databaseMonitoring: KindMonitoring = {
  gauges: [
    {
      name: 'last_backup_timestamp_seconds',
      help: 'When the last scheduled backup of a Database succeeded (status.lastBackupTime), or its creation while none has; only for Databases with spec.backup.',
      value: (db) => {
        if (!(db.spec as { backup?: unknown } | undefined)?.backup) return undefined;
        return seconds((db.status as { lastBackupTime?: string } | undefined)?.lastBackupTime) ?? seconds(db.metadata.creationTimestamp);
      },
    },
    {
      name: 'backup_interval_seconds',
      help: 'The longest a Database\u2019s backup schedule (spec.backup.schedule) can leave between two backups.',
      value: (db) => {
        const schedule = (db.spec as { backup?: { schedule?: unknown } } | undefined)?.backup?.schedule;
        return typeof schedule === 'string' ? longestBackupInterval(schedule) : undefined;
      },
    },
  ],
  alerts: (metrics) => [
    {
      alert: 'DatabaseBackupOverdue',
      expr: `time() - ${metrics.gauge('last_backup_timestamp_seconds')} > ${metrics.gauge('backup_interval_seconds')} + ${BACKUP_MARGIN_SECONDS}`,
      for: '5m',
      severity: 'critical',
      summary: 'A Database has no successful backup within its schedule and a margin.',
      description:
        'Database {{ $labels.namespace }}/{{ $labels.name }} has had no successful scheduled backup for {{ $value | humanizeDuration }}, longer than its schedule allows plus 1h. Look at its backup CronJob and the Jobs it started.',
    },
    {
      alert: 'DatabaseHeld',
      expr: `max by (namespace, name, reason) (${metrics.objectCondition}{kind="Database",type="Ready",status="False",reason=~"${anyOf(HELD_REASONS)}"}) == 1`,
      for: '5m',
      severity: 'warning',
      summary: 'A Database refuses to apply its spec.image.',
      description:
        'Database {{ $labels.namespace }}/{{ $labels.name }} is Held ({{ $labels.reason }}): it keeps running its current image and does not apply spec.image. Its Ready condition says why.',
    },
  ],
};
