import { k8s } from 'cdk8s-plus-27';

/** A TCP port of a NetworkPolicy rule. */
export function tcpPort(port: number): k8s.NetworkPolicyPort {
  return { protocol: 'TCP', port: k8s.IntOrString.fromNumber(port) };
}

/** What every pod behind a NetworkPolicy that limits egress needs to resolve names: DNS over UDP and TCP. */
export function dnsEgress(): k8s.NetworkPolicyEgressRule {
  return { ports: [{ protocol: 'UDP', port: k8s.IntOrString.fromNumber(53) }, tcpPort(53)] };
}
