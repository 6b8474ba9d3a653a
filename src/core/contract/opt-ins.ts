import { isDeepStrictEqual } from 'node:util';
import type { OptionSpec } from './options';
import { HELM_VALUE_NAME, HELM_VALUE_NAME_EXPECTED } from './value-names';

/**
 * Something a kind does only where the install turns it on, because it needs access no install
 * should grant by default (e.g. to every Secret of the cluster). The kind declares it once, with
 * the spellings users meet; its permissions and watches name it by `name` (`optIn: '<name>'`),
 * and are granted and watched only when it is on. The engine derives the rest from this:
 *
 * - synth's `--<synthOption>` (a CDK8S_OPERATORS_* variable on its way to the app), off by default
 * - the Helm value `<helmValue>`, whose comment and schema description say what it grants
 * - the controller's `--<controllerOption>` (its variable in upper snake case), which the install
 *   passes when it grants the access, and which the controller reads before it watches
 */
export interface KindOptIn {
  /** What the kind's permissions and watches name in `optIn`, e.g. `mirroring`. */
  readonly name: string;
  /** What is turned on, as the chart's notes say it: `<title> is on` (e.g. `ConfigMap mirroring`). */
  readonly title: string;
  /** What it lets the controller do, one clause starting with a verb (e.g. `Let the controller mirror ConfigMaps`). */
  readonly description: string;
  /** The access it grants, as the help says it: `grants it cluster-wide <access>` (e.g. `ConfigMap access`). */
  readonly access: string;
  /** synth's flag without --, in kebab-case (e.g. `configmap-mirroring`). */
  readonly synthOption: string;
  /** The Helm chart's value, a camelCase name (e.g. `configmapMirroring`). */
  readonly helmValue: string;
  /** The controller's flag without --, in kebab-case (e.g. `enable-configmap-mirroring`). */
  readonly controllerOption: string;
}

/** A kind as the opt-ins see it: its declarations and what names them. */
interface OptInKind {
  readonly kind: string;
  readonly optIns?: readonly KindOptIn[];
  readonly manages: readonly { readonly optIn?: string; readonly resources: readonly string[] }[];
  readonly controller?: { readonly watches?: readonly { readonly optIn?: string; readonly resource: string }[] };
}

const FLAG = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const SPELLINGS = [
  { field: 'name', pattern: FLAG, show: (s: string) => `"${s}"` },
  { field: 'synthOption', pattern: FLAG, show: (s: string) => `synth's --${s}` },
  { field: 'helmValue', pattern: HELM_VALUE_NAME, show: (s: string) => `the Helm value ${s}` },
  { field: 'controllerOption', pattern: FLAG, show: (s: string) => `the controller's --${s}` },
] as const;

/**
 * Every opt-in these kinds declare, each once (kinds may share one declaration, e.g. an extra
 * group's copy of a kind), after checking them: a permission or watch names an opt-in its kind
 * declares, each spelling is well formed, and no spelling means two different opt-ins.
 */
export function kindOptIns(kinds: readonly OptInKind[]): KindOptIn[] {
  const bySpelling = new Map<string, { optIn: KindOptIn; kind: string }>();
  const all: KindOptIn[] = [];
  for (const kind of kinds) {
    const declared = kind.optIns ?? [];
    for (const optIn of declared) {
      for (const { field, pattern, show } of SPELLINGS) {
        const spelling = optIn[field];
        if (!pattern.test(spelling)) throw new Error(`${kind.kind}: the opt-in "${optIn.name}" has the ${field} "${spelling}": expected ${pattern === HELM_VALUE_NAME ? HELM_VALUE_NAME_EXPECTED : 'kebab-case (lowercase letters, digits and single dashes)'}`);
        const key = `${field}\u0000${spelling}`;
        const first = bySpelling.get(key);
        if (first && !isDeepStrictEqual(first.optIn, optIn)) {
          const where = first.kind === kind.kind ? `${kind.kind} declares two opt-ins` : `${first.kind} and ${kind.kind} declare opt-ins`;
          throw new Error(`${where} spelled ${show(spelling)} with different meanings ("${first.optIn.name}": ${first.optIn.description}; "${optIn.name}": ${optIn.description}): give one of them other spellings, or declare the same opt-in in both`);
        }
        if (!first) bySpelling.set(key, { optIn, kind: kind.kind });
      }
      if (!all.some((known) => isDeepStrictEqual(known, optIn))) all.push(optIn);
    }
    const names = declared.map((optIn) => optIn.name);
    const refer = (what: string, optIn: string | undefined) => {
      if (optIn !== undefined && !names.includes(optIn)) {
        throw new Error(`${kind.kind}: ${what} names the opt-in "${optIn}", which the kind does not declare (its optIns: ${names.length ? names.map((n) => `"${n}"`).join(', ') : 'none'}): add it to the kind's optIns`);
      }
    };
    for (const permission of kind.manages) refer(`the permission on ${permission.resources.join(', ')}`, permission.optIn);
    for (const watch of kind.controller?.watches ?? []) refer(`the watch of ${watch.resource}`, watch.optIn);
  }
  return all;
}

/** Whether the controller runs with this opt-in on, given its option values (a kind's controller asks so). */
export function optedIn(optIn: KindOptIn, options: Readonly<Record<string, unknown>>): boolean {
  return options[optIn.controllerOption] === true;
}

/**
 * Whether a permission or watch of this kind naming `name` (none: always on) is on, given the
 * controller's option values.
 */
export function optInIsOn(kind: OptInKind, name: string | undefined, options: Readonly<Record<string, unknown>>): boolean {
  if (name === undefined) return true;
  const optIn = kind.optIns?.find((o) => o.name === name);
  // kindOptIns refuses such a kind before it is served; this is the last guard, never a silent grant.
  if (!optIn) throw new Error(`${kind.kind}: the opt-in "${name}" is not declared in the kind's optIns`);
  return optedIn(optIn, options);
}

/** The controller's flag of each opt-in: a switch, off unless the install turns it on. */
export function optInControllerOptions(optIns: readonly KindOptIn[]): OptionSpec[] {
  return optIns.map((optIn) => ({ name: optIn.controllerOption, type: 'boolean', default: 'false', description: `${optIn.description}; the install must grant it ${optIn.access} (synth's --${optIn.synthOption}, the Helm value ${optIn.helmValue}).` }));
}

/** synth's flag of each opt-in these kinds declare: the access in the controller's RBAC and its flag on its command line. */
export function optInSynthOptions(kinds: readonly OptInKind[]): OptionSpec[] {
  return kindOptIns(kinds).map((optIn) => ({ name: optIn.synthOption, type: 'boolean', default: 'false', description: `${optIn.description}: grants it ${optIn.access} and runs it with --${optIn.controllerOption}.` }));
}

/** The names of the opt-ins of these kinds that synth's option values turn on. */
export function optInsTurnedOn(kinds: readonly OptInKind[], synthValues: Readonly<Record<string, unknown>>): string[] {
  return kindOptIns(kinds).filter((optIn) => synthValues[optIn.synthOption] === true).map((optIn) => optIn.name);
}
