import { apiVersionOf, AnyKind, CustomResource } from '../core/contract/kind';
import { objectKey } from '../kube/objects';
import { EVENTS, resourcePath } from '../kube/paths';
import { KubeRest } from '../kube/rest';
import { microTime } from '../kube/time';
import { Logger } from './log';
import { redactSecretValues } from './secret-values';

/**
 * Records Kubernetes Events (events.k8s.io/v1) about our objects; a failure to record is logged,
 * never fatal. Like client-go's recorder it sends them in the background: a reconcile does not
 * wait for its Event, so the next object need not either.
 */
export class EventRecorder {
  private readonly sending = new Set<Promise<void>>();
  /** What recordOnce recorded, by object key, for the object of that uid. */
  private readonly recorded = new Map<string, { uid?: string; events: Set<string> }>();

  constructor(
    private readonly rest: KubeRest,
    private readonly kind: AnyKind,
    /** This replica, e.g. the Pod name. */
    private readonly instance: string,
    private readonly log: Logger,
    /** The operator's (OperatorNames.reportingController): `kubectl get events` tells two operators apart. */
    private readonly reportingController: string,
  ) {}

  record(resource: CustomResource, type: 'Normal' | 'Warning', reason: string, note: string): void {
    // Events of a cluster-scoped object live in the default namespace, as kubectl expects.
    const namespace = resource.metadata.namespace ?? 'default';
    const event = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: `${resource.metadata.name}.${Date.now().toString(16)}${uniqueSuffix()}`, namespace },
      eventTime: microTime(new Date()),
      reportingController: this.reportingController,
      reportingInstance: this.instance.slice(0, 128),
      action: 'Reconcile',
      reason,
      // No Event shows a value of a Secret this process read or wrote, whoever wrote its note.
      note: redactSecretValues(note).slice(0, 1024),
      type,
      regarding: { apiVersion: apiVersionOf(this.kind), kind: this.kind.kind, name: resource.metadata.name, namespace: resource.metadata.namespace, uid: resource.metadata.uid },
    };
    const sent = this.rest
      .request('POST', resourcePath(EVENTS, { namespace }), { body: event })
      .then(
        () => undefined,
        (err: Error) => this.log.warn('could not record an event', { reason, error: err }),
      )
      .finally(() => this.sending.delete(sent));
    this.sending.add(sent);
  }

  /** Records the Event unless this object (this uid) already got one of the same type, reason and note; says whether it did. */
  recordOnce(resource: CustomResource, type: 'Normal' | 'Warning', reason: string, note: string): boolean {
    const key = objectKey(resource);
    let seen = this.recorded.get(key);
    if (seen?.uid !== resource.metadata.uid) this.recorded.set(key, (seen = { uid: resource.metadata.uid, events: new Set() }));
    const event = JSON.stringify([type, reason, note]);
    if (seen!.events.has(event)) return false;
    seen!.events.add(event);
    this.record(resource, type, reason, note);
    return true;
  }

  /** The object is gone: what recordOnce remembers of it goes too. */
  forget(key: string): void {
    this.recorded.delete(key);
  }

  /** Resolves once every Event recorded so far has been sent (or has failed). */
  async flush(): Promise<void> {
    await Promise.all(this.sending);
  }
}

/**
 * Four hex digits that keep two Events of one object in the same millisecond apart. Not
 * secret, so Math.random: crypto's randomBytes per Event was 1% of the controller's CPU (profiled).
 */
function uniqueSuffix(): string {
  return Math.floor(Math.random() * 0x10000)
    .toString(16)
    .padStart(4, '0');
}
