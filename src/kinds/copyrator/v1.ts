import { asList, KindVersion, KubeJson } from '../../engine/kind';
import { CopyratorSpec, copyratorSpecV1, CopyratorSpecV1, sourceFieldsV1 } from './api';
import { layoutRules, specOfRule } from './layout';

/** What v2 has no field for: where v1 put the fields, and how it named the sources. */
interface KeptV1 {
  readonly topLevel: boolean;
  readonly namespace?: CopyratorSpecV1['namespace'];
  readonly namespaces?: CopyratorSpecV1['namespaces'];
}

const V1_TOP_LEVEL = Object.keys(sourceFieldsV1);

/**
 * v1: the original operator's layout (the source fields at the top level or under spec, one
 * at a time) and its two ways of naming sources, `namespace` (one or a list) beside
 * `namespaces`, where an unset `namespace` means the rule's own namespace.
 */
export const copyratorV1: KindVersion = {
  name: 'v1',
  spec: copyratorSpecV1,
  legacyTopLevel: sourceFieldsV1,
  objectRules: layoutRules,
  specOf: specOfRule,
  // Its source fields may sit at the top level: a selector on spec.ruleType would miss those rules.
  selectableColumns: false,
  toHub: (object) => {
    const { spec, path } = specOfRule(object);
    // A partial object (server-side apply prunes to what a manager owns) may have no spec.
    if (spec === undefined) return { object };
    const { namespace, namespaces, ...rest } = spec as CopyratorSpecV1;
    const hub = { ...withoutTopLevel(object), spec: { ...rest, ...sourcesOf(namespace, namespaces, object.metadata.namespace) } };
    const kept: KeptV1 = { topLevel: path === '', ...(namespace !== undefined ? { namespace } : {}), ...(namespaces !== undefined ? { namespaces } : {}) };
    return { object: hub, kept };
  },
  fromHub: (hub, kept) => {
    if (hub.spec === undefined) return { object: hub };
    const { namespaces, ...rest } = hub.spec as CopyratorSpec;
    const usual = { ...rest, ...(namespaces ? { namespace: namespaces.length === 1 ? namespaces[0] : namespaces } : {}) };
    const before = kept as KeptV1 | undefined;
    // What v1 wrote comes back only while it still names the same sources (no edit in v2 since).
    if (!before || !sameSources(sourcesOf(before.namespace, before.namespaces, hub.metadata.namespace).namespaces, namespaces)) return { object: { ...hub, spec: usual } };
    const fields = { ...rest, ...(before.namespace !== undefined ? { namespace: before.namespace } : {}), ...(before.namespaces !== undefined ? { namespaces: before.namespaces } : {}) };
    const fitsTopLevel = Object.keys(fields).every((field) => V1_TOP_LEVEL.includes(field));
    if (!before.topLevel || !fitsTopLevel) return { object: { ...hub, spec: fields } };
    const { spec: _spec, ...object } = hub;
    return { object: { ...object, ...fields } as KubeJson };
  },
};

/** v2's sources for v1's fields: none set keeps the default (the rule's own namespace). */
function sourcesOf(namespace: CopyratorSpecV1['namespace'], namespaces: CopyratorSpecV1['namespaces'], ruleNamespace: string | undefined): { namespaces?: string[] } {
  if (namespace === undefined && namespaces === undefined) return {};
  const named = namespace === undefined ? (ruleNamespace ? [ruleNamespace] : []) : asList(namespace);
  return { namespaces: [...new Set([...named, ...(namespaces ?? [])])] };
}

function sameSources(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.length === b.length && a.every((name, i) => name === b[i]);
}

function withoutTopLevel(object: KubeJson): KubeJson {
  return Object.fromEntries(Object.entries(object).filter(([field]) => !V1_TOP_LEVEL.includes(field))) as KubeJson;
}
