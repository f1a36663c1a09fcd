/**
 * A Lambda function URL on loopback: HTTPS (a certificate from the caller's CA, as AWS's public
 * one stands for), each request made into the function URL event (payload 2.0) and answered with
 * what the function returns. Not a security boundary.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LambdaFunctionURLEvent, LambdaFunctionURLResult } from 'aws-lambda';
import type { PemPair } from '../../simulator/certificates';

export type FunctionUrlHandler = (event: LambdaFunctionURLEvent) => Promise<LambdaFunctionURLResult>;

const MAX_BODY_BYTES = 6 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('Request body too large (function URLs take 6 MB).');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The function URL event of one request (payload format 2.0). */
export function functionUrlEvent(req: IncomingMessage, body: Buffer, domainName: string): LambdaFunctionURLEvent {
  const url = new URL(req.url ?? '/', `https://${domainName}`);
  const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : value ?? '']));
  const text = /^(application\/(json|x-www-form-urlencoded)|text\/)/i.test(headers['content-type'] ?? '');
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    headers,
    queryStringParameters: url.search ? Object.fromEntries(url.searchParams) : undefined,
    requestContext: {
      accountId: 'anonymous',
      apiId: domainName.split('.')[0],
      domainName,
      domainPrefix: domainName.split('.')[0],
      http: { method: req.method ?? 'GET', path: url.pathname, protocol: 'HTTP/1.1', sourceIp: req.socket.remoteAddress ?? '127.0.0.1', userAgent: headers['user-agent'] ?? '' },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    body: body.length ? (text ? body.toString('utf8') : body.toString('base64')) : undefined,
    isBase64Encoded: body.length > 0 && !text,
  };
}

export class LocalFunctionUrl {
  private server?: Server;

  constructor(private readonly certificate: PemPair, private readonly handler: FunctionUrlHandler) {}

  /** Listens on 127.0.0.1; returns the URL's origin (`https://127.0.0.1:<port>`). */
  async start(): Promise<string> {
    this.server = createServer({ key: this.certificate.keyPem, cert: this.certificate.certPem, minVersion: 'TLSv1.2' }, (req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this.origin;
  }

  get origin(): string {
    const address = this.server?.address() as AddressInfo | undefined;
    if (!address) throw new Error('The local function URL is not started');
    return `https://127.0.0.1:${address.port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const event = functionUrlEvent(req, await readBody(req), this.origin.replace(/^https:\/\//, ''));
      const result = await this.handler(event);
      const answer = typeof result === 'string' ? { statusCode: 200, body: result } : result;
      const body = answer.body === undefined ? '' : answer.isBase64Encoded ? Buffer.from(answer.body, 'base64') : answer.body;
      res.writeHead(answer.statusCode ?? 200, answer.headers as Record<string, string> | undefined);
      res.end(body);
    } catch (error) {
      // What a function URL answers when the invocation fails.
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ Message: `Internal Server Error (${(error as Error).message})` }));
    }
  }
}
