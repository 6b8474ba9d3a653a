import * as k8s from '@kubernetes/client-node';
import { CustomResource, validateResource } from '../../src/core/kind';
import { Manifest, renderChildren } from '../../src/core/render';
import { registryMirrorKind, RegistryMirrorSpec, RegistryMirrorStatus } from '../../src/kinds/registrymirror';

/** A RegistryMirror's children exactly as the operator renders them, and the pieces the tests run. */
export interface RenderedMirror {
  readonly children: Manifest[];
  /** The cache's registry container of the StatefulSet. */
  readonly cache: k8s.V1Container;
  /** The cache Pod's security context (its uid and gid). */
  readonly cachePodSecurity: k8s.V1PodSecurityContext;
  /** The node-configuring container of the DaemonSet. */
  readonly nodeConfig: k8s.V1Container;
}

export function renderMirror(name: string, spec: Record<string, unknown>): RenderedMirror {
  const object = { apiVersion: 'k8s.osp.tech/v1', kind: 'RegistryMirror', metadata: { name }, spec };
  const result = validateResource(registryMirrorKind, object);
  if (!result.ok) throw new Error(`invalid RegistryMirror: ${JSON.stringify(result.errors)}`);
  const mirror: CustomResource<RegistryMirrorSpec, RegistryMirrorStatus> = { ...object, spec: result.spec };
  const children = renderChildren(registryMirrorKind, mirror);
  const podSpec = (kind: string) => {
    const workload = children.find((c) => c.kind === kind);
    if (!workload) throw new Error(`no ${kind} among the rendered children`);
    return (workload.spec as { template: { spec: k8s.V1PodSpec } }).template.spec;
  };
  return { children, cache: podSpec('StatefulSet').containers[0], cachePodSecurity: podSpec('StatefulSet').securityContext ?? {}, nodeConfig: podSpec('DaemonSet').containers[0] };
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
