import { Command, CommanderError } from 'commander';
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { AnyKind } from './core/kind';
import { PRODUCT } from './core/names';
import { planResource, ResourcePlan } from './diff/plan';
import { FieldChange } from './diff/fields';
import { Instance, InstancesError, loadInstances, loadManifests } from './gitops/instances';
import { KubeConnection } from './kube/connection';
import { KubeConfigError, loadKubeConnection } from './kube/kubeconfig';
import { ObjectClient } from './kube/objects';
import { KubeError, KubeRest } from './kube/rest';
import { InputError, readInput } from './render-command';

/** Exit codes as `diff` and `kubectl diff` have them. */
export const DIFF_EXIT = { same: 0, differs: 1, error: 2 } as const;

interface DiffOptions {
  file: string[];
  dist?: string;
  kubeconfig?: string;
}

function program(out: (text: string) => void, err: (text: string) => void): Command {
  return new Command('cdk8s-operators diff')
    .description(
      'What applying these resources would change in the cluster, child by child (created, changed fields, pruned). ' +
        'Read-only: it sends GET requests only. Exit code 0: no change, 1: changes, 2: an error.',
    )
    .option('-f, --file <path>', 'a YAML file of resources (- reads standard input) or a folder like src/instances; repeatable', (value: string, previous: string[]) => [...previous, value], [])
    .option('--dist <dir>', 'the resources a synth wrote: every file its kustomization.yaml lists')
    .option('--kubeconfig <path>', 'the cluster to compare with (default: $KUBECONFIG, else ~/.kube/config)')
    .helpOption('-h, --help', 'show this help')
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => out(text.trimEnd()),
      writeErr: (text) => err(text.trimEnd()),
      outputError: (text, write) => write(`cdk8s-operators diff: ${text.replace(/^error: /, '')}`),
    });
}

/** The resources named on the command line, checked as synth checks them. */
export function resourcesToDiff(options: DiffOptions, root: string, kinds: readonly AnyKind[]): Instance[] {
  if (!options.file.length && !options.dist) throw new InputError('diff needs -f <file> (or a folder, or - for standard input) or --dist <dir>');
  const instances: Instance[] = [];
  for (const path of options.file) {
    if (path !== '-' && isDirectory(path)) instances.push(...loadInstances({ dir: resolve(path), root, kinds }).instances);
    else {
      const { text, source } = readInput(path);
      instances.push(...loadManifests(text, source, kinds));
    }
  }
  if (options.dist) {
    const { text } = readInput(join(options.dist, 'kustomization.yaml'));
    const files = (parse(text) as { resources?: unknown } | null)?.resources;
    if (!Array.isArray(files)) throw new InputError(`${join(options.dist, 'kustomization.yaml')}: expected a list of files under resources`);
    for (const file of files) {
      const { text: manifests, source } = readInput(join(options.dist, String(file)));
      instances.push(...loadManifests(manifests, source, kinds, { skipOtherKinds: true }));
    }
  }
  return instances;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

async function kubeConnection(path: string | undefined): Promise<KubeConnection> {
  try {
    return await loadKubeConnection({ kubeconfig: path }, process.env);
  } catch (e) {
    throw e instanceof KubeConfigError ? new InputError(e.message) : e;
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

/** `cdk8s-operators diff ...`; returns the exit code. */
export async function runDiff(args: string[], root: string, kinds: readonly AnyKind[], out: (text: string) => void, err: (text: string) => void): Promise<number> {
  const command = program(out, err);
  try {
    command.parse(args, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.code === 'commander.helpDisplayed' ? 0 : DIFF_EXIT.error;
    throw e;
  }
  const options = command.opts<DiffOptions>();
  try {
    const instances = resourcesToDiff(options, root, kinds);
    const rest = new KubeRest(await kubeConnection(options.kubeconfig), (method) => {
      if (method !== 'GET') throw new Error(`diff is read-only, yet tried to send ${method}`);
    });
    const objects = new ObjectClient(rest, `${PRODUCT}-diff`);
    const plans: ResourcePlan[] = [];
    for (const instance of instances) plans.push(await planResource(objects, instance));
    out(formatPlans(plans));
    return hasChanges(plans) ? DIFF_EXIT.differs : DIFF_EXIT.same;
  } catch (e) {
    if (e instanceof InstancesError) for (const problem of e.problems) err(`cdk8s-operators diff: ${problem}`);
    else if (e instanceof InputError) err(`cdk8s-operators diff: ${e.message}`);
    else if (e instanceof KubeError) err(`cdk8s-operators diff: the cluster refused ${e.method} ${e.path}: HTTP ${e.code} ${e.status?.message ?? ''}`.trimEnd());
    else err(`cdk8s-operators diff: cannot compare with the cluster: ${(e as Error).message}${(e as { cause?: Error }).cause ? ` (${(e as { cause: Error }).cause.message})` : ''}`);
    return DIFF_EXIT.error;
  }
}
