import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { UserError } from '../core/errors';
import { AnyKind } from '../core/contract/kind';
import type { OperatorNames } from '../core/install/identity';
import { DIFF_EXIT } from '../diff/exit-codes';
import { planResource, ResourcePlan } from '../diff/plan';
import { FieldChange } from '../diff/fields';
import { CrdPlan, formatCrdPlans, planCrds } from '../diff/crds';
import { crdsOfYaml } from '../bundle/crd-compat/baseline';
import { CrdDocument } from '../bundle/crd-compat/crd-compare';
import { Instance, loadInstances, loadManifests } from '../gitops/instances';
import { loadKubeConnection } from '../kube/kubeconfig';
import { ObjectClient } from '../kube/objects';
import { KubeError, KubeRest } from '../kube/rest';
import { readInput } from '../gitops/yaml-documents';
import { helpOf, newCommand, parseCommandLine } from './command-line';

export { DIFF_EXIT } from '../diff/exit-codes';

interface DiffOptions {
  file: string[];
  dist?: string;
  kubeconfig?: string;
}

/** `<operator> diff`: the operator's command, as its identity names it. */
function program(operator: OperatorNames) {
  return newCommand(
    `${operator.identity.name} diff`,
    'What applying these resources would change in the cluster, child by child (created, changed fields, pruned). ' +
      'Read-only: it sends GET requests only. Exit code 0: no change, 1: changes, 2: an error.',
  )
    .option('-f, --file <path>', 'a YAML file of resources (- reads standard input) or a folder like src/instances; repeatable', (value: string, previous: string[]) => [...previous, value], [])
    .option('--dist <dir>', 'the resources a synth wrote: every file its kustomization.yaml lists')
    .option('--kubeconfig <path>', 'the cluster to compare with (default: $KUBECONFIG, else ~/.kube/config)');
}

/** The resources named on the command line, checked as synth checks them. */
export function resourcesToDiff(options: DiffOptions, root: string, kinds: readonly AnyKind[]): Instance[] {
  if (!options.file.length && !options.dist) throw new UserError('needs -f <file> (or a folder, or - for standard input) or --dist <dir>');
  const instances: Instance[] = [];
  for (const path of options.file) {
    if (path !== '-' && isDirectory(path)) instances.push(...loadInstances({ dir: resolve(path), root, kinds }).instances);
    else {
      const { text, source } = readInput(path);
      instances.push(...loadManifests(text, source, kinds));
    }
  }
  for (const { text, source } of distFiles(options.dist)) instances.push(...loadManifests(text, source, kinds, { skipOtherKinds: true }));
  return instances;
}

/** Every file a synth's kustomization.yaml lists, read; none without --dist. */
function distFiles(dist: string | undefined): { text: string; source: string }[] {
  if (!dist) return [];
  const { text } = readInput(join(dist, 'kustomization.yaml'));
  const files = (parse(text) as { resources?: unknown } | null)?.resources;
  if (!Array.isArray(files)) throw new UserError(`${join(dist, 'kustomization.yaml')}: expected a list of files under resources`);
  return files.map((file) => readInput(join(dist, String(file))));
}

/** The CRDs a synth wrote (--dist), whose compatibility with the cluster's diff shows. */
export function crdsToDiff(options: Pick<DiffOptions, 'dist'>): CrdDocument[] {
  return distFiles(options.dist).flatMap(({ text, source }) => [...crdsOfYaml(text, source).values()]);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function show(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function changeLine(change: FieldChange, secret: boolean): string {
  // A Secret's values never reach a terminal or a CI log.
  if (secret && /^(data|stringData)\b/.test(change.path)) return `${change.path}: (a secret value; not shown)`;
  return `${change.path}: ${show(change.from)} -> ${show(change.to)}`;
}

/** The plan as a reviewer reads it: each resource, its own changed fields, then each child. */
export function formatPlans(plans: readonly ResourcePlan[]): string {
  const lines: string[] = [];
  const count = (actions: string[]) => {
    const totals = new Map<string, number>();
    for (const a of actions) totals.set(a, (totals.get(a) ?? 0) + 1);
    return [...totals].map(([a, n]) => `${n} ${a}`).join(', ') || 'none';
  };
  for (const plan of plans) {
    lines.push(`${plan.name} (${plan.where}): ${plan.action}`);
    for (const change of plan.changes) lines.push(`    ${changeLine(change, false)}`);
    for (const child of plan.children) {
      lines.push(`  ${child.name}: ${child.action}`);
      for (const change of child.changes) lines.push(`      ${changeLine(change, child.secret)}`);
    }
    for (const note of plan.notes) lines.push(`  note: ${note}`);
  }
  const children = plans.flatMap((p) => p.children.map((c) => c.action));
  lines.push('', `${plans.length} ${plans.length === 1 ? 'resource' : 'resources'}: ${count(plans.map((p) => p.action))}; their children: ${count(children)}`);
  return lines.join('\n');
}

/** Whether applying would change anything. */
export function hasChanges(plans: readonly ResourcePlan[]): boolean {
  return plans.some((p) => p.action !== 'unchanged' || p.children.some((c) => c.action !== 'unchanged'));
}

/** `<operator> diff ...` of these kinds, reading as the operator's diff field manager; returns the exit code (DIFF_EXIT), or throws a UserError (src/cli.ts exits with DIFF_EXIT.error). */
export async function runDiff(args: string[], root: string, kinds: readonly AnyKind[], out: (text: string) => void, operator: OperatorNames): Promise<number> {
  const command = program(operator);
  const parsed = parseCommandLine(command, [], args, {});
  if (!parsed) {
    out(helpOf(command));
    return DIFF_EXIT.same;
  }
  const options = parsed.values as unknown as DiffOptions;
  const instances = resourcesToDiff(options, root, kinds);
  try {
    const rest = new KubeRest(await loadKubeConnection({ kubeconfig: options.kubeconfig }, process.env), (method) => {
      if (method !== 'GET') throw new Error(`diff is read-only, yet tried to send ${method}`);
    });
    const objects = new ObjectClient(rest, operator.diffManager);
    const crds = crdsToDiff(options);
    const crdNotes: string[] = [];
    const crdPlans: CrdPlan[] = crds.length ? await planCrds(objects, crds, kinds, crdNotes) : [];
    const plans: ResourcePlan[] = [];
    for (const instance of instances) plans.push(await planResource(objects, instance));
    out(crds.length ? `${formatCrdPlans(crdPlans, crdNotes)}\n\n${formatPlans(plans)}` : formatPlans(plans));
    return hasChanges(plans) || crdPlans.length ? DIFF_EXIT.differs : DIFF_EXIT.same;
  } catch (e) {
    // What the cluster says (or a network that does not answer) is the user's to fix, in one line like kubectl's.
    if (e instanceof UserError) throw e;
    if (e instanceof KubeError) throw new UserError(`the cluster refused ${e.method} ${e.path}: HTTP ${e.code} ${e.status?.message ?? ''}`.trimEnd());
    const cause = (e as { cause?: Error }).cause;
    throw new UserError(`cannot compare with the cluster: ${(e as Error).message}${cause ? ` (${cause.message})` : ''}`);
  }
}
