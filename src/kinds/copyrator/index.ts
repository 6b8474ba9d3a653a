import { CHILD_VERBS, constructsOnFirstUse, KindDefinition } from '../../engine/kind';
import { SECRET_COPYING } from './secret-copying';
import { CopyratorSpec, copyratorSpec, CopyratorStatus, copyratorStatus } from './api';
import { copyratorController, CopyratorObservation } from './controller';
import { copyratorMonitoring } from './monitoring';
import { copyratorV1 } from './v1';

export * from './api';
export * from './sources';
export * from './controller';
export * from './namespaces';
export * from './consent';

/** CopyratorRule: copies labelled ConfigMaps or Secrets across namespaces (drop-in for the copyrator operator). */
export const copyratorKind: KindDefinition<CopyratorSpec, CopyratorStatus, CopyratorObservation> = {
  group: 'test.com',
  extraGroups: ['flant.com'],
  version: 'v2',
  // v1 keeps the original's layouts; v2 puts every field under spec (docs/kinds/copyrator.md).
  olderVersions: [copyratorV1],
  kind: 'CopyratorRule',
  plural: 'copyrators',
  singular: 'copyrator',
  shortNames: ['copyr'],
  scope: 'Namespaced',
  description: 'CopyratorRule copies the ConfigMaps or Secrets that match a label selector from source namespaces into other namespaces and keeps the copies in step.',
  spec: copyratorSpec,
  status: copyratorStatus,
  printerColumns: [
    { name: 'Type', type: 'string', jsonPath: '.spec.ruleType', description: 'What the rule copies.', selectable: true },
    { name: 'Copies', type: 'integer', jsonPath: '.status.copies', description: 'How many copies the rule manages.' },
    { name: 'Conflicts', type: 'string', jsonPath: '.status.conflicts', description: 'Objects left alone because something else manages them.' },
  ],
  controller: copyratorController,
  monitoring: copyratorMonitoring,
  // Copies live in other namespaces, which ownerReferences cannot reach: the finalizer removes them.
  finalizer: 'test.com/copies',
  manages: [
    { apiGroup: '', resources: ['configmaps'], verbs: CHILD_VERBS },
    { apiGroup: '', resources: ['secrets'], verbs: CHILD_VERBS, optIn: SECRET_COPYING.name },
    { apiGroup: '', resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
  ],
  optIns: [SECRET_COPYING],
  ...constructsOnFirstUse(() => (require('./constructs') as typeof import('./constructs')).copyratorConstructs, { example: true }),
};

/** The definition src/kinds/index.ts registers (every kind's index.ts exports it as `kind`). */
export { copyratorKind as kind };
