import { FieldError, OpenApiSchema, Schema } from '../schema';
import { checkStructural } from './check';
import { structuralSchema } from './structural';

export interface BuiltInOptions {
  /** What the field means; `kubectl explain` shows it (the embedded type's own descriptions are dropped). */
  readonly description: string;
}

/** `batch/v1` + `JobTemplateSpec` -> `io.k8s.api.batch.v1.JobTemplateSpec`; the core group's `v1` is `core`. */
export function openApiName(apiVersion: string, type: string): string {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['core', apiVersion];
  return `io.k8s.api.${group.split('.')[0]}.${version}.${type}`;
}

/**
 * A field holding a built-in Kubernetes type (a Job template, a Pod template), with that type's
 * schema from the Kubernetes OpenAPI the project targets (src/schema/kubernetes/openapi.generated.ts),
 * so the API server refuses a bad template when the object is written, naming the field, rather
 * than when a child is created from it. `T` is the TypeScript type the kind reads it as.
 */
export class BuiltInSchema<T = Record<string, unknown>> extends Schema<T> {
  readonly openApi: OpenApiSchema;

  constructor(
    readonly apiVersion: string,
    readonly type: string,
    options: BuiltInOptions,
  ) {
    super();
    // Loaded at the first embedding only: 55 KB a controller without one never parses.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { OPENAPI_SCHEMAS, KUBERNETES_VERSION } = require('./openapi.generated') as typeof import('./openapi.generated');
    const name = openApiName(apiVersion, type);
    if (!(name in OPENAPI_SCHEMAS)) {
      const types = Object.keys(OPENAPI_SCHEMAS).filter((n) => n.startsWith('io.k8s.api.')).length;
      throw new Error(`s.builtIn('${apiVersion}', '${type}'): ${name} is not among the ${types} types of the vendored Kubernetes ${KUBERNETES_VERSION} OpenAPI (src/schema/kubernetes/openapi.generated.ts); add a root in scripts/vendor-kubernetes-openapi.ts for more`);
    }
    this.openApi = { ...structuralSchema(name, OPENAPI_SCHEMAS), description: options.description } as OpenApiSchema;
  }

  check(value: unknown, path: string, errors: FieldError[]): T {
    checkStructural(this.openApi, value, path, errors);
    return value as T;
  }
}
