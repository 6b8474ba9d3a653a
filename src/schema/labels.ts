import { MapSchema } from './composites';
import { StringSchema } from './scalars';

/**
 * The label grammar of k8s.io/apimachinery (IsQualifiedName for keys, IsValidLabelValue for
 * values), so that a map the API server took is one the API server takes as a selector too,
 * and no character of it can act as a selector operator (`!`, `=`, `,`, spaces).
 */
const NAME = '[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?';
const DNS_LABEL = '[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?';
/** A key: an optional DNS-subdomain prefix and `/`, then a name of at most 63 characters. */
export const LABEL_KEY_PATTERN = `^(${DNS_LABEL}([.]${DNS_LABEL})*/)?${NAME}$`;
/** A value: empty, or a name of at most 63 characters. */
export const LABEL_VALUE_PATTERN = `^(${NAME})?$`;
/** The longest prefix (a DNS subdomain) before the `/` of a key. */
const MAX_PREFIX = 253;
export const LABEL_KEY_HINT = 'a label key (an optional DNS-subdomain prefix and "/", then at most 63 of A-Z, a-z, 0-9, "-", "_", "." beginning and ending with a letter or digit)';
export const LABEL_VALUE_HINT = 'a label value (empty, or at most 63 of A-Z, a-z, 0-9, "-", "_", "." beginning and ending with a letter or digit)';

const KEY = new RegExp(LABEL_KEY_PATTERN, 'u');
const VALUE = new RegExp(LABEL_VALUE_PATTERN, 'u');

export function isLabelKey(key: string): boolean {
  return KEY.test(key) && key.indexOf('/') <= MAX_PREFIX;
}

export function isLabelValue(value: string): boolean {
  return VALUE.test(value);
}

/** The selectors and label maps a spec may hold; more would not fit in a URL's query anyway. */
const MAX_LABELS = 64;

/**
 * A map of label keys to label values, checked by the API server (a CEL rule over the keys, a
 * pattern on the values) and by the controller alike.
 */
export function labelMap(description: string, minProperties?: number): MapSchema<string> {
  return new MapSchema(new StringSchema({ description: 'A label value.', maxLength: 63, pattern: LABEL_VALUE_PATTERN, patternHint: LABEL_VALUE_HINT }), {
    description,
    ...(minProperties ? { minProperties } : {}),
    maxProperties: MAX_LABELS,
    keys: {
      // indexOf is -1 without a prefix: the size rule holds then.
      cel: `self.all(k, k.matches('${LABEL_KEY_PATTERN}') && k.indexOf('/') <= ${MAX_PREFIX})`,
      message: `every key must be ${LABEL_KEY_HINT}`,
      holds: isLabelKey,
    },
  });
}
