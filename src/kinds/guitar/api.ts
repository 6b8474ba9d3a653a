import { commonStatusProperties, Infer, s } from '../../engine/kind';

export const VERDICTS = ['great', 'not great', 'unknown'] as const;
export type Verdict = (typeof VERDICTS)[number];

export const guitarSpec = s.object(
  {
    brand: s.string({
      description: 'The maker of the guitar, e.g. fender; case and surrounding blanks do not matter.',
      pattern: '\\S',
      patternHint: 'a brand name, not blank',
      maxLength: 63,
    }),
    review: s.optional(s.boolean({ description: 'Kept for manifests written for the original operator; the review is in status.' })),
    comment: s.optional(
      s.string({ description: 'Kept for manifests written for the original operator; the review\u2019s comment is in status.', maxLength: 1024 }),
    ),
  },
  { description: 'The guitar to review.' },
);

export const guitarStatus = s.object(
  {
    ...commonStatusProperties,
    verdict: s.optional(s.enum(VERDICTS, { description: 'What the reviewer thinks of the brand: great, not great or unknown.' })),
    comment: s.optional(s.string({ description: 'The reviewer\u2019s polite comment.' })),
    reviewedGeneration: s.optional(s.integer({ description: 'The metadata.generation the review was written for.', minimum: 0 })),
  },
  { description: 'The review of the guitar.' },
);

export type GuitarSpec = Infer<typeof guitarSpec>;
export type GuitarStatus = Infer<typeof guitarStatus>;
