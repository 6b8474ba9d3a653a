import { constructsOnFirstUse, KindDefinition } from '../../core/kind';
import { guitarController } from './controller';
import { GuitarSpec, guitarSpec, GuitarStatus, guitarStatus } from './api';

export * from './api';
export * from './review';

/** Guitar: a reviewed guitar (drop-in for karmab's kool operator). It has no children: its review lives in status. */
export const guitarKind: KindDefinition<GuitarSpec, GuitarStatus> = {
  group: 'kool.karmalabs.local',
  version: 'v1',
  kind: 'Guitar',
  plural: 'guitars',
  singular: 'guitar',
  shortNames: ['guit'],
  scope: 'Namespaced',
  // Its children live beside each object, and it reads nothing else: a namespaced install serves it.
  servesNamespaces: true,
  description: 'Guitar is a guitar the operator reviews; the verdict and a comment are written to its status.',
  spec: guitarSpec,
  status: guitarStatus,
  printerColumns: [
    { name: 'Brand', type: 'string', jsonPath: '.spec.brand', description: 'The maker of the guitar.', selectable: true },
    { name: 'Verdict', type: 'string', jsonPath: '.status.verdict', description: 'The reviewer\u2019s verdict.', selectable: true },
    { name: 'Comment', type: 'string', jsonPath: '.status.comment', description: 'The reviewer\u2019s comment.', priority: 1 },
  ],
  controller: guitarController,
  manages: [],
  ...constructsOnFirstUse(() => (require('./constructs') as typeof import('./constructs')).guitarConstructs, { example: true }),
};

/** The definition src/kinds/index.ts registers (every kind's index.ts exports it as `kind`). */
export { guitarKind as kind };
