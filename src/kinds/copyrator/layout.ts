import { ObjectRule, schemaOf } from '../../engine/kind';
import { sourceFieldsV1 as sourceFields } from './api';

const LEGACY_FIELDS = Object.keys(sourceFields);
/** CEL sees only typed fields: `namespace` (a string or a list, so untyped) is checked by the controller alone. */
const CEL_VISIBLE_LEGACY_FIELDS = LEGACY_FIELDS.filter((f) => schemaOf(sourceFields[f as keyof typeof sourceFields]).openApi.type !== undefined);
const has = (object: Record<string, unknown>, field: string) => object[field] !== undefined && object[field] !== null;
const hasLegacy = (object: Record<string, unknown>) => LEGACY_FIELDS.some((f) => has(object, f));

/**
 * The original sample rule put its fields at the top level of the object; both layouts are
 * accepted, one at a time, and spec is canonical.
 */
export const layoutRules: ObjectRule[] = [
  {
    cel: 'has(self.spec) || has(self.ruleType)',
    message: 'ruleType is required, under spec (or at the top level, as the original sample rule had it)',
    field: 'ruleType',
    holds: (o) => has(o, 'spec') || has(o, 'ruleType'),
  },
  {
    cel: 'has(self.spec) || has(self.selector)',
    message: 'selector is required, under spec (or at the top level, as the original sample rule had it)',
    field: 'selector',
    holds: (o) => has(o, 'spec') || has(o, 'selector'),
  },
  {
    cel: `!has(self.spec) || !(${CEL_VISIBLE_LEGACY_FIELDS.map((f) => `has(self.${f})`).join(' || ')})`,
    message: `use spec or the top-level fields (${LEGACY_FIELDS.join(', ')}), not both`,
    field: 'spec',
    holds: (o) => !has(o, 'spec') || !hasLegacy(o),
  },
];

/** The rule's spec, from whichever layout the object uses, and the path errors are reported under. */
export function specOfRule(object: Record<string, unknown>): { spec: unknown; path: string } {
  if (has(object, 'spec') || !hasLegacy(object)) return { spec: object.spec, path: 'spec' };
  return { spec: Object.fromEntries(LEGACY_FIELDS.filter((f) => has(object, f)).map((f) => [f, object[f]])), path: '' };
}
