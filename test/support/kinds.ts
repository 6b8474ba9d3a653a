import { servedIdentities } from '../../src/core/groups';
import { servedApiVersions } from '../../src/core/contract/versions';
import { KINDS } from '../../src/kinds';

/** The kinds served, as messages list them: `ExchangeRate (operators.brennerm.github.io/v1), CopyratorRule (test.com/v2 or test.com/v1 or flant.com/v2 or flant.com/v1), ...`, in the order src/kinds/index.ts registers them. */
export const KINDS_LISTED = KINDS.map((kind) => `${kind.kind} (${servedIdentities(kind).flatMap(servedApiVersions).join(' or ')})`).join(', ');

/** The kinds that declare an example, in registration order: `npm run synth -- --examples` declares one of each. */
export const KINDS_WITH_EXAMPLES: readonly string[] = KINDS.filter((kind) => kind.example).map((kind) => kind.kind);
