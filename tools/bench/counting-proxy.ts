import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP proxy on 127.0.0.1 in front of a local AWS stand-in that counts the calls going
 * through it by operation (the JSON protocols' `X-Amz-Target`, such as
 * `DynamoDB_20120810.UpdateItem`): what a function costs in AWS requests.
 */
export class CountingProxy {
  readonly counts = new Map<string, number>();
  private server?: Server;

  constructor(private readonly upstream: string) {}

  /** Starts listening; resolves with the endpoint to give the functions. */
  async start(): Promise<string> {
    const target = new URL(this.upstream);
    this.server = createServer((req, res) => {
      const operation = String(req.headers['x-amz-target'] ?? `${req.method} ${req.url}`);
      this.counts.set(operation, (this.counts.get(operation) ?? 0) + 1);
      const forward = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', (error) => {
        res.writeHead(502);
        res.end(error.message);
      });
      req.pipe(forward);
    });
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Calls since the last reset, in total and by operation (the part after the service prefix). */
  take(): { total: number; byOperation: Record<string, number> } {
    const byOperation = Object.fromEntries([...this.counts].map(([name, n]) => [name.split('.').pop()!, n]));
    const total = [...this.counts.values()].reduce((a, b) => a + b, 0);
    this.counts.clear();
    return { total, byOperation };
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
