import { AnyKind, CHILD_VERBS, commonStatusProperties, Infer, KindDefinition, Permission, s } from '../engine/kind';
import { createLogger, KubeRest, Logger } from '../engine/client';
import { OperatorNames } from '../engine/operator';
// The engine's internals the kit runs as the controller runs them (the test kit is part of the engine).
import { crdManifest } from '../bundle/crd';
import { servedIdentities } from '../core/groups';
import { KubeObject, ObjectClient } from '../kube/objects';
import { Controller, ControllerSettings } from '../runtime/controller';
import { Metrics } from '../runtime/metrics';
import { createTestNamespace, deleteNamespace, testKubeConfig } from './cluster';
import { applyCrd, testObjects } from './objects';
import { TEST_OPERATOR } from './test-operator';

const testSpec = s.object({ size: s.integer({ description: 'How many of something to render.', minimum: 1 }) }, { description: 'What to render.' });
export type TestSpec = Infer<typeof testSpec>;

/**
 * A namespaced kind `<kind>` in group `<kind lower case>.test.cdk8s-operators.io` with a spec of
 * one integer, `size`: what a test needs to prove an engine capability without naming a real kind.
 */
export function defineTestKind(kind: string, parts: Partial<KindDefinition<TestSpec>> & Pick<KindDefinition<TestSpec>, 'render'>): KindDefinition<TestSpec> {
  const plural = `${kind.toLowerCase()}s`;
  return {
    group: `${kind.toLowerCase()}.test.cdk8s-operators.io`,
    version: 'v1',
    kind,
    plural,
    singular: kind.toLowerCase(),
    shortNames: [],
    scope: 'Namespaced',
    description: `${kind}: a kind that exists only in a test.`,
    spec: testSpec,
    status: s.object({ ...commonStatusProperties }, { description: 'The engine\u2019s status.' }),
    printerColumns: [],
    manages: [],
    ...parts,
  };
}

/** Child access to core resources (`''`) or a group's, for a test kind's `manages`. */
export const childrenOf = (apiGroup: string, ...resources: string[]): Permission => ({ apiGroup, resources, verbs: CHILD_VERBS });

/** A kind that exists only in a test, served by the real engine in the test's own process. */
export interface ServedTestKind {
  readonly objects: ObjectClient;
  /** The engine's metrics, e.g. `cdk8s_operators_child_writes_total`. */
  readonly metrics: Metrics;
  /** Every line the controller logged, parsed. */
  readonly logLines: Record<string, unknown>[];
  stop(): Promise<void>;
}

/** Installs the CRD of a kind in one of its groups and waits until the API server serves it (Established). */
export async function installTestCrd(kind: AnyKind): Promise<void> {
  await applyCrd(testObjects(), crdManifest(kind) as unknown as KubeObject);
}

/** Settings of the engine a test may change: the resync period (10 minutes by default), the clock handed to the kind's hooks and the operator's names (TEST_OPERATOR's by default: its field managers and metric prefix). */
export type TestEngineSettings = Partial<Pick<ControllerSettings, 'resyncMs' | 'clock' | 'operator'>>;

/**
 * Installs the kind's CRDs (every group it is served in, unless `groups` names fewer) and starts
 * the generic engine for it alone, in `namespace`.
 */
export async function serveTestKind(
  kind: AnyKind,
  namespace: string,
  groups: readonly AnyKind[] = servedIdentities(kind),
  rest = new KubeRest(testKubeConfig()),
  engine: TestEngineSettings = {},
): Promise<ServedTestKind> {
  const objects = testObjects();
  for (const identity of groups) await installTestCrd(identity);
  const logLines: Record<string, unknown>[] = [];
  const log: Logger = createLogger({ level: 'info', write: (line) => void logLines.push(JSON.parse(line) as Record<string, unknown>) });
  const operator: OperatorNames = engine.operator ?? TEST_OPERATOR;
  const metrics = new Metrics({ prefix: operator.metricPrefix });
  const controller = new Controller(rest, { kinds: [kind], namespaces: [namespace], workers: 2, resyncMs: 600_000, kindOptions: {}, identity: 'test-kind', ...engine, operator }, log, metrics);
  controller.start();
  return { objects, metrics, logLines, stop: () => controller.stop() };
}

