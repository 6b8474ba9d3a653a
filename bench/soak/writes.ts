import { LEASE_GRACE_MS, STORM_PER_MINUTE } from './invariants';
import { Write } from '../../test/support/fault-proxy-server';

/** A leader term: who held the Lease from when (its acquireTime, the replicas' own clock, this machine's). */
export interface Term {
  readonly holder: string;
  readonly from: number;
}

/** Writes that say who acted, not how leading works: the Lease itself, and Events. */
const counts = (w: Write) => !w.object.includes('/leases') && !w.object.includes('/events');

export interface WriteFindings {
  /** Objects written by two replicas in one term: `object (term of holder): replicas`. */
  twoActors: string[];
  /** Writes by a replica that did not hold the Lease then. */
  withoutLease: string[];
  /** Object-minutes over STORM_PER_MINUTE writes, each with who wrote how (`replica-a POST x40, ...`) and when its minute ended. */
  storms: { what: string; at: number }[];
  /** The most writes to one object in one minute. */
  maxPerMinute: number;
}

/** Judges the writes the proxy saw against the leader terms the checker saw. */
export function judgeWrites(writes: readonly Write[], terms: readonly Term[]): WriteFindings {
  const sorted = [...terms].sort((a, b) => a.from - b.from);
  const termOf = (at: number) => {
    let index = -1;
    for (let i = 0; i < sorted.length && sorted[i].from <= at; i++) index = i;
    return index;
  };
  const writers = new Map<string, Set<string>>();
  const perMinute = new Map<string, Write[]>();
  const withoutLease: string[] = [];
  for (const write of writes.filter(counts)) {
    const term = termOf(write.at);
    const key = `${write.object} (term ${term}${term >= 0 ? ` of ${sorted[term].holder}` : ''})`;
    const set = writers.get(key) ?? new Set<string>();
    set.add(write.replica);
    writers.set(key, set);
    if (term >= 0 && sorted[term].holder !== write.replica && write.at > sorted[term].from + LEASE_GRACE_MS) {
      withoutLease.push(`${write.replica} ${write.method} ${write.object} at ${new Date(write.at).toISOString()} while ${sorted[term].holder} led`);
    }
    const minute = `${write.object} @${Math.floor(write.at / 60_000)}`;
    const inMinute = perMinute.get(minute);
    if (inMinute) inMinute.push(write);
    else perMinute.set(minute, [write]);
  }
  const twoActors = [...writers].filter(([, set]) => set.size > 1).map(([key, set]) => `${key}: ${[...set].join(', ')}`);
  const storms = [...perMinute]
    .filter(([, minute]) => minute.length > STORM_PER_MINUTE)
    .map(([key, minute]) => ({ what: `${key}: ${minute.length} writes (${tally(minute)})`, at: (Math.floor(minute[0].at / 60_000) + 1) * 60_000 }));
  return { twoActors, withoutLease, storms, maxPerMinute: Math.max(0, ...[...perMinute.values()].map((m) => m.length)) };
}

/** `replica-a POST x40, replica-a DELETE x3`: who wrote how, the first thing a storm's story needs. */
function tally(writes: readonly Write[]): string {
  const counts = new Map<string, number>();
  for (const w of writes) counts.set(`${w.replica} ${w.method}`, (counts.get(`${w.replica} ${w.method}`) ?? 0) + 1);
  return [...counts].map(([what, n]) => `${what} x${n}`).join(', ');
}

/** Writes per object in [from, to): the quiet window's test. */
export function writesPerObject(writes: readonly Write[], from: number, to: number): Map<string, number> {
  const result = new Map<string, number>();
  for (const w of writes) if (counts(w) && w.at >= from && w.at < to) result.set(w.object, (result.get(w.object) ?? 0) + 1);
  return result;
}
