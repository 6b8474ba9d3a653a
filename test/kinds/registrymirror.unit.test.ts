import { ApiObject, App, Chart, Testing } from 'cdk8s';
import { CustomResource } from '../../src/core/contract/kind';
import { validateResource } from '../../src/core/contract/validation';
import { childLabels, MAX_LABEL_LENGTH, MAX_NAME_LENGTH, OWNER_NAMESPACE_LABEL } from '../../src/core/kit/names';
import { Manifest, previewChildren, renderChildren } from '../../src/core/render';
import {
  defaultMasqueradeUrl,
  mirrorNames,
  MIRRORS_NAMESPACE,
  registryMirrorKind,
  RegistryMirrorSpec,
  RegistryMirrorStatus,
} from '../../src/kinds/registrymirror';
import { RegistryMirrorCache } from '../../src/kinds/registrymirror/cache';
import { registryMirrorExample } from '../../src/kinds/registrymirror/example';
import { NODE_CERTS_MOUNT, nodeConfigScript, removeCommand } from '../../src/kinds/registrymirror/node-config';
import { CACHE_IMAGE, NODE_CONFIG_IMAGE } from '../../src/kinds/registrymirror/names';

type Mirror = CustomResource<RegistryMirrorSpec, RegistryMirrorStatus>;

function mirror(spec: Record<string, unknown>, name = 'docker-hub'): Mirror {
  const object = { apiVersion: 'k8s.osp.tech/v1', kind: 'RegistryMirror', metadata: { name }, spec };
  const result = validateResource(registryMirrorKind, object);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return { ...object, spec: result.spec };
}

const render = (spec: Record<string, unknown>, name?: string) => renderChildren(registryMirrorKind, mirror(spec, name));
const find = (children: Manifest[], kind: string, name?: string) => {
  const found = children.filter((c) => c.kind === kind && (name === undefined || c.metadata.name === name));
  if (found.length !== 1) throw new Error(`expected one ${kind} ${name ?? ''}, found ${found.length}`);
  return found[0];
};
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const podSpec = (workload: Manifest): Json => (workload.spec as Json).template.spec;
const container = (workload: Manifest): Json => podSpec(workload).containers[0];
const envOf = (workload: Manifest): Json[] => container(workload).env ?? [];

