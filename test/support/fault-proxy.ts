import * as k8s from '@kubernetes/client-node';
import { FaultProxy, startFaultProxy } from './fault-proxy-server';
import { testKubeConfig } from '../../src/testing/cluster';
import { selfSigned } from './self-signed';

/** The soak's fault proxy (fault-proxy-server.ts) in front of the test control plane, and a kubeconfig that talks through it. */
export interface TestFaultProxy {
  readonly proxy: FaultProxy;
  readonly kubeConfig: k8s.KubeConfig;
}

export async function startTestFaultProxy(client: string): Promise<TestFaultProxy> {
  const kc = testKubeConfig();
  const tls = selfSigned();
  const cluster = kc.getCurrentCluster()!;
  const proxy = await startFaultProxy({ upstream: cluster.server, upstreamCa: Buffer.from(cluster.caData!, 'base64').toString(), ...tls, replicas: [client], coin: () => false });
  const kubeConfig = new k8s.KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'proxy', server: proxy.url(client), caData: Buffer.from(tls.cert).toString('base64') }],
    users: [{ name: 'admin', token: kc.getCurrentUser()!.token }],
    contexts: [{ name: 'proxy', cluster: 'proxy', user: 'admin' }],
    currentContext: 'proxy',
  });
  return { proxy, kubeConfig };
}
