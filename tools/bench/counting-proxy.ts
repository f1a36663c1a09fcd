import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP proxy on 127.0.0.1 in front of a local AWS stand-in that counts the calls going
 * through it by operation (the JSON protocols' `X-Amz-Target`, such as
 * `DynamoDB_20120810.UpdateItem`), or as `operationOf` names a REST call: what a function costs
 * in AWS requests.
 */
export class CountingProxy {
  readonly counts = new Map<string, number>();
  private server?: Server;

  constructor(private readonly upstream: string, private readonly operationOf: (req: IncomingMessage) => string = (req) => `${req.method} ${req.url}`) {}

  /** Starts listening; resolves with the endpoint to give the functions. */
  async start(): Promise<string> {
    const upstream = new URL(this.upstream);
    this.server = createServer((req, res) => {
      const target = req.headers['x-amz-target'];
      const operation = target ? String(target) : this.operationOf(req);
      this.counts.set(operation, (this.counts.get(operation) ?? 0) + 1);
      const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
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

/** S3's REST calls by method, as the journal makes them (path style, one object a call). */
export const s3Operation = (req: IncomingMessage): string => ({ PUT: 'PutObject', GET: 'GetObject', HEAD: 'HeadObject', DELETE: 'DeleteObject' } as Record<string, string>)[req.method ?? ''] ?? String(req.method);