describe('RegistryMirror children', () => {
  const hub = render({ upstreamUrl: 'registry-1.docker.io' });

  it('are the two Services, the cache PVC, the StatefulSet, the DaemonSet and their NetworkPolicies, all in registry-mirrors', () => {
    expect(hub.map((c) => `${c.kind}/${c.metadata.name}`).sort()).toEqual([
      'DaemonSet/registry-mirror-docker-hub-utils',
      'NetworkPolicy/registry-mirror-docker-hub',
      'NetworkPolicy/registry-mirror-docker-hub-utils',
      'PersistentVolumeClaim/registry-mirror-docker-hub-cache',
      'Service/registry-mirror-docker-hub',
      'Service/registry-mirror-docker-hub-headless',
      'StatefulSet/registry-mirror-docker-hub',
    ]);
    for (const child of hub) expect(child.metadata.namespace).toBe(MIRRORS_NAMESPACE);
  });

  it('carry the owner labels of a cluster-scoped owner, without a namespace label', () => {
    const owner = childLabels(registryMirrorKind, mirror({ upstreamUrl: 'registry-1.docker.io' }));
    expect(owner).not.toHaveProperty([OWNER_NAMESPACE_LABEL]);
    for (const child of hub) {
      expect(child.metadata.labels).toMatchObject(owner);
      expect(child.metadata.labels).not.toHaveProperty([OWNER_NAMESPACE_LABEL]);
    }
  });

  it('serve the registry on port 5000, the headless Service governing the StatefulSet, both selecting its Pods', () => {
    const service = find(hub, 'Service', 'registry-mirror-docker-hub');
    const headless = find(hub, 'Service', 'registry-mirror-docker-hub-headless');
    const statefulSet = find(hub, 'StatefulSet');
    const spec = statefulSet.spec as Json;
    expect(service.spec).toMatchObject({ type: 'ClusterIP', ports: [{ port: 5000, targetPort: 'registry' }] });
    expect(headless.spec).toMatchObject({ clusterIP: 'None', ports: [{ port: 5000 }] });
    expect(spec.serviceName).toBe(headless.metadata.name);
    expect(spec.replicas).toBe(1);
    for (const s of [service, headless]) expect((s.spec as Json).selector).toEqual(spec.selector.matchLabels);
    expect(spec.template.metadata.labels).toEqual(spec.selector.matchLabels);
    expect(container(statefulSet)).toMatchObject({ image: CACHE_IMAGE, ports: [{ containerPort: 5000 }] });
    expect(container(statefulSet).readinessProbe).toEqual({ httpGet: { path: '/', port: 5000 }, periodSeconds: 10 });
  });

  it('keep the cache on the standalone PVC, 10Gi ReadWriteOnce by default, mounted at /var/lib/registry', () => {
    const pvc = find(hub, 'PersistentVolumeClaim');
    expect(pvc.spec).toEqual({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } });
    const statefulSet = find(hub, 'StatefulSet');
    expect((statefulSet.spec as Json).volumeClaimTemplates).toBeUndefined();
    expect(podSpec(statefulSet).volumes).toContainEqual({ name: 'cache', persistentVolumeClaim: { claimName: pvc.metadata.name } });
    expect(container(statefulSet).volumeMounts).toContainEqual({ name: 'cache', mountPath: '/var/lib/registry' });
  });

  it('shape the cache claim from spec.volumeClaimTemplate: size, storage class, access modes, labels and annotations', () => {
    const volumeClaimTemplate = {
      metadata: { labels: { team: 'platform' }, annotations: { 'backup.example/skip': 'true' } },
      spec: { storageClassName: 'fast-ssd', accessModes: ['ReadWriteOncePod'], resources: { requests: { storage: '20Gi' } } },
    };
    const pvc = find(render({ upstreamUrl: 'registry-1.docker.io', volumeClaimTemplate }), 'PersistentVolumeClaim');
    expect(pvc.spec).toEqual({ accessModes: ['ReadWriteOncePod'], storageClassName: 'fast-ssd', resources: { requests: { storage: '20Gi' } } });
    expect(pvc.metadata.labels).toMatchObject({ team: 'platform', 'app.kubernetes.io/name': 'registry-mirror' });
    expect(pvc.metadata.annotations).toEqual({ 'backup.example/skip': 'true' });
    expect(pvc.metadata.name).toBe('registry-mirror-docker-hub-cache');
  });

  it('keep 10Gi when the template names only a storage class, as the original\u2019s README did with the size only', () => {
    const classOnly = find(render({ upstreamUrl: 'registry-1.docker.io', volumeClaimTemplate: { spec: { storageClassName: 'standard' } } }), 'PersistentVolumeClaim');
    expect(classOnly.spec).toEqual({ accessModes: ['ReadWriteOnce'], storageClassName: 'standard', resources: { requests: { storage: '10Gi' } } });
    const sizeOnly = find(render({ upstreamUrl: 'registry-1.docker.io', volumeClaimTemplate: { spec: { resources: { requests: { storage: '20Gi' } } } } }), 'PersistentVolumeClaim');
    expect(sizeOnly.spec).toEqual({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '20Gi' } } });
  });

  it('never let the template\u2019s labels replace the ones the Pods and the engine select by', () => {
    const volumeClaimTemplate = { metadata: { labels: { 'app.kubernetes.io/name': 'mine' } }, spec: {} };
    const pvc = find(render({ upstreamUrl: 'registry-1.docker.io', volumeClaimTemplate }), 'PersistentVolumeClaim');
    expect(pvc.metadata.labels!['app.kubernetes.io/name']).toBe('registry-mirror');
  });

  it('give the cache\u2019s and the nodes\u2019 Pods spec.priorityClass, and none without it', () => {
    const withPriority = render({ upstreamUrl: 'registry-1.docker.io', priorityClass: 'system-cluster-critical' });
    for (const kind of ['StatefulSet', 'DaemonSet']) {
      expect(podSpec(find(withPriority, kind)).priorityClassName).toBe('system-cluster-critical');
      expect(podSpec(find(hub, kind))).not.toHaveProperty('priorityClassName');
    }
  });

  it('construct a cache from a spec the API server defaulted', () => {
    const chart = Testing.chart();
    const spec = { upstreamUrl: 'registry-1.docker.io', volumeClaimTemplate: { spec: { resources: { requests: { storage: '50Gi' } } } } };
    new RegistryMirrorCache(chart, 'cache', { names: mirrorNames('hub'), spec });
    const pvc = Testing.synth(chart).find((o) => o.kind === 'PersistentVolumeClaim');
    expect(pvc.spec.resources.requests.storage).toBe('50Gi');
  });

  it('run the cache under the restricted profile, with a writable volume for its uid', () => {
    const statefulSet = find(hub, 'StatefulSet');
    const pod = podSpec(statefulSet);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.securityContext.runAsUser).toBeGreaterThanOrEqual(10000);
    expect(pod.securityContext.runAsGroup).toBeGreaterThanOrEqual(10000);
    expect(pod.securityContext.fsGroup).toBe(pod.securityContext.runAsGroup);
    expect(pod.automountServiceAccountToken).toBe(false);
    const c = container(statefulSet);
    expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] } });
    for (const bound of ['requests', 'limits']) expect(Object.keys(c.resources[bound]).sort()).toEqual(['cpu', 'ephemeral-storage', 'memory']);
  });

  it('point the cache at the upstream over HTTPS and the nodes at the cache', () => {
    const ghcr = render({ upstreamUrl: 'myregistry.example:5443' });
    expect(envOf(find(hub, 'StatefulSet'))).toContainEqual({ name: 'REGISTRY_PROXY_REMOTEURL', value: 'https://registry-1.docker.io' });
    expect(envOf(find(ghcr, 'StatefulSet'))).toContainEqual({ name: 'REGISTRY_PROXY_REMOTEURL', value: 'https://myregistry.example:5443' });
    const script = container(find(ghcr, 'DaemonSet')).command[2];
    expect(script).toContain(`dir="${NODE_CERTS_MOUNT}/$registry"`);
    expect(script).toContain("for registry in 'myregistry.example:5443' 'mirror-myregistry.example:5443'; do");
    expect(container(find(ghcr, 'DaemonSet')).lifecycle.preStop.exec.command).toEqual(['sh', '-c', removeCommand('myregistry.example:5443', 'mirror-myregistry.example:5443')]);
    expect(removeCommand('myregistry.example:5443', 'mirror-myregistry.example:5443')).toContain("for registry in 'myregistry.example:5443' 'mirror-myregistry.example:5443'; do");
  });

  it('let the cache reach DNS, HTTPS and the upstream\u2019s own port, and nothing else', () => {
    const egressPorts = (children: Manifest[]) =>
      ((find(children, 'NetworkPolicy', 'registry-mirror-docker-hub').spec as Json).egress as Json[]).flatMap((rule) => rule.ports.map((p: Json) => `${p.protocol}/${p.port}`));
    expect(egressPorts(hub)).toEqual(['UDP/53', 'TCP/53', 'TCP/443']);
    expect(egressPorts(render({ upstreamUrl: 'myregistry.example:5443' }))).toEqual(['UDP/53', 'TCP/53', 'TCP/443', 'TCP/5443']);
    const utils = find(hub, 'NetworkPolicy', 'registry-mirror-docker-hub-utils').spec as Json;
    expect(utils).toEqual({ podSelector: (find(hub, 'DaemonSet').spec as Json).selector, policyTypes: ['Ingress', 'Egress'] });
  });

  it('log in with the credentials Secret by reference only, and not at all without one', () => {
    const credentialNames = ['REGISTRY_PROXY_USERNAME', 'REGISTRY_PROXY_PASSWORD'];
    expect(envOf(find(hub, 'StatefulSet')).map((e) => e.name)).not.toEqual(expect.arrayContaining([credentialNames[0]]));
    const withLogin = render({ upstreamUrl: 'registry-1.docker.io', credentialsSecret: 'hub-login' });
    const env = envOf(find(withLogin, 'StatefulSet'));
    expect(env.filter((e) => credentialNames.includes(e.name))).toEqual([
      { name: 'REGISTRY_PROXY_USERNAME', valueFrom: { secretKeyRef: { name: 'hub-login', key: 'username' } } },
      { name: 'REGISTRY_PROXY_PASSWORD', valueFrom: { secretKeyRef: { name: 'hub-login', key: 'password' } } },
    ]);
  });

  it('never hold a secret value: no Secret, no credential literal, no user info in a URL', () => {
    const withLogin = render({ upstreamUrl: 'registry-1.docker.io', credentialsSecret: 'hub-login' });
    expect(withLogin.map((c) => c.kind)).not.toContain('Secret');
    for (const workload of withLogin.filter((c) => c.kind === 'StatefulSet' || c.kind === 'DaemonSet')) {
      for (const c of podSpec(workload).containers) {
        for (const e of c.env ?? []) if (/USER|PASS|TOKEN|SECRET/.test(e.name)) expect(e.value).toBeUndefined();
        expect(c.envFrom).toBeUndefined();
      }
    }
    expect(JSON.stringify(withLogin)).not.toMatch(/:\/\/[^/"]*@/);
  });

  it('keep Pod selectors to the owner\u2019s name, so a spec change never needs a new (immutable) selector', () => {
    const other = render({ upstreamUrl: 'quay.io', credentialsSecret: 'quay' });
    for (const kind of ['StatefulSet', 'DaemonSet']) expect((find(other, kind).spec as Json).selector).toEqual((find(hub, kind).spec as Json).selector);
  });

  it('refuse an upstream the schema would not accept rather than put it in a shell script', () => {
    const good = mirror({ upstreamUrl: 'registry-1.docker.io' });
    expect(() => renderChildren(registryMirrorKind, { ...good, spec: { ...good.spec, upstreamUrl: 'x; rm -rf /' } })).toThrow(/spec\.upstreamUrl/);
    expect(() => renderChildren(registryMirrorKind, { ...good, spec: { ...good.spec, masqueradeUrl: "a'; reboot" } })).toThrow(/spec\.masqueradeUrl/);
  });
});

