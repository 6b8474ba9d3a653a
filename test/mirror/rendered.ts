import * as k8s from '@kubernetes/client-node';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CustomResource } from '../../src/core/contract/kind';
import { validateResource } from '../../src/core/contract/validation';
import { Manifest, renderChildren } from '../../src/core/render';
import { registryMirrorKind, RegistryMirrorObservation, RegistryMirrorSpec, RegistryMirrorStatus } from '../../src/kinds/registrymirror';

/** A RegistryMirror's children exactly as the operator renders them, and the pieces the tests run. */
export interface RenderedMirror {
  readonly children: Manifest[];
  /** The cache's registry container of the StatefulSet. */
  readonly cache: k8s.V1Container;
  /** The cache Pod's security context (its uid and gid). */
  readonly cachePodSecurity: k8s.V1PodSecurityContext;
  /** The cache Pod's volumes. */
  readonly cacheVolumes: k8s.V1Volume[];
  /** The node-configuring container of the DaemonSet. */
  readonly nodeConfig: k8s.V1Container;
}

/** Rendered as the controller renders it, with what it observed (e.g. the administrator's pull access); without, as a preview. */
export function renderMirror(name: string, spec: Record<string, unknown>, observation?: RegistryMirrorObservation): RenderedMirror {
  const object = { apiVersion: 'k8s.osp.tech/v1', kind: 'RegistryMirror', metadata: { name }, spec };
  const result = validateResource(registryMirrorKind, object);
  if (!result.ok) throw new Error(`invalid RegistryMirror: ${JSON.stringify(result.errors)}`);
  const mirror: CustomResource<RegistryMirrorSpec, RegistryMirrorStatus> = { ...object, spec: result.spec };
  const children = renderChildren(registryMirrorKind, mirror, observation);
  const podSpec = (kind: string) => {
    const workload = children.find((c) => c.kind === kind);
    if (!workload) throw new Error(`no ${kind} among the rendered children`);
    return (workload.spec as { template: { spec: k8s.V1PodSpec } }).template.spec;
  };
  const cache = podSpec('StatefulSet');
  return { children, cache: cache.containers[0], cachePodSecurity: cache.securityContext ?? {}, cacheVolumes: cache.volumes ?? [], nodeConfig: podSpec('DaemonSet').containers[0] };
}

/**
 * A container's environment as kubelet hands it over: literal values as written, Secret
 * references read from the real API server in `namespace`. A missing Secret or key fails
 * as kubelet would refuse to start the container.
 */
export async function resolveEnv(kc: k8s.KubeConfig, namespace: string, env: k8s.V1EnvVar[]): Promise<Record<string, string>> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const resolved: Record<string, string> = {};
  for (const variable of env) {
    const ref = variable.valueFrom?.secretKeyRef;
    if (variable.value !== undefined) resolved[variable.name] = variable.value;
    else if (ref) {
      const secret = await core.readNamespacedSecret({ namespace, name: ref.name! });
      const data = secret.data?.[ref.key];
      if (data === undefined) throw new Error(`Secret ${namespace}/${ref.name} has no key ${ref.key} for ${variable.name}`);
      resolved[variable.name] = Buffer.from(data, 'base64').toString('utf8');
    } else throw new Error(`${variable.name}: only literal values and Secret references are resolved here`);
  }
  return resolved;
}

/**
 * The cache's Secret volumes as kubelet mounts them into `root`: each item of the real Secret in
 * `namespace` at its mount path, with the volume's mode, owned by root and the Pod's fsGroup.
 */
export async function mountSecretVolumes(kc: k8s.KubeConfig, namespace: string, rendered: RenderedMirror, root: string, fsGroup: number): Promise<void> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  for (const volume of rendered.cacheVolumes.filter((v) => v.secret)) {
    const mount = rendered.cache.volumeMounts?.find((m) => m.name === volume.name);
    if (!mount) continue;
    const secret = await core.readNamespacedSecret({ namespace, name: volume.secret!.secretName! });
    for (const item of volume.secret!.items ?? []) {
      const data = secret.data?.[item.key];
      if (data === undefined) throw new Error(`Secret ${namespace}/${volume.secret!.secretName} has no key ${item.key} for volume ${volume.name}`);
      const file = join(root, mount.mountPath, item.path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, Buffer.from(data, 'base64'));
      chownSync(file, 0, fsGroup);
      chmodSync(file, volume.secret!.defaultMode ?? 0o644);
    }
  }
}
