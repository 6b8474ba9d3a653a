const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const MACROS: Record<string, number> = { '@hourly': HOUR, '@daily': DAY, '@midnight': DAY, '@weekly': 7 * DAY, '@monthly': 31 * DAY, '@yearly': 366 * DAY, '@annually': 366 * DAY };

/**
 * The longest a backup schedule (a CronJob's cron expression or macro) can leave between two
 * runs, in seconds, bounded by its coarsest restricted field: a restricted month can mean a
 * year, a day of the month 31 days, a day of the week 7 days, an hour a day, a minute an hour.
 * An upper bound, so an alert built on it never fires early; undefined for what is not a schedule.
 */
export function longestBackupInterval(schedule: string): number | undefined {
  const text = schedule.trim().toLowerCase();
  if (text.startsWith('@')) return MACROS[text];
  const fields = text.split(/\s+/);
  if (fields.length !== 5) return undefined;
  const [minute, hour, dayOfMonth, month, dayOfWeek] = fields.map((f) => !/^[*?](\/1)?$/.test(f));
  if (month) return 366 * DAY;
  if (dayOfMonth) return 31 * DAY;
  if (dayOfWeek) return 7 * DAY;
  if (hour) return DAY;
  if (minute) return HOUR;
  return MINUTE;
}
