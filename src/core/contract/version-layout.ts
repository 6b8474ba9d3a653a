import { Optional, Schema } from '../../schema';
import type { KubeJson } from './kube-json';

/**
 * How a version of a kind's API is declared: its layout (schema, legacy top-level fields, rules
 * over the whole object), its printer columns, and for an older version its conversions to and
 * from the hub. The declarations (and where a layout keeps its spec); the engine's conversions are
 * in versions.ts and its validation in validation.ts, so kind.ts, which declares a kind with these,
 * imports neither and versions.ts no longer imports it back.
 */

export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  readonly jsonPath: string;
  readonly description: string;
  readonly priority?: number;
  /**
   * Also a CRD selectable field: lists and watches may filter on it with a field selector
   * (`kubectl get <plural> --field-selector spec.brand=Fender`), on the server. Only a plain
   * path to a string, integer or boolean of the schema; eight per version at most.
   * @default false
   */
  readonly selectable?: boolean;
}

/** A rule over the whole object, in CEL for the API server and in TypeScript for the controller. */
export interface ObjectRule {
  readonly cel: string;
  readonly message: string;
  /** The top-level field the error is reported on. */
  readonly field: string;
  readonly holds: (object: Record<string, unknown>) => boolean;
}

/** How one version lays an object out: what its CRD schema holds and what the controller validates. */
export interface VersionLayout {
  readonly spec: Schema<unknown, unknown>;
  /** Fields beside `spec` at the top level of the object, for legacy layouts. */
  readonly legacyTopLevel?: Record<string, Schema<unknown> | Optional<unknown>>;
  /** CEL rules over the whole object (used with legacyTopLevel); `field` is the top-level field the error names. */
  readonly objectRules?: readonly ObjectRule[];
  /** Where the spec of a raw object is, before validation; defaults to `object.spec` at path `spec`. */
  readonly specOf?: (object: Record<string, unknown>) => { readonly spec: unknown; readonly path: string };
}

/** The spec of a raw object as a layout lays it out (its `specOf`, else `object.spec` at path `spec`), before validation. */
export function rawSpecOf(layout: Pick<VersionLayout, 'specOf'>, object: Record<string, unknown>): { readonly spec: unknown; readonly path: string } {
  return layout.specOf ? layout.specOf(object) : { spec: object.spec, path: 'spec' };
}

/**
 * What a conversion returns: the object in the other version, and what of the object it came
 * from the other version has no field for (e.g. which of two layouts it used), as JSON. The
 * engine keeps that in an annotation of the converted object and hands it back to the
 * conversion the other way, so a round trip returns exactly the object it started from.
 */
export interface Converted {
  readonly object: KubeJson;
  readonly kept?: unknown;
}

/** An older version of a kind's API, beside the hub. */
export interface KindVersion extends VersionLayout {
  /** e.g. `v1` */
  readonly name: string;
  /** Whether the API serves it. @default true */
  readonly served?: boolean;
  /** The warning kubectl prints for each request in this version; none: not deprecated. */
  readonly deprecationWarning?: string;
  /** The object's printer columns in this version. @default the hub's */
  readonly printerColumns?: readonly PrinterColumn[];
  /**
   * Whether its printer columns marked `selectable` are selectable fields in this version too.
   * No for a layout where the column's path misses some objects (fields that may sit elsewhere),
   * which a field selector would then leave out silently. @default true
   */
  readonly selectableColumns?: boolean;
  /**
   * This version's object (a copy: change it freely) in the hub's layout, given what `fromHub`
   * kept when the object was converted from the hub (undefined if nothing). `apiVersion` and the
   * engine's annotation are the engine's to set.
   */
  readonly toHub: (object: KubeJson, kept: unknown) => Converted;
  /** The hub's object (a copy) in this version's layout, given what `toHub` kept. */
  readonly fromHub: (hub: KubeJson, kept: unknown) => Converted;
  /**
   * Why a round trip through the hub cannot return the same object. A conversion is lossless
   * until said otherwise; the round-trip test fails for a version that says this, so a lossy
   * conversion cannot ship unnoticed.
   */
  readonly lossy?: string;
}