describe('RegistryMirror node configuration DaemonSet', () => {
  const [daemonSet] = render({ upstreamUrl: 'registry-1.docker.io' }).filter((c) => c.kind === 'DaemonSet');
  const pod = podSpec(daemonSet);

  it('is the one root Pod: a hostPath of containerd\u2019s certs.d, otherwise tight', () => {
    expect(pod.volumes).toEqual([{ name: 'certs-d', hostPath: { path: '/etc/containerd/certs.d', type: 'DirectoryOrCreate' } }]);
    expect(pod.securityContext).toEqual({ runAsNonRoot: false, runAsUser: 0, runAsGroup: 0, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.hostNetwork ?? false).toBe(false);
    const c = container(daemonSet);
    // Pinned by digest: a moved tag must not change what runs as root on every node.
    expect(c.image).toBe(NODE_CONFIG_IMAGE);
    expect(c.image).toMatch(/^busybox:1\.37@sha256:[0-9a-f]{64}$/);
    expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, privileged: false, capabilities: { drop: ['ALL'] } });
    for (const bound of ['requests', 'limits']) expect(Object.keys(c.resources[bound]).sort()).toEqual(['cpu', 'ephemeral-storage', 'memory']);
  });

  it('gets the ClusterIP from the variable kubelet sets for the mirror\u2019s Service', () => {
    expect(pod.enableServiceLinks).toBe(true);
    expect(container(daemonSet).command[2]).toContain('${REGISTRY_MIRROR_DOCKER_HUB_SERVICE_HOST:-}');
  });
  // The script itself runs under busybox against containerd's parser in test/mirror/node-config.test.ts.
});

