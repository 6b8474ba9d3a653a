import type { JsonPatch } from 'cdk8s';
import type { Construct } from 'constructs';
import type { KubeJson } from './kube-json';
import { HELM_VALUE_NAME, HELM_VALUE_NAME_EXPECTED } from './value-names';

/** Adds a workload beside the controller, in its namespace and image: the bundle knows no kind, so whoever declares it says what goes with which kind. */
export type Companion = (bundle: Construct, where: { readonly namespace: string; readonly image: string }) => void;

/** What a companion writes Helm expressions with: the chart's HelmExpressions, whose markers cdk8s serializes as strings. */
export interface ChartExpressions {
  /** A value the template writes as is, e.g. `{{ .Values.replicas }}`. */
  value(template: string): string;
  /** A map or list taken whole from the values: `key: {{- toYaml .Values.<path> | nindent <n> }}`. */
  yamlOf(valuesPath: string): string;
  /** List items the template adds (or not), one per line at the list's indent. */
  listItems(lines: string[] | ((indent: string) => string[])): string;
}

/**
 * A companion (a workload the bundle installs beside the controller, see Companion) as the
 * Helm chart holds it. A kind declares it (KindDefinition.companions), so that the engine
 * names none: it is installed where one of its kinds is served. Its values live under `<key>`
 * with `enabled`; the chart guards its objects by that value and by the kinds it goes with,
 * and renders each of its modes as the companion renders it.
 */
export interface ChartCompanion<Options = unknown> {
  /** Its values' key in values.yaml, a camelCase name written into the templates (`.Values.<key>`), e.g. `ui`. */
  readonly key: string;
  /** What it is, as a phrase (`the web UI`): the schema's description of `enabled` and values.yaml's note on the image. */
  readonly title: string;
  /**
   * Further kinds it goes with, by plural, beside the kinds that declare it. Kept for companions
   * an app still lists itself (HelmChartInput.companions), which go with these only, or with
   * every install when there are none. @default the kinds declaring it
   */
  readonly kinds?: readonly string[];
  /** values.yaml's comment above its key, a line each (without `# `). */
  readonly comment: readonly string[];
  /** Its values beside `enabled`, with the defaults the bundle installs it with. */
  readonly defaults: Readonly<Record<string, unknown>>;
  /** values.yaml's lines of those values, indented under its key, with their comments. */
  valuesYaml(defaults: Readonly<Record<string, unknown>>): string;
  /** values.schema.json of those values: their properties, and any rule (if/then) on the whole object. */
  readonly schema: { readonly properties: Readonly<Record<string, unknown>>; readonly rules?: Readonly<Record<string, unknown>> };
  /** Adds it to the bundle with the options of a mode; undefined: its defaults. */
  companion(options: Options | undefined): Companion;
  /** The modes its values switch beside the default: a Helm condition and the options (holding Helm expressions) that render it. */
  modes(helm: ChartExpressions): readonly { readonly condition: string; readonly options: Options }[];
  /**
   * What turns its values into expressions in its own objects, given the objects of a variant
   * (the image and pull policy of its containers running the controller's image are done
   * already). Made once per chart, with the markers it needs.
   */
  valuePatches?(helm: ChartExpressions): (objects: readonly KubeJson[]) => ReadonlyMap<KubeJson, readonly JsonPatch[]>;
  /** NOTES.txt's lines on it (what to run to reach it), given the controller's namespace; each starts with two spaces. */
  notes(namespace: string): string;
}

/** A kind as its companions see it. */
export interface CompanionKind {
  readonly kind: string;
  readonly plural: string;
  readonly companions?: () => readonly ChartCompanion[];
}

/** Refuses a key that is no plain identifier; `owner` declares the companion (a kind, or the app). */
export function checkCompanionKey(companion: ChartCompanion, owner: string): void {
  if (!HELM_VALUE_NAME.test(companion.key)) throw new Error(`${owner}: the companion ${companion.title} has the key "${companion.key}": expected ${HELM_VALUE_NAME_EXPECTED}`);
}

/** What each declaration returned, once: kinds sharing one (an extra group's copy of a kind) share its companions. */
const declared = new WeakMap<() => readonly ChartCompanion[], readonly ChartCompanion[]>();

/** The companions a kind declares (loading their modules at the first call), each key checked. */
export function declaredCompanions(kind: CompanionKind): readonly ChartCompanion[] {
  const declare = kind.companions;
  if (!declare) return [];
  let companions = declared.get(declare);
  if (!companions) {
    companions = declare();
    for (const companion of companions) checkCompanionKey(companion, kind.kind);
    declared.set(declare, companions);
  }
  return companions;
}

/**
 * Every companion these kinds declare, each once (kinds may share one, the same object), in
 * the kinds' order, after checking that no two different companions take one key.
 */
export function kindCompanions(kinds: readonly CompanionKind[]): ChartCompanion[] {
  const byKey = new Map<string, { readonly companion: ChartCompanion; readonly kind: string }>();
  for (const kind of kinds) {
    for (const companion of declaredCompanions(kind)) {
      const first = byKey.get(companion.key);
      if (first && first.companion !== companion) {
        const where = first.kind === kind.kind ? `${kind.kind} declares two companions` : `${first.kind} and ${kind.kind} declare companions`;
        throw new Error(`${where} keyed "${companion.key}" (${first.companion.title}; ${companion.title}): give one of them another key, or declare the same companion (one object) in both`);
      }
      if (!first) byKey.set(companion.key, { companion, kind: kind.kind });
    }
  }
  return [...byKey.values()].map(({ companion }) => companion);
}

/** The plurals of the kinds among these that declare the companion. */
export function declaringPlurals(companion: ChartCompanion, kinds: readonly CompanionKind[]): string[] {
  return [...new Set(kinds.filter((kind) => declaredCompanions(kind).includes(companion)).map((kind) => kind.plural))];
}
