import { randomBytes } from 'node:crypto';
import { apiVersionOf, AnyKind, CustomResource } from '../core/kind';
import { KubeRest } from '../kube/rest';
import { microTime } from '../kube/time';
import { Logger } from './log';

export const REPORTING_CONTROLLER = 'cdk8s-operators.io/controller';

/**
 * Records Kubernetes Events (events.k8s.io/v1) about our objects; a failure to record is logged,
 * never fatal. Like client-go's recorder it sends them in the background: a reconcile does not
 * wait for its Event, so the next object need not either.
 */
export class EventRecorder {
  private readonly sending = new Set<Promise<void>>();

  constructor(
    private readonly rest: KubeRest,
    private readonly kind: AnyKind,
    /** This replica, e.g. the Pod name. */
    private readonly instance: string,
    private readonly log: Logger,
  ) {}

  record(resource: CustomResource, type: 'Normal' | 'Warning', reason: string, note: string): void {
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
    const sent = this.rest
      .request('POST', `/apis/events.k8s.io/v1/namespaces/${namespace}/events`, { body: event })
      .then(
        () => undefined,
        (err: Error) => this.log.warn('could not record an event', { reason, error: err }),
      )
      .finally(() => this.sending.delete(sent));
    this.sending.add(sent);
  }

  /** Resolves once every Event recorded so far has been sent (or has failed). */
  async flush(): Promise<void> {
    await Promise.all(this.sending);
  }
}
