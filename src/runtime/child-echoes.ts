import { KubeObject } from '../kube/objects';
import { ChangeType } from './informer';
import { childId } from './ownership';

/**
 * The child-side twin of OwnWrites: our writes of watched children, so that the watch's echo of
 * a write, the child exactly as the write left it (same resourceVersion), queues no owner,
 * whether it comes before the answer or after: the reconcile that wrote it knew all of it
 * already (at 20,000 new objects, half of all reconciles were such echoes). Any other change of
 * the child still queues its owner.
 */
export class ChildEchoes {
  /** Children we are writing, with the watch events of each that arrived meanwhile. */
  private readonly writing = new Map<string, KubeObject[]>();
  /** The resourceVersion our last write of a child gave it, until the watch delivers the child. */
  private readonly echoes = new Map<string, string>();

  /** `changed`: a child's change that is news, to queue its owner. */
  constructor(private readonly changed: (child: KubeObject) => void) {}

  /** Sends our write of a watched child (`send` answers undefined when it wrote nothing); events of it meanwhile wait for the answer. */
  async write<T extends KubeObject | undefined>(child: KubeObject, send: () => Promise<T>): Promise<T> {
    const id = childId(child);
    const arrived: KubeObject[] = [];
    this.writing.set(id, arrived);
    let result: T | undefined;
    try {
      return (result = await send());
    } finally {
      this.writing.delete(id);
      const version = result?.metadata.resourceVersion;
      if (version && !arrived.some((c) => c.metadata.resourceVersion === version)) this.echoes.set(id, version);
      const others = arrived.filter((c) => c.metadata.resourceVersion !== version);
      if (others.length) this.changed(others[others.length - 1]);
    }
  }

  /** A child's watch event: held while our write of it is under way, dropped when it is that write's echo. */
  seen(type: ChangeType, child: KubeObject): void {
    const id = childId(child);
    const arrived = type === 'deleted' ? undefined : this.writing.get(id);
    if (arrived) return void arrived.push(child);
    const echo = this.echoes.get(id);
    if (echo !== undefined) this.echoes.delete(id);
    if (type === 'deleted' || echo !== child.metadata.resourceVersion) this.changed(child);
  }
}
