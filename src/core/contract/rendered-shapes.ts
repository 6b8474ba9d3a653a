/**
 * What a kind's children may look like, declared beside the access it needs (`manages`): the
 * install's admission policy lets the controller write nothing else (src/bundle/controller-policy.ts),
 * so that its token, which may create workloads and Secrets in every namespace, cannot be used
 * for more than the kinds render. What no kind declares is refused: Secrets of type
 * `kubernetes.io/service-account-token`, privileged containers, added capabilities, host
 * namespaces and ports, hostPath volumes, other ServiceAccounts and other images.
 */
export interface RenderedShapes {
  /**
   * The image repositories its Pod templates run, each with any tag or digest: `busybox` admits
   * `busybox:1.37`, `busybox@sha256:...` and `docker.io/library/busybox:1.37`. An install may add
   * more (`extraImages`), e.g. where a kind's spec names an image.
   */
  readonly images?: readonly string[];
  /** ServiceAccounts its Pod templates run as (and the only ones it may create); without them a Pod runs as its namespace's `default`. */
  readonly serviceAccounts?: readonly string[];
  /** Pod templates that reach the node: none unless declared here, each as narrow as it can be. */
  readonly hostAccess?: readonly HostAccess[];
}

/** A workload whose Pods may mount paths of the node (the only host access a kind may declare). */
export interface HostAccess {
  /** The workload resource of group apps or batch, or `pods`, e.g. `daemonsets`. */
  readonly resource: 'daemonsets' | 'deployments' | 'statefulsets' | 'jobs' | 'cronjobs' | 'pods';
  /** Only in this namespace. */
  readonly namespace: string;
  /** hostPath volumes of exactly these paths. */
  readonly hostPaths: readonly string[];
  /** Why the kind needs it, for the docs and the policy's message. */
  readonly reason: string;
}

/** The name of an image without its tag or digest: `registry:2` is `registry`, `host:5000/a/b@sha256:...` is `host:5000/a/b`. */
export function imageRepository(image: string): string {
  const withoutDigest = image.split('@')[0];
  return withoutDigest.replace(/:[^:/]+$/, '');
}
