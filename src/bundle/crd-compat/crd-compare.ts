import { canonicalJson } from '../../core/contract/versions';
import { CrdFinding } from './finding';
import { schemaBreaks } from './schema-compare';

/** What of a CustomResourceDefinition manifest the comparison reads. */
export interface CrdDocument {
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly scope: string;
    readonly names: { readonly kind: string } & Record<string, unknown>;
    readonly versions: readonly ({
      readonly name: string;
      readonly served: boolean;
      readonly storage: boolean;
      readonly schema?: { readonly openAPIV3Schema?: Record<string, unknown> };
    } & Record<string, unknown>)[];
  } & Record<string, unknown>;
}

/** Parts of a CRD's spec compared on their own below, or the install's (the conversion webhook's address and CA), not the API's. */
const SPEC_MODELLED = new Set(['group', 'scope', 'names', 'versions', 'conversion']);
/** Names by which users' manifests and clients find the resource; short names and categories only help kubectl. */
const NAMES_COMPARED = ['kind', 'listKind', 'plural', 'singular'];
/** Parts of a version compared on their own below, or that only show or document it. */
const VERSION_MODELLED = new Set(['name', 'served', 'storage', 'schema', 'deprecated', 'deprecationWarning', 'additionalPrinterColumns', 'selectableFields']);

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);
const changedKeys = (before: Record<string, unknown>, after: Record<string, unknown>, modelled: ReadonlySet<string>) =>
  [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => !modelled.has(key) && !same(before[key], after[key]));

/**
 * Every break of `after` against `before`, the same CRD as users run it: its scope and names,
 * each version served or stored before and gone now, and the schema of each version served
 * before and now, compared with its previous self. A new version, or a version's storage moving
 * to a newer one still served beside it (with a conversion), is not a break. Any other change
 * of the CRD the comparison does not model (a subresource) fails closed; a selectable field may be added, not removed.
 */
export function compareCrds(before: CrdDocument, after: CrdDocument): CrdFinding[] {
  const kind = after.spec.names.kind;
  const findings: CrdFinding[] = [];
  const unknown = (version: string, key: string, was: unknown, now: unknown) =>
    findings.push({ kind, version, path: '', rule: 'unknown', message: `unknown change of ${key}: ${JSON.stringify(was) ?? 'none'} -> ${JSON.stringify(now) ?? 'none'}` });
  if (before.spec.scope !== after.spec.scope) {
    findings.push({ kind, version: '*', path: '', rule: 'scope', message: `scope changed: ${before.spec.scope} -> ${after.spec.scope}: every stored object becomes unreachable` });
  }
  for (const key of changedKeys(before.spec, after.spec, SPEC_MODELLED)) unknown('*', key, before.spec[key], after.spec[key]);
  for (const name of NAMES_COMPARED.filter((n) => !same(before.spec.names[n], after.spec.names[n]))) unknown('*', `names.${name}`, before.spec.names[name], after.spec.names[name]);
  for (const old of before.spec.versions) {
    const now = after.spec.versions.find((v) => v.name === old.name);
    if (!now && old.storage) {
      findings.push({ kind, version: old.name, path: '', rule: 'storedVersionRemoval', message: 'the stored version was removed: objects stored in it cannot be read until migrated' });
    } else if (old.served && !now?.served) {
      findings.push({ kind, version: old.name, path: '', rule: 'servedVersionRemoval', message: `a served version is ${now ? 'no longer served' : 'removed'}: manifests written in it are refused` });
    } else if (old.served && now) {
      for (const key of changedKeys(old, now, VERSION_MODELLED)) unknown(old.name, key, old[key], now[key]);
      // A new selectable field only offers more; one taken away fails every list that selects by it.
      const selectable = (v: Record<string, unknown>) => ((v.selectableFields as { jsonPath: string }[] | undefined) ?? []).map((f) => f.jsonPath);
      for (const path of selectable(old).filter((p) => !selectable(now).includes(p))) {
        findings.push({ kind, version: old.name, path: path.replace(/^[.]/, ''), rule: 'selectableFieldRemoval', message: `the selectable field ${path} was removed: lists that select by it (--field-selector) are refused` });
      }
      const schemaBefore = old.schema?.openAPIV3Schema ?? {};
      const schemaAfter = now.schema?.openAPIV3Schema ?? {};
      findings.push(...schemaBreaks(schemaBefore, schemaAfter).map((b) => ({ kind, version: old.name, ...b })));
    }
  }
  return findings;
}
