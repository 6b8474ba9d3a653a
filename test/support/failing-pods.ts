import * as k8s from '@kubernetes/client-node';
import { FAIL_LABEL } from '../../src/testing/controlplane/kwok-stages';
import { isStatus } from '../../src/testing/cluster';

/** The label the Job controller puts on every Pod of a Job. */
const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';

export interface FailingJobs {
  /** The Pods labelled to fail so far, by name. */
  readonly labelled: ReadonlySet<string>;
  /** Fails the Pods of this Job too, from now on. */
  fail(job: string): void;
  /** Lets the Pods of this Job run normally from now on (the ones labelled already still fail). */
  spare(job: string): void;
  stop(): void;
}

/**
 * Fails every Pod of the named Jobs as it appears, the way a crashing container would: a watch
 * of the namespace's Pods labels each with FAIL_LABEL, and the control plane's kwok stage
 * pod-fail (docs/development.md) turns it Failed. For Jobs whose Pod template we do not
 * write, such as an operator's. The watch starts again when the API server ends it.
 */
export async function failJobPods(kc: k8s.KubeConfig, namespace: string, jobs: readonly string[]): Promise<FailingJobs> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const failing = new Set(jobs);
  const labelled = new Set<string>();
  let stopped = false;
  let abort: AbortController | undefined;

  const label = async (pod: k8s.V1Pod) => {
    const name = pod.metadata!.name!;
    const job = pod.metadata?.labels?.[JOB_NAME_LABEL];
    if (!job || !failing.has(job) || pod.metadata?.labels?.[FAIL_LABEL] || pod.metadata?.deletionTimestamp) return;
    await core
      .patchNamespacedPod({ namespace, name, body: { metadata: { labels: { [FAIL_LABEL]: 'true' } } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch))
      .then(() => labelled.add(name))
      .catch((err) => (isStatus(err, 404) ? undefined : console.error(`failJobPods: labelling pod ${namespace}/${name} failed`, err)));
  };
  const watch = async (): Promise<void> => {
    // Without a resourceVersion the watch starts with every existing Pod, so none is missed across restarts.
    abort = await new k8s.Watch(kc).watch(
      `/api/v1/namespaces/${namespace}/pods`,
      { labelSelector: JOB_NAME_LABEL },
      (type, pod: k8s.V1Pod) => void (type === 'ADDED' || type === 'MODIFIED' ? label(pod) : undefined),
      () => void (stopped ? undefined : setTimeout(() => void watch(), 250)),
    );
  };
  await watch();
  return {
    labelled,
    fail: (job) => failing.add(job),
    spare: (job) => failing.delete(job),
    stop: () => {
      stopped = true;
      abort?.abort();
    },
  };
}
