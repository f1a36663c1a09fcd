import { Agent, request, type RequestOptions } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { createSecureContext, rootCertificates } from 'node:tls';
import { errorMessage } from '../shared/runtime';

/** Certificates of a connection: extra trusted CAs, and the client certificate for mutual TLS. */
export interface TlsMaterial {
  /** Extra CA certificates (PEM) trusted besides Node's public roots. */
  readonly caCertificates?: string;
  readonly clientCertificate?: string;
  readonly clientKey?: string;
}

export interface HttpRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Deadline of the whole call: connection, TLS, request and the complete answer. */
  readonly timeoutMs: number;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * What carries a request to the bank and back: HTTPS ({@link HttpsTransport}), or, in the property
 * harness, the simulator called in process.
 */
export interface BankTransport {
  send(req: HttpRequest): Promise<HttpResponse>;
  /** Closes what the transport keeps open (kept-alive connections). */
  close(): void;
}

/** A call that got no HTTP answer: `code` is Node's error code, or TIMEOUT / TOO_LARGE. */
export class NetworkError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'NetworkError';
  }
}

/** Largest answer read; the bank's answers are a few KiB. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * HTTPS calls to the bank over one keep-alive agent per set of certificates, TLS 1.2 or newer,
 * the server's certificate always verified.
 */
export class HttpsTransport implements BankTransport {
  private readonly agent: Agent;

  constructor(tls: TlsMaterial = {}) {
    this.agent = new Agent({
      keepAlive: true,
      maxSockets: 32,
      // One secure context made here, not its parts as agent options: the agent names its
      // connection pool after every option on every request, and naming it after ~150 root
      // certificates cost more CPU than the rest of the call (see docs/performance.md).
      secureContext: createSecureContext({
        minVersion: 'TLSv1.2',
        ca: tls.caCertificates ? [...rootCertificates, tls.caCertificates] : undefined,
        cert: tls.clientCertificate,
        key: tls.clientKey,
      }),
    });
  }

  send(req: HttpRequest): Promise<HttpResponse> {
    const url = new URL(req.url);
    if (url.protocol !== 'https:')
      return Promise.reject(
        new NetworkError(`${req.url} is not an https URL; the bank is only reached over HTTPS`, 'NOT_HTTPS'),
      );
    const options: RequestOptions = {
      method: req.method,
      agent: this.agent,
      headers: {
        ...req.headers,
        ...(req.body !== undefined ? { 'content-length': String(Buffer.byteLength(req.body)) } : {}),
      },
      signal: AbortSignal.timeout(req.timeoutMs),
    };
    return new Promise((resolve, reject) => {
      const fail = (error: NodeJS.ErrnoException): void => {
        if (error.name === 'AbortError' || error.name === 'TimeoutError') {
          reject(new NetworkError(`no complete answer within ${req.timeoutMs} ms`, 'TIMEOUT'));
        } else {
          reject(new NetworkError(error.message, error.code ?? 'NETWORK'));
        }
      };
      const call = request(url, options, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            res.destroy();
            reject(new NetworkError(`answer larger than ${MAX_RESPONSE_BYTES} bytes`, 'TOO_LARGE'));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', fail);
      });
      call.on('error', fail);
      call.end(req.body);
    });
  }

  /** Closes idle connections (tests; a Lambda process just ends). */
  close(): void {
    this.agent.destroy();
  }
}

/** A response's body as JSON, null when empty, or the text itself when it is not JSON. */
export function parseAnswer(response: HttpResponse): unknown {
  if (!response.body.trim()) return null;
  try {
    return JSON.parse(response.body) as unknown;
  } catch {
    return response.body;
  }
}

/** What went wrong with a call that got no answer, for an error message. */
export function describeNetworkError(error: unknown): string {
  if (error instanceof NetworkError)
    return error.code === 'TIMEOUT' ? error.message : `${error.code}: ${error.message}`;
  return errorMessage(error);
}
