import { FastifyReply, FastifyRequest } from 'fastify';
import { ServerResponse } from 'node:http';
import { Informer, KubeRest, Logger } from '../engine/client';
import { GuitarObject, guitarsPath, sortGuitars } from './guitars';
import { guitarRows, summary } from './page';

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

export interface StreamOptions {
  /** How often the rows are sent again although nothing changed (ages move on; proxies see traffic). */
  readonly heartbeatMs: number;
  /** The server's open streams, which its shutdown ends. */
  readonly open: Set<ServerResponse>;
  readonly onClose: () => void;
}

/**
 * Server-sent events for one page: the table's rows, rendered and escaped exactly as on a
 * reload, whenever the feed changes, and every heartbeat.
 */
export function streamRows(req: FastifyRequest, reply: FastifyReply, feed: GuitarFeed, options: StreamOptions): void {
  reply.hijack();
  const res = reply.raw;
  // The security headers the hooks set (CSP and all) go out with the stream too.
  res.writeHead(200, { ...(reply.getHeaders() as Record<string, string>), 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
  options.open.add(res);
  let version = 0;
  let pending: NodeJS.Timeout | undefined;
  const send = () => {
    pending = undefined;
    if (!feed.synced) return void (pending = setTimeout(send, 200));
    const guitars = feed.guitars();
    res.write(`event: guitars\ndata: ${JSON.stringify({ rows: guitarRows(guitars).value, summary: summary(guitars), version: ++version })}\n\n`);
  };
  // A burst of changes (a LIST, a create then its review) becomes one update.
  const soon = () => void (pending ??= setTimeout(send, 150));
  res.write('retry: 3000\n\n');
  const unsubscribe = feed.subscribe(soon);
  const heartbeat = setInterval(soon, options.heartbeatMs);
  soon();
  req.raw.once('close', () => {
    unsubscribe();
    clearInterval(heartbeat);
    clearTimeout(pending);
    options.open.delete(res);
    options.onClose();
  });
}
