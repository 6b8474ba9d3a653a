import { dnsEgress, tcpPort } from '../../engine/constructs';
import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { DatabaseSpec } from './api';
import { DatabaseChildNames } from './childnames';
import { CLIENT_LABEL, JOB_COMPONENTS, podSelector } from './pod';

export interface DatabaseNetworkPoliciesProps {
  /** Names of the Database's children. */
  readonly names: DatabaseChildNames;
  /** The validated, defaulted spec. */
  readonly spec: DatabaseSpec;
  /** The labels that tie children to the Database (childLabels()); the policies select pods by them. Default: none. */
  readonly ownerLabels?: Record<string, string>;
}

/**
 * NetworkPolicies `<name>` (the server) and `<name>-jobs` (every Job): only pods of the
 * Database's namespace labelled `databases.cdk8s-operators.io/client: <service>` may reach the
 * server's port (the Database's own servers and Jobs carry the label), the server reaches only
 * DNS and its peers, the Jobs reach only DNS and the server. Policies add up, so a user who
 * needs more (clients in another namespace, postgres_fdw to another host) adds a policy of
 * their own.
 */
export class DatabaseNetworkPolicies extends Construct {
  readonly server: k8s.KubeNetworkPolicy;
  readonly jobs: k8s.KubeNetworkPolicy;

  constructor(scope: Construct, id: string, props: DatabaseNetworkPoliciesProps) {
    super(scope, id);
    const { names, spec, ownerLabels = {} } = props;
    const dns = dnsEgress();
    const server = podSelector(ownerLabels, 'database');
    const { 'app.kubernetes.io/component': _component, ...owner } = server;

    this.server = new k8s.KubeNetworkPolicy(this, 'server', {
      metadata: { name: names.networkPolicy },
      spec: {
        podSelector: { matchLabels: server },
        policyTypes: ['Ingress', 'Egress'],
        // A podSelector alone admits pods of this namespace only.
        ingress: [{ from: [{ podSelector: { matchLabels: { [CLIENT_LABEL]: names.service } } }], ports: [tcpPort(spec.port)] }],
        egress: [dns, { to: [{ podSelector: { matchLabels: server } }], ports: [tcpPort(spec.port)] }],
      },
    });
    this.jobs = new k8s.KubeNetworkPolicy(this, 'jobs', {
      metadata: { name: names.jobsNetworkPolicy },
      spec: {
        podSelector: { matchLabels: owner, matchExpressions: [{ key: 'app.kubernetes.io/component', operator: 'In', values: [...JOB_COMPONENTS] }] },
        policyTypes: ['Ingress', 'Egress'],
        egress: [dns, { to: [{ podSelector: { matchLabels: server } }], ports: [tcpPort(spec.port)] }],
      },
    });
  }
}
