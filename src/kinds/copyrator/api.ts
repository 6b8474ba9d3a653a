import { commonStatusProperties, Infer, s } from '../../engine/kind';

const DNS_LABEL = { pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', patternHint: 'a namespace name (lower-case letters, digits and "-")', maxLength: 63 };
const namespaceName = (description: string) => s.string({ description, ...DNS_LABEL });
const namespaceList = (description: string) => s.array(namespaceName('A namespace name.'), { description, unique: true, maxItems: 256 });

const narrowingFields = {
  targetNamespaces: s.optional(namespaceList('Copy only into these namespaces; default: every Active namespace but the sources and kube-*.')),
  namespaceSelector: s.optional(s.labelMap('Copy only into namespaces carrying all these labels.')),
  excludeNamespaces: s.optional(namespaceList('Never copy into these namespaces.')),
};
const ruleType = s.enum(['configmap', 'secret'], { description: 'What to copy: configmap or secret.' });
const selector = s.labelMap('Labels a source object must carry to be copied, e.g. copyrator: "true"; must not be empty.', 1);

/** v2, the hub: every field under spec, the sources in one list. */
export const copyratorSpec = s.object(
  {
    ruleType,
    selector,
    // v1 could name 256 in namespace, 256 in namespaces, and the rule's own namespace beside them.
    namespaces: s.optional(
      s.array(namespaceName('A namespace name.'), { description: 'The namespaces to copy from; default: the rule\u2019s own namespace.', unique: true, minItems: 1, maxItems: 513 }),
    ),
    ...narrowingFields,
  },
  { description: 'Which ConfigMaps or Secrets to copy, from where, and into which namespaces.' },
);

/** v1: the fields the original operator's sample rule put at the top level; here they also live under spec. */
export const sourceFieldsV1 = {
  ruleType,
  selector,
  // One clone of the original operator wrote a list here (namespace: ["default", "default2"]).
  namespace: s.optional(
    s.stringOrList(namespaceName('A namespace to copy from.'), {
      description: 'The namespace to copy from, or a list of them; defaults to the rule\u2019s own namespace.',
      itemName: 'a namespace name',
      maxItems: 256,
    }),
  ),
  namespaces: s.optional(namespaceList('More namespaces to copy from, beside namespace (or the rule\u2019s own namespace when namespace is not set).')),
};

/** v1's spec, as the original operator and its clones wrote it. */
export const copyratorSpecV1 = s.object(
  { ...sourceFieldsV1, ...narrowingFields },
  {
    description: 'Which ConfigMaps or Secrets to copy, from where, and into which namespaces.',
    rules: [
      {
        cel: '!has(self.targetNamespaces) || !has(self.namespaces) || self.targetNamespaces.all(t, !(t in self.namespaces))',
        message: 'a namespace cannot be both a source (namespaces) and a target (targetNamespaces)',
        fieldPath: '.targetNamespaces',
        holds: (self) => !self.targetNamespaces?.some((t) => self.namespaces?.includes(t)),
      },
    ],
  },
);

export const copyratorStatus = s.object(
  {
    ...commonStatusProperties,
    copies: s.optional(s.integer({ description: 'How many copies the rule manages.', minimum: 0 })),
    conflicts: s.optional(
      s.array(s.string({ description: 'Kind namespace/name of an object the rule would copy over but does not manage.' }), {
        description: 'Objects left alone because something else owns them.',
        maxItems: 100,
      }),
    ),
  },
  { description: 'What the rule copied and what it had to leave alone.' },
);

export type CopyratorSpec = Infer<typeof copyratorSpec>;
export type CopyratorSpecV1 = Infer<typeof copyratorSpecV1>;
export type CopyratorStatus = Infer<typeof copyratorStatus>;
