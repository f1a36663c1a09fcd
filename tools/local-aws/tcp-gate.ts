import { createServer, type Server, type Socket, connect } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP pass-through on 127.0.0.1 in front of a local service, that can be closed for a while to
 * make the service unreachable without losing what it holds (fauxqs keeps its queues in memory,
 * so stopping it would lose them; a real outage does not). While closed, connections are reset,
 * the way an unreachable endpoint fails.
 */
export class TcpGate {
  private server?: Server;
  private open = true;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly targetPort: number,
    private readonly targetHost = '127.0.0.1',
  ) {}

  /** Listens on a free port of 127.0.0.1; returns the port. */
  async start(): Promise<number> {
    const server = createServer((client) => this.accept(client));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return this.port;
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  /** Whether connections pass. */
  get isOpen(): boolean {
    return this.open;
  }

  /** Makes the service unreachable: open connections and new ones are reset. */
  close(): void {
    this.open = false;
    for (const socket of this.sockets) {
      // A reset while a graceful shutdown is pending (pipe ends one side when the other ends)
      // can leave the native handle referenced, and the process then spins at exit instead of
      // ending: such a socket is destroyed plainly.
      if (socket.writableEnded) socket.destroy();
      else socket.resetAndDestroy();
    }
    this.sockets.clear();
  }

  /** Makes the service reachable again. */
  reopen(): void {
    this.open = true;
  }

  async stop(): Promise<void> {
    this.close();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    if (!this.open) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(this.targetPort, this.targetHost);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  }
}