describe('RegistryMirror names', () => {
  const longName = `${'a'.repeat(120)}.${'b'.repeat(132)}`;
  const children = render({ upstreamUrl: 'registry-1.docker.io' }, longName);

  it('stay within the limits for a 253-character owner name, deterministic and distinct', () => {
    expect(longName).toHaveLength(MAX_NAME_LENGTH);
    const limit: Record<string, number> = { Service: MAX_LABEL_LENGTH, StatefulSet: 52, DaemonSet: MAX_LABEL_LENGTH, NetworkPolicy: MAX_NAME_LENGTH, PersistentVolumeClaim: MAX_NAME_LENGTH };
    for (const child of children) {
      expect(child.metadata.name.length).toBeLessThanOrEqual(limit[child.kind]);
      expect(child.metadata.name).toMatch(/^registry-mirror-a+(-b+)?-[0-9a-f]{8}(-headless|-utils|-cache)?$/);
      expect(child.metadata.name).toMatch(/^[a-z]([-a-z0-9]*[a-z0-9])?$/);
      for (const value of Object.values(child.metadata.labels ?? {})) expect(value.length).toBeLessThanOrEqual(MAX_LABEL_LENGTH);
    }
    expect(new Set(children.map((c) => `${c.kind}/${c.metadata.name}`)).size).toBe(children.length);
    expect(render({ upstreamUrl: 'quay.io' }, longName).map((c) => c.metadata.name)).toEqual(children.map((c) => c.metadata.name));
  });

  it('have no dots where a Service name allows none, and stay apart from a dotless twin', () => {
    const dotted = render({ upstreamUrl: 'registry-1.docker.io' }, 'docker.hub');
    const dashed = render({ upstreamUrl: 'registry-1.docker.io' }, 'docker-hub');
    for (const child of dotted) {
      expect(child.metadata.name).toMatch(/^registry-mirror-docker-hub-[0-9a-f]{8}(-headless|-utils|-cache)?$/);
      expect(dashed.map((c) => c.metadata.name)).not.toContain(child.metadata.name);
    }
    expect(find(dotted, 'StatefulSet').metadata.labels).toMatchObject({ 'cdk8s-operators.io/owner-name': 'docker.hub' });
  });

  it('derive the ClusterIP variable from the Service\u2019s real, shortened name', () => {
    const service = find(children, 'Service', mirrorNames(longName).base);
    const variable = `${service.metadata.name.toUpperCase().replaceAll('-', '_')}_SERVICE_HOST`;
    expect(container(find(children, 'DaemonSet')).command[2]).toContain(`\${${variable}:-}`);
    expect(mirrorNames(longName).endpoint).toBe(`${service.metadata.name}.registry-mirrors.svc:5000`);
  });
});