/** A served test kind and the namespace it is served in, for the tests of one `describe`. */
export interface TestKindSuite extends ServedTestKind {
  readonly namespace: string;
}

/**
 * Serves the kind (see serveTestKind) in a namespace of its own for the calling `describe`
 * block: beforeAll creates both, afterAll stops the engine and deletes the namespace. The
 * fields are read when a test runs, as beforeAll sets them.
 */
export function serveTestKindForSuite(kind: AnyKind, namespacePrefix: string, groups?: readonly AnyKind[], engine?: TestEngineSettings): TestKindSuite {
  let namespace: string | undefined;
  let served: ServedTestKind | undefined;
  beforeAll(async () => {
    namespace = await createTestNamespace(testKubeConfig(), namespacePrefix);
    served = await serveTestKind(kind, namespace, groups, undefined, engine);
  });
  afterAll(async () => {
    await served?.stop();
    if (namespace) await deleteNamespace(testKubeConfig(), namespace);
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error(`${kind.kind} is served only once beforeAll has run`);
    return value;
  };
  return {
    get namespace() {
      return ready(namespace);
    },
    get objects() {
      return ready(served).objects;
    },
    get metrics() {
      return ready(served).metrics;
    },
    get logLines() {
      return ready(served).logLines;
    },
    stop: () => ready(served).stop(),
  };
}

/** The value of one series of a metric, 0 when it has none yet. */
export function metricValue(metrics: Metrics, name: string, labels: Record<string, string>): number {
  const text = metrics.render();
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.includes(w)));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

const taggedSpec = s.object(
  { size: s.integer({ description: 'How many of something to render.', minimum: 1 }), tags: s.optional(s.array(s.string({ description: 'A tag.', minLength: 1, maxLength: 20 }), { description: 'Tags, in order.', maxItems: 5 })) },
  { description: 'What to render (v2).' },
);
const singleTagSpec = s.object(
  { size: s.integer({ description: 'How many of something to render.', minimum: 1 }), tag: s.optional(s.string({ description: 'One tag.', minLength: 1, maxLength: 20 })) },
  { description: 'What to render (v1).' },
);
type TaggedSpec = Infer<typeof taggedSpec>;
type SingleTagSpec = Infer<typeof singleTagSpec>;

/**
 * A test kind in two versions: v2 (the hub) holds a list of `tags`, v1 a single `tag`. v1 keeps
 * the list it cannot hold through the engine's annotation: a round trip loses nothing.
 */
export function defineVersionedTestKind(kind: string, parts: Partial<KindDefinition<TaggedSpec>> & Pick<KindDefinition<TaggedSpec>, 'render'>): KindDefinition<TaggedSpec> {
  return {
    ...(defineTestKind(kind, { render: () => undefined }) as unknown as KindDefinition<TaggedSpec>),
    version: 'v2',
    spec: taggedSpec,
    olderVersions: [
      {
        name: 'v1',
        spec: singleTagSpec,
        toHub: (object, kept) => {
          if (object.spec === undefined) return { object };
          const { tag, ...rest } = object.spec as SingleTagSpec;
          const keptTags = (kept as { tags?: string[] } | undefined)?.tags;
          // The list v1 could not hold comes back only while its first tag is still the one v1 shows.
          const tags = keptTags && keptTags[0] === tag ? keptTags : tag === undefined ? undefined : [tag];
          return { object: { ...object, spec: { ...rest, ...(tags ? { tags } : {}) } } };
        },
        fromHub: (hub) => {
          if (hub.spec === undefined) return { object: hub };
          const { tags, ...rest } = hub.spec as TaggedSpec;
          return { object: { ...hub, spec: { ...rest, ...(tags?.length ? { tag: tags[0] } : {}) } }, kept: tags === undefined ? undefined : { tags } };
        },
      },
    ],
    ...parts,
  };
}
