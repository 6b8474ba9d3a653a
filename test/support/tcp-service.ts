import { createServer, Server, Socket, connect } from 'node:net';

/**
 * What a Service is to the API server, on loopback: one address in front of several replicas'
 * ports, each new connection to the next replica (TLS passes through untouched), a replica that
 * refuses skipped. It counts connections per replica, can drop the open ones (so that the API
 * server's kept-alive connections reach other replicas), and can go away and come back (no
 * endpoints: connections refused).
 */
export class TcpService {
  /** Connections each backend port took. */
  readonly connections = new Map<number, number>();
  private server?: Server;
  private readonly open = new Set<Socket>();
  private next = 0;

  constructor(
    readonly port: number,
    private readonly backends: readonly number[],
  ) {}

  async start(): Promise<void> {
    this.server = createServer((client) => this.forward(client, 0));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.port, '127.0.0.1', resolve);
    });
  }

  /** Stops listening and drops every connection: the API server's next one is refused. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.dropConnections();
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  dropConnections(): void {
    for (const socket of this.open) socket.destroy();
    this.open.clear();
  }

  private forward(client: Socket, tried: number): void {
    const port = this.backends[this.next++ % this.backends.length];
    const backend = connect(port, '127.0.0.1');
    let connected = false;
    backend.once('connect', () => {
      connected = true;
      this.connections.set(port, (this.connections.get(port) ?? 0) + 1);
      for (const socket of [client, backend]) {
        this.open.add(socket);
        socket.once('close', () => this.open.delete(socket));
      }
      client.on('error', () => backend.destroy());
      client.pipe(backend).pipe(client);
    });
    backend.on('error', () => {
      if (connected) client.destroy();
      else if (tried + 1 < this.backends.length) this.forward(client, tried + 1);
      else client.destroy();
    });
  }
}
