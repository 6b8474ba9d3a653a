import { ENGINE_PACKAGE } from '../core/install/identity';

/** A kind's names as its files spell them. */
export interface KindNames {
  /** `Greeting`: the kind. */
  readonly kind: string;
  /** `greeting`: its folder under src/kinds/ and its singular. */
  readonly folder: string;
  /** `greetings`. */
  readonly plural: string;
  /** `greeting` as an identifier prefix. */
  readonly camel: string;
  /** The API group, e.g. `acme-operator.example.com`. */
  readonly group: string;
}

/** Checks a kind's name (`add-kind <Kind>`) and derives the rest from it and the operator's name. */
export function kindNames(kind: string, operatorName: string): KindNames {
  if (!/^[A-Z][A-Za-z0-9]{0,62}$/.test(kind)) throw new Error(`<Kind>: expected an upper-case letter then letters and digits (e.g. Memcached), got ${JSON.stringify(kind)}`);
  const folder = kind.toLowerCase();
  return { kind, folder, plural: `${folder}s`, camel: kind[0].toLowerCase() + kind.slice(1), group: `${operatorName}.example.com` };
}

/**
 * The files of a new kind: a namespaced kind whose spec holds one message, rendered as a
 * ConfigMap, with its example and validation table. The user's from the start: `upgrade`
 * never rewrites them.
 */
export function kindFiles(n: KindNames): Map<string, string> {
  const dir = `src/kinds/${n.folder}`;
  return new Map([
    [
      `${dir}/api.ts`,
      `import { commonStatusProperties, Infer, s } from '${ENGINE_PACKAGE}/kind';

export const ${n.camel}Spec = s.object(
  { message: s.string({ description: 'What the ${n.kind}\\u2019s ConfigMap holds.', minLength: 1, maxLength: 200 }) },
  { description: 'The ${n.kind} wanted.' },
);

export const ${n.camel}Status = s.object({ ...commonStatusProperties }, { description: 'The ${n.kind} as the controller found it.' });

export type ${n.kind}Spec = Infer<typeof ${n.camel}Spec>;
export type ${n.kind}Status = Infer<typeof ${n.camel}Status>;
`,
    ],
    [
      `${dir}/index.ts`,
      `import { CHILD_VERBS, constructsOnFirstUse, KindDefinition } from '${ENGINE_PACKAGE}/kind';
import { ${n.kind}Spec, ${n.camel}Spec, ${n.kind}Status, ${n.camel}Status } from './api';

/** ${n.kind}: a ConfigMap holding spec.message. */
export const ${n.camel}Kind: KindDefinition<${n.kind}Spec, ${n.kind}Status> = {
  group: '${n.group}',
  version: 'v1alpha1',
  kind: '${n.kind}',
  plural: '${n.plural}',
  singular: '${n.folder}',
  shortNames: [],
  scope: 'Namespaced',
  description: '${n.kind} keeps a ConfigMap holding its message.',
  spec: ${n.camel}Spec,
  status: ${n.camel}Status,
  printerColumns: [{ name: 'Message', type: 'string', jsonPath: '.spec.message', description: 'The message.' }],
  manages: [{ apiGroup: '', resources: ['configmaps'], verbs: CHILD_VERBS }],
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the constructs load at their first use, not when the controller starts
  ...constructsOnFirstUse(() => (require('./constructs') as typeof import('./constructs')).${n.camel}Constructs, { example: true }),
};

/** src/kinds/index.ts finds every kind by its folder's index.ts exporting \`kind\`. */
export { ${n.camel}Kind as kind };
`,
    ],
    [
      `${dir}/constructs.ts`,
      `import { ApiObject } from 'cdk8s';
import { KindConstructs } from '${ENGINE_PACKAGE}/kind';
import { declareResource } from '${ENGINE_PACKAGE}/constructs';
import { ${n.kind}Spec, ${n.camel}Spec } from './api';
import { ${n.camel}Kind } from '.';

/** The ${n.kind}'s constructs, loaded at their first use: its children and its example. */
export const ${n.camel}Constructs: KindConstructs<${n.kind}Spec> = {
  example: (scope, namespace) => declareResource(scope, ${n.camel}Kind, ${n.camel}Spec, { metadata: { name: '${n.folder}-sample', namespace }, spec: { message: 'hello' } }),
  render: (scope, ${n.camel}) => {
    new ApiObject(scope, 'config', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ${n.camel}.metadata.name }, data: { message: ${n.camel}.spec.message } });
  },
};
`,
    ],
    [
      `${dir}/validation-cases.ts`,
      `import { ValidationCases } from '${ENGINE_PACKAGE}/kind';

/** Objects the API server and the controller must both accept, and both refuse naming the field. */
export const validationCases: ValidationCases = {
  valid: [{ name: 'a message', body: { spec: { message: 'hello' } } }],
  invalid: [
    { name: 'no message', body: { spec: {} }, field: 'spec.message' },
    { name: 'an empty message', body: { spec: { message: '' } }, field: 'spec.message' },
  ],
};
`,
    ],
  ]);
}
