/** What happened when, in the soak's own time (seconds since its start): the trail a violation prints. */
export interface HistoryEntry {
  readonly at: number;
  readonly source: 'workload' | 'fault' | 'checker' | 'soak';
  readonly what: string;
}

export class History {
  readonly entries: HistoryEntry[] = [];
  readonly startedAt = Date.now();

  constructor(private readonly echo: (line: string) => void = () => undefined) {}

  seconds(time = Date.now()): number {
    return Math.round((time - this.startedAt) / 100) / 10;
  }

  add(source: HistoryEntry['source'], what: string): void {
    const entry = { at: this.seconds(), source, what };
    this.entries.push(entry);
    this.echo(format(entry));
  }

  /** The entries of the `seconds` before `at`, for a violation's story. */
  before(at: number, seconds = 120): HistoryEntry[] {
    return this.entries.filter((e) => e.at <= at && e.at >= at - seconds);
  }
}

export function format(entry: HistoryEntry): string {
  return `${entry.at.toFixed(1).padStart(7)} s  ${entry.source.padEnd(8)} ${entry.what}`;
}
