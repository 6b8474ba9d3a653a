import * as k8s from '@kubernetes/client-node';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { ControlPlaneState, startControlPlane, stopControlPlane } from '../../src/testing/controlplane/controlplane';
import { eventually } from '../../src/testing/cluster';
import { ControllerProcess, startController } from '../support/controller-process';
import { CREDENTIALS_FOR } from '../../src/kinds/registrymirror/refusals';
import { DIST, installCrds, loadYaml } from '../support/manifests';
import { gone, readyOf, Resource, whenReady } from '../support/resources';
import { startStorageProvisioner, StorageProvisioner } from '../support/storage-provisioner';

// A private control plane: the controller starts before the CRDs exist, and the test adds a node.
const MIRRORS = 'registry-mirrors';
let dir: string;
let plane: ControlPlaneState;
let objects: ObjectClient;
let provisioner: StorageProvisioner;
let controller: ControllerProcess;

type Status = { endpoint?: string; clusterIP?: string; nodesDesired?: number; nodesConfigured?: number; nodesPending?: string[]; cacheReady?: boolean };
const mirror = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'k8s.osp.tech/v1', kind: 'RegistryMirror', metadata: { name }, spec });
const child = (kind: string, name: string, apiVersion = 'v1'): KubeObject => ({ apiVersion, kind, metadata: { name, namespace: MIRRORS } });
const ready = (o: KubeObject, status: 'True' | 'False', reason?: string) => whenReady(objects, o, status, reason, controller.logFile, 90_000);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'e2e-registrymirror-'));
  mkdirSync(join(dir, 'plane'));
  plane = await startControlPlane(join(dir, 'plane'));
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(plane.kubeconfig);
  objects = new ObjectClient(new KubeRest(kc), 'e2e-tests');
  provisioner = await startStorageProvisioner(kc);
  // The mirrors' namespace, as the operator bundle in dist/ declares it (privileged only for the node DaemonSet).
  const namespace = loadYaml(join(DIST, '1-operator.k8s.yaml')).find((o) => o.kind === 'Namespace' && o.metadata.name === MIRRORS)!;
  await objects.apply(namespace);
  // The administrator's step (docs/kinds/registrymirror.md#who-may-mirror-what): the hosts these mirrors serve.
  const allowlist = '--mirror-hosts=docker.io,ghcr.io,quay.io,local.quay.io,*.corp.example';
  // And who may pull: the nodes' network and the pull Secret they authenticate with.
  const access = ['--mirror-client-cidrs=10.0.0.0/8,192.168.0.0/16', '--mirror-pull-secret=pull-login'];
  await objects.apply({ ...child('Secret', 'pull-login'), stringData: { username: 'node', password: 'only-the-nodes', htpasswd: 'node:$2y$05$not.a.real.hash' } } as KubeObject);
  controller = startController(['--kubeconfig', plane.kubeconfig, '--kinds', 'registrymirrors', '--leader-election=false', '--http-port', '0', allowlist, ...access], join(dir, 'controller.log'));
}, 120_000);

afterAll(async () => {
  await controller?.stop();
  await provisioner?.stop().catch(() => undefined);
  if (dir) await stopControlPlane(join(dir, 'plane'));
});

