/**
 * Caps on the open live-update streams: each holds a connection and, unless the UI acts as
 * itself, a watch on the API server made with the user's rights. One user (by token or name)
 * may hold `perUser`, everyone together `total`; beyond that the UI answers 429.
 */
export class StreamLimits {
  private readonly byKey = new Map<string, number>();
  private open = 0;

  constructor(
    readonly total: number,
    readonly perUser: number,
  ) {}

  /** Takes a place for `key`: the function that gives it back, or why there is none. */
  acquire(key: string): { release: () => void } | { refused: string } {
    const mine = this.byKey.get(key) ?? 0;
    if (mine >= this.perUser) return { refused: `You already have ${mine} live pages open (at most ${this.perUser}); close one, or reload without live updates.` };
    if (this.open >= this.total) return { refused: `The UI already serves ${this.open} live pages (at most ${this.total}); try again later.` };
    this.byKey.set(key, mine + 1);
    this.open++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.open--;
        const left = (this.byKey.get(key) ?? 1) - 1;
        if (left) this.byKey.set(key, left);
        else this.byKey.delete(key);
      },
    };
  }
}
