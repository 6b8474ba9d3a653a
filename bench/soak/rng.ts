import { unsafeUniformIntDistribution, xoroshiro128plus, RandomGenerator } from 'pure-rand';

/** The soak's only source of chance: one seed replays the same workload and faults in the same order. */
export class Rng {
  private readonly gen: RandomGenerator;

  constructor(readonly seed: number) {
    this.gen = xoroshiro128plus(seed);
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return unsafeUniformIntDistribution(min, max, this.gen);
  }

  pick<T>(items: readonly T[]): T {
    if (!items.length) throw new Error('Rng.pick: nothing to pick from');
    return items[this.int(0, items.length - 1)];
  }

  chance(probability: number): boolean {
    return this.int(0, 9999) < probability * 10_000;
  }

  /** A branch of its own, so that one actor's draws do not shift another's. */
  fork(): Rng {
    return new Rng(this.int(0, 0x7fffffff));
  }
}
