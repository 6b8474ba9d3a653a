import { randomBytes } from 'node:crypto';
import { apiVersionOf, AnyKind, CustomResource } from '../core/kind';
import { KubeRest } from '../kube/rest';
import { microTime } from '../kube/time';
import { Logger } from './log';

export const REPORTING_CONTROLLER = 'cdk8s-operators.io/controller';

/** Records Kubernetes Events (events.k8s.io/v1) about our objects; a failure to record is logged, never fatal. */
export class EventRecorder {
  constructor(
    private readonly rest: KubeRest,
    private readonly kind: AnyKind,
    /** This replica, e.g. the Pod name. */
    private readonly instance: string,
    private readonly log: Logger,
  ) {}

  async record(resource: CustomResource, type: 'Normal' | 'Warning', reason: string, note: string): Promise<void> {
    // Events of a cluster-scoped object live in the default namespace, as kubectl expects.
    const namespace = resource.metadata.namespace ?? 'default';
    const event = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: `${resource.metadata.name}.${Date.now().toString(16)}${randomBytes(2).toString('hex')}`, namespace },
      eventTime: microTime(new Date()),
      reportingController: REPORTING_CONTROLLER,
      reportingInstance: this.instance.slice(0, 128),
      action: 'Reconcile',
      reason,
      note: note.slice(0, 1024),
      type,
      regarding: { apiVersion: apiVersionOf(this.kind), kind: this.kind.kind, name: resource.metadata.name, namespace: resource.metadata.namespace, uid: resource.metadata.uid },
    };
    try {
      await this.rest.request('POST', `/apis/events.k8s.io/v1/namespaces/${namespace}/events`, { body: event });
    } catch (err) {
      this.log.warn('could not record an event', { reason, error: err as Error });
    }
  }
}
