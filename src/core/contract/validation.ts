import { FieldError } from '../../schema';
import type { AnyKind, KindDefinition, KubeJson } from './kind';
import { rawSpecOf, VersionLayout } from './version-layout';
import { conversionErrors, convertObject, layoutOf, versionOf } from './versions';

export type ValidationResult<Spec> = { ok: true; spec: Spec } | { ok: false; errors: FieldError[] };

/**
 * The controller's validation: the same schema the CRD carries, plus its CEL rules in TypeScript.
 * An object of an older version is checked in its own layout (so errors name the fields it
 * has), then converted: the spec returned is always the hub's.
 */
export function validateResource<Spec>(
  kind: VersionLayout & Pick<KindDefinition<Spec>, 'spec'> & Partial<Pick<KindDefinition<Spec>, 'kind' | 'version' | 'olderVersions'>>,
  object: Record<string, unknown>,
): ValidationResult<Spec> {
  if (!kind.olderVersions?.length) return validateLayout<Spec>(kind, object);
  const versioned = kind as AnyKind;
  const version = versionOf(versioned, object);
  try {
    const own = validateLayout<Spec>(layoutOf(versioned, version), object);
    if (!own.ok || version === versioned.version) return own;
    return validateLayout<Spec>(kind, convertObject(versioned, object as unknown as KubeJson, versioned.version));
  } catch (err) {
    return { ok: false, errors: conversionErrors(err) };
  }
}

/** Validation of an object in the version it is written in, without converting it. */
export function validateAsWritten(kind: AnyKind, object: Record<string, unknown>): ValidationResult<unknown> {
  return validateLayout(layoutOf(kind, versionOf(kind, object)), object);
}

function validateLayout<Spec>(layout: VersionLayout, object: Record<string, unknown>): ValidationResult<Spec> {
  const errors: FieldError[] = [];
  for (const rule of layout.objectRules ?? []) {
    if (!rule.holds(object)) errors.push({ field: rule.field, message: rule.message });
  }
  if (errors.length) return { ok: false, errors };
  const { spec, path } = rawSpecOf(layout, object);
  if (spec === undefined || spec === null) return { ok: false, errors: [{ field: path, message: 'is required' }] };
  const result = layout.spec.validate(spec, path);
  return result.errors.length ? { ok: false, errors: result.errors } : { ok: true, spec: result.value as Spec };
}
