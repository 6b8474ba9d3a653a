import { k8s } from 'cdk8s-plus-27';
import { restrictedContainerSecurityContext } from '../core/kit/security';

/** The image's user (distroless' nonroot): every Pod that runs the product's image runs as it. */
export const IMAGE_UID = 65532;

export interface ImageContainerProps {
  readonly name: string;
  /** The product's image; the tag is pinned to the release, so it is pulled if not present. */
  readonly image: string;
  /** The command and its flags, e.g. ['controller', ...]. */
  readonly args: string[];
  readonly env?: k8s.EnvVar[];
  /** The port of its HTTP server with /healthz and /readyz, named `http`. */
  readonly port: number;
  /** cpu, memory and ephemeral-storage requests and limits. */
  readonly requests: Record<'cpu' | 'memory' | 'ephemeral-storage', string>;
  readonly limits: Record<'cpu' | 'memory' | 'ephemeral-storage', string>;
}

/** A container of the product's image (controller or UI) under the restricted profile, probed on /healthz and /readyz. */
export function imageContainer(props: ImageContainerProps): k8s.Container {
  const quantities = (values: Record<string, string>) => Object.fromEntries(Object.entries(values).map(([k, v]) => [k, k8s.Quantity.fromString(v)]));
  return {
    name: props.name,
    image: props.image,
    imagePullPolicy: 'IfNotPresent',
    args: props.args,
    ...(props.env ? { env: props.env } : {}),
    ports: [{ name: 'http', containerPort: props.port, protocol: 'TCP' }],
    livenessProbe: { httpGet: { path: '/healthz', port: k8s.IntOrString.fromString('http') }, periodSeconds: 20 },
    readinessProbe: { httpGet: { path: '/readyz', port: k8s.IntOrString.fromString('http') }, periodSeconds: 10 },
    resources: { requests: quantities(props.requests), limits: quantities(props.limits) },
    securityContext: restrictedContainerSecurityContext(IMAGE_UID),
  };
}
