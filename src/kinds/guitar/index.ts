import { constructsOnFirstUse, KindDefinition } from '../../engine/kind';
import { guitarController } from './controller';
import { GuitarSpec, guitarSpec, GuitarStatus, guitarStatus } from './api';
import { GUITAR_API } from './identity';

export * from './api';
export * from './review';

/** Guitar: a reviewed guitar (drop-in for karmab's kool operator). It has no children: its review lives in status. */
export const guitarKind: KindDefinition<GuitarSpec, GuitarStatus> = {
  ...GUITAR_API,
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
  // The web UI of guitars, installed where they are served; required by synth only (it builds constructs and Helm templates).
  companions: () => [(require('../../ui/chart-companion') as typeof import('../../ui/chart-companion')).GUITAR_UI_COMPANION],
};

/** The definition src/kinds/index.ts registers (every kind's index.ts exports it as `kind`). */
export { guitarKind as kind };
