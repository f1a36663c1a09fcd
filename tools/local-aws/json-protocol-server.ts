import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { PemPair } from '../../simulator/certificates';

/** An AWS JSON-protocol error answer: HTTP status, `__type` and message. */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** A loopback endpoint of a local AWS stand-in (HTTP, or HTTPS with `tls`): started on 127.0.0.1, stopped with its connections. */
/** A request's whole body. */
export async function readRequestBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export abstract class LoopbackServer {
  private server?: Server;

  protected constructor(
    protected readonly serviceName: string,
    private readonly tls?: PemPair,
  ) {}

  /** Starts listening on 127.0.0.1 (port 0 picks a free port); returns the endpoint URL. */
  async start(port = 0): Promise<string> {
    const handle = (req: IncomingMessage, res: ServerResponse) => void this.dispatch(req, res);
    this.server = this.tls
      ? createHttpsServer({ key: this.tls.keyPem, cert: this.tls.certPem, minVersion: 'TLSv1.2' }, handle)
      : createServer(handle);
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    return this.endpoint;
  }

  get endpoint(): string {
    const address = this.server?.address() as AddressInfo | undefined;
    if (!address) throw new Error(`The local ${this.serviceName} is not started`);
    return `${this.tls ? 'https' : 'http'}://127.0.0.1:${address.port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  protected abstract dispatch(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/**
 * A loopback HTTP endpoint that speaks an AWS JSON protocol (awsJson1_1): the operation in
 * `X-Amz-Target` as `<prefix>.<Operation>`, a JSON body in and out, errors as `{__type, message}`.
 * Subclasses answer operations in {@link handle}. Not a security boundary.
 */
export abstract class JsonProtocolServer extends LoopbackServer {
  /** When set, every call fails with this HTTP status (simulates an outage). */
  public failWithStatus?: number;
  /** Every call that reached an operation, in order (tests count what a client asked for). */
  readonly calls: Array<{ readonly operation: string; readonly input: Readonly<Record<string, unknown>> }> = [];

  protected constructor(
    private readonly targetPrefix: string,
    serviceName: string,
  ) {
    super(serviceName);
  }

  /** Answers one operation; throw a {@link ServiceError} to answer an error. */
  protected abstract handle(operation: string, input: Record<string, unknown>): unknown;

  protected async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readRequestBody(req);
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(body));
    };
    const operation = String(req.headers['x-amz-target'] ?? '').replace(`${this.targetPrefix}.`, '');
    try {
      if (this.failWithStatus)
        throw new ServiceError(this.failWithStatus, 'InternalException', `Simulated ${this.serviceName} outage`);
      let input: Record<string, unknown>;
      try {
        input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
      } catch {
        throw new ServiceError(400, 'SerializationException', 'Body is not JSON');
      }
      this.calls.push({ operation, input });
      reply(200, this.handle(operation, input));
    } catch (error) {
      if (error instanceof ServiceError) reply(error.status, { __type: error.type, message: error.message });
      else reply(500, { __type: 'InternalException', message: error instanceof Error ? error.message : String(error) });
    }
  }
}
