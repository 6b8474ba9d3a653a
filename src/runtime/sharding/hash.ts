/**
 * Rendezvous (highest random weight) hashing: an object goes to the member whose hash with the
 * object's key scores highest. A member joining takes about 1/N of the objects from the others
 * and a member leaving gives only its own away, with no ring or virtual nodes to tune, and
 * every replica computes the same answer from the same member list.
 */

/** FNV-1a, 32 bits, over the UTF-16 code units of `text`. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** MurmurHash3's finalizer: spreads every input bit over the output, so XORed hashes score independently. */
function mix(value: number): number {
  let h = value;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Precomputed member hashes, so that assigning many objects hashes each member once. */
export class Rendezvous {
  private readonly members: readonly { name: string; hash: number }[];

  constructor(members: Iterable<string>) {
    this.members = [...new Set(members)].sort().map((name) => ({ name, hash: fnv1a(name) }));
  }

  get size(): number {
    return this.members.length;
  }

  /** The member that serves `key`; undefined when there is none. Ties go to the lower name. */
  assign(key: string): string | undefined {
    const keyHash = fnv1a(key);
    let best: string | undefined;
    let bestScore = -1;
    for (const member of this.members) {
      const score = mix(keyHash ^ mix(member.hash));
      if (score > bestScore) {
        best = member.name;
        bestScore = score;
      }
    }
    return best;
  }
}