describe('RegistryMirror kind', () => {
  it('installs the registry-mirrors namespace: privileged enforced for the DaemonSet, restricted warned and audited', () => {
    const chart = new Chart(new App(), 'install');
    registryMirrorKind.install!(chart, { operatorNamespace: 'cdk8s-operators' });
    expect(chart.toJson()).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          name: 'registry-mirrors',
          labels: {
            'pod-security.kubernetes.io/enforce': 'privileged',
            'pod-security.kubernetes.io/warn': 'restricted',
            'pod-security.kubernetes.io/warn-version': 'latest',
            'pod-security.kubernetes.io/audit': 'restricted',
            'pod-security.kubernetes.io/audit-version': 'latest',
          },
        },
      },
    ]);
  });

  it('manages exactly the kinds it renders, and reads Secrets and pods of the mirrors\u2019 namespace only, and which PriorityClasses exist', () => {
    const rendered = new Set(render({ upstreamUrl: 'registry-1.docker.io', credentialsSecret: 'hub' }).map((c) => c.kind.toLowerCase()));
    const plural = (kind: string) => `${kind.replace(/y$/, 'ie')}s`;
    const created = registryMirrorKind.manages.filter((p) => p.verbs.includes('create')).flatMap((p) => p.resources);
    expect(created.sort()).toEqual([...rendered].map(plural).sort());
    const readOnly = registryMirrorKind.manages.filter((p) => !p.verbs.includes('create'));
    expect(readOnly).toEqual([
      { apiGroup: '', resources: ['secrets', 'pods'], verbs: ['list', 'watch'], namespace: 'registry-mirrors' },
      // Whether spec.priorityClass exists; nothing else of it is read.
      { apiGroup: 'scheduling.k8s.io', resources: ['priorityclasses'], verbs: ['list', 'watch'] },
    ]);
  });

  it('renders the example\u2019s children as the preview shows them', () => {
    const example = registryMirrorExample(Testing.chart(), 'ignored') as ApiObject;
    const object = example.toJson();
    expect(object.metadata).toEqual({ name: 'docker-hub' });
    const result = validateResource(registryMirrorKind, object);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const preview = previewChildren(registryMirrorKind, object, { withSample: true });
    if (!preview.ok) throw new Error(preview.message);
    // The sample is a mirror served with the install's defaults (anonymous pulls, any peer): the children of no observation.
    expect(preview.sampled).toBe(true);
    expect(preview.children).toEqual(renderChildren(registryMirrorKind, { ...object, spec: result.spec }));
    expect(preview.children).toMatchSnapshot();
  });
});

