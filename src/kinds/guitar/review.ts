import { Verdict } from './api';

const GREAT = new Set(['coleclark', 'fender', 'gibson', 'ibanez', 'martin', 'seagull', 'squier', 'washburn']);
// The original spelt Rickenbacker `rickenbauer` (in its controller and its web form): old manifests say so, and keep their verdict.
const NOT_GREAT = new Set(['epiphone', 'guild', 'gretsch', 'jackson', 'ovation', 'prs', 'rickenbacker', 'rickenbauer', 'taylor', 'yamaha']);

export interface Review {
  readonly verdict: Verdict;
  readonly comment: string;
}

/** The reviewer's opinion of a brand; matching ignores case and surrounding blanks. */
export function reviewBrand(brand: string): Review {
  const key = brand.trim().toLowerCase();
  if (GREAT.has(key)) return { verdict: 'great', comment: `A ${key} is a great choice: enjoy playing it.` };
  if (NOT_GREAT.has(key)) return { verdict: 'not great', comment: `A ${key} is not our favourite, but any guitar played with love sounds good.` };
  return { verdict: 'unknown', comment: `We have not reviewed ${key} guitars yet; tell us how it plays.` };
}

/** All brands the reviewer knows, for the web UI's list: the original's seventeen, its own spelling rickenbauer among them, and rickenbacker. */
export const KNOWN_BRANDS = [...GREAT, ...NOT_GREAT].sort();
