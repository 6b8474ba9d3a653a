import { OptionSpec } from '../../engine/kind';
import { SourceObject } from './sources';

/**
 * Who agreed to what: a rule copies, for its namespace, only what the owners of the other
 * namespaces allowed, as emberstack's reflector and appscode's kubed do.
 *
 * - A source object in another namespace names the namespaces whose rules may copy it.
 * - A namespace other than the rule's own names the namespaces whose rules may copy into it.
 * - Rules in the namespaces an administrator trusts (the controller's option below) need
 *   neither, as every rule did before; kube-* and the operator's own namespace are never read.
 */
export const ALLOWED_NAMESPACES_ANNOTATION = 'copyrator.cdk8s-operators.io/allowed-namespaces';
/** On a Namespace: an annotation, since a label value cannot hold a list; editors cannot change a Namespace. */
export const ACCEPT_FROM_ANNOTATION = 'copyrator.cdk8s-operators.io/accept-from';

export const TRUSTED_NAMESPACES = {
  name: 'copyrator-trusted-namespaces',
  type: 'list',
  installValue: 'copyratorTrustedNamespaces',
  description:
    'Namespaces (names, or patterns with *) whose CopyratorRules copy from and into every namespace without their owners\u2019 consent, as before consent existed; none by default. kube-* and the controller\u2019s own namespace are never sources.',
} as const satisfies OptionSpec;

/** Whether `name` is in a comma-separated list of namespace names and patterns (`*` stands for any run of characters). */
export function namedIn(list: string | readonly string[] | undefined, name: string): boolean {
  const items = typeof list === 'string' ? list.split(',') : (list ?? []);
  return items.map((item) => item.trim()).some((item) => item !== '' && new RegExp(`^${item.split('*').map(escapeRegExp).join('.*')}$`, 'u').test(name));
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What one rule may reach, from its namespace and the install. */
export interface Reach {
  readonly ruleNamespace: string;
  /** The rule's namespace is one the administrator trusts (TRUSTED_NAMESPACES). */
  readonly trusted: boolean;
  /** The controller's own namespace (its webhook's CA key, its Leases). */
  readonly operatorNamespace: string;
}

/** kube-* and the operator's own namespace: no rule of another namespace reads them, trusted or not. */
export function isSealed(reach: Reach, namespace: string): boolean {
  return namespace !== reach.ruleNamespace && (namespace.startsWith('kube-') || namespace === reach.operatorNamespace);
}

/** The rule's own namespace is always its own to copy from; another's object only with its owner's consent. */
export function mayCopy(reach: Reach, source: SourceObject): boolean {
  const from = source.metadata.namespace;
  if (from === reach.ruleNamespace) return true;
  if (isSealed(reach, from)) return false;
  return reach.trusted || namedIn(source.metadata.annotations?.[ALLOWED_NAMESPACES_ANNOTATION], reach.ruleNamespace);
}

/** The rule's own namespace takes its copies; another only when it accepts them from the rule's namespace. */
export function mayWriteInto(reach: Reach, namespace: { name: string; annotations?: Record<string, string> }): boolean {
  return namespace.name === reach.ruleNamespace || reach.trusted || namedIn(namespace.annotations?.[ACCEPT_FROM_ANNOTATION], reach.ruleNamespace);
}
