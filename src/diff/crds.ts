import { crdVerdict } from '../bundle/crd-compat/verdict';
import { CrdDocument } from '../bundle/crd-compat/crd-compare';
import { findingLine } from '../bundle/crd-compat/finding';
import { AnyKind } from '../core/contract/kind';
import { canonicalJson } from '../core/contract/versions';
import { KubeObject, ObjectClient } from '../kube/objects';
import { KubeError } from '../kube/rest';

/** What applying one CRD would do, and whether it breaks what the cluster's users stored. */
export interface CrdPlan {
  readonly name: string;
  readonly action: 'created' | 'changed';
  /** Lines of the compatibility check's verdict: each break, or each declared break. */
  readonly breaks: readonly string[];
  readonly accepted: readonly string[];
}

/** What applying a CRD may change for its users: its spec but the conversion webhook's address and CA, which are the install's. */
function contract(crd: CrdDocument): string {
  const { conversion: _install, ...api } = crd.spec;
  return canonicalJson(api);
}

/**
 * The CRDs applying would create or change, each with the compatibility check's verdict against
 * the CRD the cluster serves now (crdify's kube:// source, for the review before a merge).
 * A CRD the identity may not read is a note, not an error.
 */
export async function planCrds(objects: ObjectClient, crds: readonly CrdDocument[], kinds: readonly AnyKind[], notes: string[]): Promise<CrdPlan[]> {
  const plans: CrdPlan[] = [];
  for (const crd of crds) {
    let live: CrdDocument | undefined;
    try {
      live = await objects.find<KubeObject & CrdDocument>({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: crd.metadata.name } });
    } catch (err) {
      if (!(err instanceof KubeError) || err.code !== 403) throw err;
      notes.push(`cannot read CustomResourceDefinition ${crd.metadata.name} (forbidden), so its compatibility verdict is not shown`);
      continue;
    }
    if (!live) plans.push({ name: crd.metadata.name, action: 'created', breaks: [], accepted: [] });
    else if (contract(live) !== contract(crd)) {
      const verdict = crdVerdict(new Map([[crd.metadata.name, live]]), [crd], kinds);
      plans.push({ name: crd.metadata.name, action: 'changed', breaks: verdict.breaks.map(findingLine), accepted: verdict.accepted.map(findingLine) });
    }
  }
  return plans;
}

/** The CRDs' section of diff's output: one line per CRD it would change, with its verdict. */
export function formatCrdPlans(plans: readonly CrdPlan[], notes: readonly string[]): string {
  const lines = ['CRDs (compatibility with the cluster\u2019s, docs/evolving-a-kind.md):'];
  for (const plan of plans) {
    const verdict = plan.action === 'created' ? 'created' : plan.breaks.length ? `changed, BREAKING (${plan.breaks.length})` : 'changed, compatible';
    lines.push(`  ${plan.name}: ${verdict}`);
    for (const line of plan.breaks) lines.push(`      ${line}`);
    for (const line of plan.accepted) lines.push(`      declared in acceptedBreaks: ${line}`);
  }
  if (!plans.length) lines.push('  none changed');
  for (const note of notes) lines.push(`  note: ${note}`);
  return lines.join('\n');
}