describe('the registry containerd is pointed at', () => {
  it('is docker.io for Docker Hub, whose images never name registry-1.docker.io', () => {
    const script = nodeConfigScript(mirrorNames('hub'), 'registry-1.docker.io');
    expect(script).toContain("for registry in 'docker.io'; do");
    expect(script).toContain(`echo 'server = "https://registry-1.docker.io"'`);
    expect(removeCommand('registry-1.docker.io')).toContain("for registry in 'docker.io'; do\n  dir=\"/host/certs.d/$registry\"");
  });
  it('is the upstream itself for any other registry', () => {
    expect(nodeConfigScript(mirrorNames('q'), 'quay.io:443')).toContain("for registry in 'quay.io:443'; do");
  });
  it('is also the masquerade host, mirror-<upstreamUrl> by default as in the original, or spec.masqueradeUrl', () => {
    const command = (spec: Record<string, unknown>) => container(find(render(spec), 'DaemonSet')).lifecycle.preStop.exec.command[2];
    expect(command({ upstreamUrl: 'registry-1.docker.io' })).toContain("for registry in 'docker.io' 'mirror-registry-1.docker.io'; do");
    expect(command({ upstreamUrl: 'registry-1.docker.io', masqueradeUrl: 'local.docker.io' })).toContain("for registry in 'docker.io' 'local.docker.io'; do");
    expect(container(find(render({ upstreamUrl: 'quay.io', masqueradeUrl: 'local.quay.io:5000' }), 'DaemonSet')).command[2]).toContain("for registry in 'quay.io' 'local.quay.io:5000'; do");
  });
  it('has no default masquerade host where mirror-<upstreamUrl> would be no host name', () => {
    expect(defaultMasqueradeUrl('registry-1.docker.io')).toBe('mirror-registry-1.docker.io');
    expect(defaultMasqueradeUrl(`${'a'.repeat(60)}.example`)).toBeUndefined();
  });
});
