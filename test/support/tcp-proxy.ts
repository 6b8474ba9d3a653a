import { AddressInfo, createServer, Socket, connect } from 'node:net';

/** A TCP proxy on 127.0.0.1 between one client and a server, that can cut the client off as a network partition does. */
export interface TcpProxy {
  readonly port: number;
  /** Stops forwarding: bytes in either direction are held, new connections go nowhere, nothing is closed (as a partition looks). */
  partition(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  const sockets = new Set<Socket>();
  let partitioned = false;
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (partitioned) {
      client.pause();
      return;
    }
    const upstream = connect(target.port, target.host);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    client.on('close', () => pairs.delete(pair));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    partition: () => {
      partitioned = true;
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    close: async () => {
      for (const [, upstream] of pairs) upstream.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