describe('RegistryMirror', () => {
  it('waits for its CRD, saying so, and serves mirrors within seconds of its installation', async () => {
    await eventually('the controller to log that it waits for the CRD', async () => (controller.logs().some((l) => l.msg === 'waiting for the CRD to be installed' && l.crd === 'registrymirrors.k8s.osp.tech') ? true : undefined));
    const installed = Date.now();
    await installCrds(objects);
    await eventually('the controller to serve RegistryMirrors', async () => (controller.logs().some((l) => l.msg === 'serving' && l.kind === 'RegistryMirror') ? true : undefined), 10_000);
    expect(Date.now() - installed).toBeLessThan(10_000);
  });

  it('runs the original sample mirror: Ready only when the cache is ready and every node uses it, with its endpoint', async () => {
    await objects.apply(mirror('docker-hub', { upstreamUrl: 'registry-1.docker.io' }));
    const served = await ready(mirror('docker-hub'), 'True', 'Mirroring');
    const status = served.status as Status;
    const service = await objects.get<KubeObject & { spec: { clusterIP: string } }>(child('Service', 'registry-mirror-docker-hub'));
    expect(status).toMatchObject({ endpoint: 'registry-mirror-docker-hub.registry-mirrors.svc:5000', clusterIP: service.spec.clusterIP, cacheReady: true, nodesDesired: 1, nodesConfigured: 1, nodesPending: [] });
    const claim = await objects.get<KubeObject & { status: { phase: string } }>(child('PersistentVolumeClaim', 'registry-mirror-docker-hub-cache'));
    expect(claim.status.phase).toBe('Bound');
    // The administrator's pull access: only the nodes' network reaches the cache, which wants the pull Secret's credentials, which every node sends.
    const policy = await objects.get<KubeObject & { spec: { ingress: unknown[] } }>(child('NetworkPolicy', 'registry-mirror-docker-hub', 'networking.k8s.io/v1'));
    expect(policy.spec.ingress).toEqual([{ from: [{ ipBlock: { cidr: '10.0.0.0/8' } }, { ipBlock: { cidr: '192.168.0.0/16' } }], ports: [{ port: 5000, protocol: 'TCP' }] }]);
    type Workload = KubeObject & { spec: { template: { spec: { containers: { env?: { name: string; value?: string; valueFrom?: unknown }[] }[]; volumes?: unknown[] } } } };
    const cache = await objects.get<Workload>(child('StatefulSet', 'registry-mirror-docker-hub', 'apps/v1'));
    expect(cache.spec.template.spec.containers[0].env).toContainEqual({ name: 'REGISTRY_AUTH_HTPASSWD_PATH', value: '/etc/registry-auth/htpasswd' });
    expect(cache.spec.template.spec.volumes).toContainEqual({ name: 'pull-auth', secret: { secretName: 'pull-login', items: [{ key: 'htpasswd', path: 'htpasswd' }], defaultMode: 0o440 } });
    const nodes = await objects.get<Workload>(child('DaemonSet', 'registry-mirror-docker-hub-utils', 'apps/v1'));
    expect(nodes.spec.template.spec.containers[0].env).toContainEqual({ name: 'PULL_PASSWORD', valueFrom: { secretKeyRef: { name: 'pull-login', key: 'password' } } });
  });

  it('says NodesPending, naming the node, while a node does not run the configuration yet', async () => {
    // A node with room but no kubelet: its configuring pod is bound to it and never starts.
    const resources = { cpu: '8', memory: '32Gi', pods: '110', 'ephemeral-storage': '100Gi' };
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'late-node', labels: { 'kubernetes.io/os': 'linux', 'kubernetes.io/hostname': 'late-node' } }, status: { allocatable: resources, capacity: resources } };
    await objects.create(node as KubeObject);
    await objects.rest.request('PATCH', '/api/v1/nodes/late-node', { body: { spec: { taints: null } }, contentType: 'application/merge-patch+json' });
    const message = '1 of 2 nodes pull through the mirror; pending: late-node';
    const pending = await eventually(`Ready=False NodesPending "${message}"; log ${controller.logFile}`, async () => {
      const current = await objects.get<Resource>(mirror('docker-hub'));
      return readyOf(current)?.reason === 'NodesPending' && readyOf(current)?.message === message ? current : undefined;
    });
    expect((pending.status as Status).nodesPending).toEqual(['late-node']);

    // The node goes away (with no kubelet, its pods are removed by force, as the pod GC would): Ready again.
    await objects.delete(node as KubeObject);
    const pods = await objects.rest.request<{ items: KubeObject[] }>('GET', `/api/v1/namespaces/${MIRRORS}/pods`, { query: { fieldSelector: 'spec.nodeName=late-node' } });
    for (const pod of pods.items) await objects.rest.request('DELETE', `/api/v1/namespaces/${MIRRORS}/pods/${pod.metadata.name}`, { body: { gracePeriodSeconds: 0 } });
    const served = await ready(mirror('docker-hub'), 'True', 'Mirroring');
    expect(served.status).toMatchObject({ nodesDesired: 1, nodesConfigured: 1, nodesPending: [] });
  });

  it('says CredentialsMissing until the referenced Secret exists, without reading its values', async () => {
    const withCredentials = mirror('ghcr', { upstreamUrl: 'ghcr.io', credentialsSecret: 'ghcr-credentials' });
    await objects.apply(withCredentials);
    const missing = await ready(withCredentials, 'False', 'CredentialsMissing');
    expect(readyOf(missing)!.message).toBe('Secret registry-mirrors/ghcr-credentials does not exist; create it with the keys username and password');
    const statefulSet = await objects.get<KubeObject & { spec: { template: { spec: { containers: { env: { name: string; valueFrom?: unknown; value?: string }[] }[] } } } }>(
      child('StatefulSet', 'registry-mirror-ghcr', 'apps/v1'),
    );
    const env = statefulSet.spec.template.spec.containers[0].env;
    expect(env.find((e) => e.name === 'REGISTRY_PROXY_PASSWORD')).toEqual({ name: 'REGISTRY_PROXY_PASSWORD', valueFrom: { secretKeyRef: { name: 'ghcr-credentials', key: 'password' } } });
    // Its owner says which mirror may send it upstream.
    const secret = { ...child('Secret', 'ghcr-credentials'), metadata: { ...child('Secret', 'ghcr-credentials').metadata, annotations: { [CREDENTIALS_FOR]: 'ghcr' } } };
    await objects.create({ ...secret, stringData: { username: 'robot', password: 'not-in-any-log' } } as KubeObject);
    await ready(withCredentials, 'True', 'Mirroring');
    expect(JSON.stringify(controller.logs())).not.toContain('not-in-any-log');
  });

  it('refuses, in status and with no child at all, a mirror that would take over a registry name it may not serve', async () => {
    const daemonSets = async () => (await objects.rest.request<{ items: KubeObject[] }>('GET', `/apis/apps/v1/namespaces/${MIRRORS}/daemonsets`)).items.map((d) => d.metadata.name);
    // Docker Hub's name through an attacker's registry: the upstream is in no allowlist.
    const takeover = mirror('takeover', { upstreamUrl: 'registry.attacker.example', masqueradeUrl: 'docker.io' });
    await objects.apply(takeover);
    const refused = await ready(takeover, 'False', 'HostNotAllowed');
    expect(readyOf(refused)!.message).toMatch(/^spec\.upstreamUrl: registry\.attacker\.example is not in the administrator\u2019s allowlist/);
    // An allowed upstream that masquerades a name another mirror serves: the one created first keeps it.
    const squat = mirror('squat', { upstreamUrl: 'squat.corp.example', masqueradeUrl: 'docker.io' });
    await objects.apply(squat);
    expect(readyOf(await ready(squat, 'False', 'HostTaken'))!.message).toBe(
      'spec.masqueradeUrl: RegistryMirror docker-hub, created earlier, already serves docker.io; one registry name has one mirror',
    );
    const second = mirror('docker-hub-2', { upstreamUrl: 'registry-1.docker.io' });
    await objects.apply(second);
    expect(readyOf(await ready(second, 'False', 'HostTaken'))!.message).toBe(
      'spec.upstreamUrl: RegistryMirror docker-hub, created earlier, already serves docker.io; one registry name has one mirror',
    );
    // The nodes' own critical priority is the cluster's, not a mirror's.
    const critical = mirror('critical', { upstreamUrl: 'critical.corp.example', priorityClass: 'system-node-critical' });
    await objects.apply(critical);
    expect(readyOf(await ready(critical, 'False', 'PriorityClassNotAllowed'))!.message).toMatch(/^spec\.priorityClass: system-node-critical is reserved/);
    // Another mirror's credentials are not sent to this one's upstream.
    const borrower = mirror('borrower', { upstreamUrl: 'borrower.corp.example', credentialsSecret: 'ghcr-credentials' });
    await objects.apply(borrower);
    expect(readyOf(await ready(borrower, 'False', 'CredentialsNotForMirror'))!.message).toBe(
      'spec.credentialsSecret: Secret registry-mirrors/ghcr-credentials does not name this mirror, so its credentials are not sent upstream; its owner annotates it registrymirror.cdk8s-operators.io/mirror=borrower',
    );
    expect((await daemonSets()).sort()).toEqual(['registry-mirror-docker-hub-utils', 'registry-mirror-ghcr-utils']);
    for (const name of ['borrower', 'critical', 'takeover', 'squat', 'docker-hub-2']) {
      for (const kind of ['StatefulSet', 'Service']) expect(await gone(objects, child(kind, `registry-mirror-${name}`, kind === 'Service' ? 'v1' : 'apps/v1'))).toBe(true);
    }
    for (const refusedMirror of [takeover, squat, second, critical, borrower]) await objects.delete(refusedMirror);
  });

  it('puts back a child deleted or edited by hand', async () => {
    await objects.delete(child('Service', 'registry-mirror-docker-hub'));
    await eventually('the Service to be back', async () => ((await gone(objects, child('Service', 'registry-mirror-docker-hub'))) ? undefined : true));
    await objects.rest.request('PATCH', `/apis/apps/v1/namespaces/${MIRRORS}/daemonsets/registry-mirror-docker-hub-utils`, {
      body: { spec: { template: { spec: { terminationGracePeriodSeconds: 1 } } } },
      contentType: 'application/merge-patch+json',
    });
    await eventually('the DaemonSet to be put back', async () => {
      const daemonSet = await objects.get<KubeObject & { spec: { template: { spec: { terminationGracePeriodSeconds?: number } } } }>(child('DaemonSet', 'registry-mirror-docker-hub-utils', 'apps/v1'));
      return daemonSet.spec.template.spec.terminationGracePeriodSeconds !== 1 ? true : undefined;
    });
    await ready(mirror('docker-hub'), 'True', 'Mirroring');
  });

  it('serves the original README\u2019s fields: the claim template shapes the cache claim, the priority class the Pods, the masquerade host the nodes', async () => {
    const readme = mirror('quay', {
      upstreamUrl: 'quay.io',
      masqueradeUrl: 'local.quay.io',
      volumeClaimTemplate: { spec: { storageClassName: 'mirror-cache', resources: { requests: { storage: '20Gi' } } } },
      priorityClass: 'registry-mirror-critical',
    });
    await objects.apply(readme);
    const missing = await ready(readme, 'False', 'PriorityClassMissing');
    expect(readyOf(missing)!.message).toBe(
      'PriorityClass registry-mirror-critical (spec.priorityClass) does not exist, so the API server refuses the mirror\u2019s Pods; create it or change spec.priorityClass',
    );
    await objects.create({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'registry-mirror-critical' }, value: 1_000_000 } as KubeObject);
    const served = await ready(readme, 'True', 'Mirroring');
    expect(served.status).toMatchObject({ masqueradeUrl: 'local.quay.io', cacheReady: true });

    const claim = await objects.get<KubeObject & { spec: Record<string, unknown>; status: { phase: string } }>(child('PersistentVolumeClaim', 'registry-mirror-quay-cache'));
    expect(claim.spec).toMatchObject({ storageClassName: 'mirror-cache', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '20Gi' } } });
    expect(claim.status.phase).toBe('Bound');
    const pods = await objects.rest.request<{ items: (KubeObject & { spec: { priorityClassName?: string; priority?: number } })[] }>('GET', `/api/v1/namespaces/${MIRRORS}/pods`, {
      query: { labelSelector: 'app.kubernetes.io/instance=quay' },
    });
    expect(pods.items.map((p) => (p.metadata.labels as Record<string, string> | undefined)?.['app.kubernetes.io/component']).sort()).toEqual(['cache', 'node-config']);
    for (const pod of pods.items) expect(pod.spec).toMatchObject({ priorityClassName: 'registry-mirror-critical', priority: 1_000_000 });
    const daemonSet = await objects.get<KubeObject & { spec: { template: { spec: { containers: { command: string[] }[] } } } }>(child('DaemonSet', 'registry-mirror-quay-utils', 'apps/v1'));
    expect(daemonSet.spec.template.spec.containers[0].command[2]).toContain("for registry in 'quay.io' 'local.quay.io'; do");

    // A size that is no quantity never reaches the controller: the API server names the field.
    const refused = await objects
      .apply(mirror('quay', { upstreamUrl: 'quay.io', volumeClaimTemplate: { spec: { resources: { requests: { storage: 'lots' } } } } }))
      .then(() => 'accepted', (err: Error) => err.message);
    expect(refused).toContain('spec.volumeClaimTemplate.spec.resources.requests.storage');
    await objects.delete(readme);
  });

  it('takes every child with it when deleted, and frees the cache volume', async () => {
    const claim = await objects.get<KubeObject & { spec: { volumeName: string } }>(child('PersistentVolumeClaim', 'registry-mirror-ghcr-cache'));
    await objects.delete(mirror('ghcr'));
    for (const [kind, name, apiVersion] of [
      ['Service', 'registry-mirror-ghcr', 'v1'],
      ['Service', 'registry-mirror-ghcr-headless', 'v1'],
      ['StatefulSet', 'registry-mirror-ghcr', 'apps/v1'],
      ['DaemonSet', 'registry-mirror-ghcr-utils', 'apps/v1'],
      ['PersistentVolumeClaim', 'registry-mirror-ghcr-cache', 'v1'],
    ]) {
      await eventually(`${kind} ${name} to be collected`, async () => ((await gone(objects, child(kind, name, apiVersion))) ? true : undefined), 60_000);
    }
    const volume: KubeObject = { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: claim.spec.volumeName } };
    await eventually('the cache volume to be freed', async () => ((await gone(objects, volume)) ? true : undefined), 60_000);
    expect(await gone(objects, child('Secret', 'ghcr-credentials'))).toBe(false); // not ours
  });
});
