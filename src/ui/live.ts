import { KubeRest } from '../kube/rest';
import { Informer } from '../runtime/informer';
import { Logger } from '../runtime/log';
import { GuitarObject, guitarsPath, sortGuitars } from './guitars';

/**
 * The guitars of some namespaces (or all), kept current by a watch per scope, for the page's
 * live updates. Listeners hear of every change; they decide how often to pass it on.
 */
export class GuitarFeed {
  private readonly informers: Informer<GuitarObject>[];
  private readonly listeners = new Set<() => void>();

  constructor(rest: KubeRest, namespaces: readonly string[], log: Logger) {
    const scopes = namespaces.length ? namespaces : [undefined];
    this.informers = scopes.map((ns) => new Informer<GuitarObject>(rest, { path: guitarsPath(ns) }, log));
    for (const informer of this.informers) informer.on(() => this.listeners.forEach((listener) => listener()));
  }

  start(): this {
    for (const informer of this.informers) informer.start();
    return this;
  }

  stop(): void {
    for (const informer of this.informers) informer.stop();
    this.listeners.clear();
  }

  get synced(): boolean {
    return this.informers.every((i) => i.hasSynced);
  }

  guitars(): GuitarObject[] {
    return sortGuitars(this.informers.flatMap((i) => [...i.cache.values()]));
  }

  /** Calls `listener` on every change; returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
