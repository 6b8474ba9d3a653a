import { CrdFinding } from './finding';
import { schemaBreaks } from './schema-compare';

/** What of a CustomResourceDefinition manifest the comparison reads. */
export interface CrdDocument {
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly scope: string;
    readonly names: { readonly kind: string };
    readonly versions: readonly {
      readonly name: string;
      readonly served: boolean;
      readonly storage: boolean;
      readonly schema?: { readonly openAPIV3Schema?: Record<string, unknown> };
    }[];
  };
}

/**
 * Every break of `after` against `before`, the same CRD as users run it: its scope, each version
 * served or stored before and gone now, and the schema of each version served before and now,
 * compared with its previous self. A new version, or a version's storage moving to a newer one
 * still served beside it (with a conversion), is not a break.
 */
export function compareCrds(before: CrdDocument, after: CrdDocument): CrdFinding[] {
  const kind = after.spec.names.kind;
  const findings: CrdFinding[] = [];
  if (before.spec.scope !== after.spec.scope) {
    findings.push({ kind, version: '*', path: '', rule: 'scope', message: `scope changed: ${before.spec.scope} -> ${after.spec.scope}: every stored object becomes unreachable` });
  }
  for (const old of before.spec.versions) {
    const now = after.spec.versions.find((v) => v.name === old.name);
    if (!now && old.storage) {
      findings.push({ kind, version: old.name, path: '', rule: 'storedVersionRemoval', message: 'the stored version was removed: objects stored in it cannot be read until migrated' });
    } else if (old.served && !now?.served) {
      findings.push({ kind, version: old.name, path: '', rule: 'servedVersionRemoval', message: `a served version is ${now ? 'no longer served' : 'removed'}: manifests written in it are refused` });
    } else if (old.served && now) {
      const schemaBefore = old.schema?.openAPIV3Schema ?? {};
      const schemaAfter = now.schema?.openAPIV3Schema ?? {};
      findings.push(...schemaBreaks(schemaBefore, schemaAfter).map((b) => ({ kind, version: old.name, ...b })));
    }
  }
  return findings;
}
