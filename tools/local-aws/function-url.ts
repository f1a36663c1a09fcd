/**
 * A Lambda function URL on loopback: HTTPS (a certificate from the caller's CA, as AWS's public
 * one stands for), each request made into the function URL event (payload 2.0) and answered with
 * what the function returns. Not a security boundary.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LambdaFunctionURLEvent, LambdaFunctionURLResult } from 'aws-lambda';
import type { PemPair } from '../../simulator/certificates';
import { LoopbackServer } from './json-protocol-server';

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
  const headers = Object.fromEntries(
    Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : (value ?? '')]),
  );
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
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
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

export class LocalFunctionUrl extends LoopbackServer {
  constructor(
    certificate: PemPair,
    private readonly handler: FunctionUrlHandler,
  ) {
    super('function URL', certificate);
  }

  protected async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const event = functionUrlEvent(req, await readBody(req), this.endpoint.replace(/^https:\/\//, ''));
      const result = await this.handler(event);
      const answer = typeof result === 'string' ? { statusCode: 200, body: result } : result;
      const body =
        answer.body === undefined ? '' : answer.isBase64Encoded ? Buffer.from(answer.body, 'base64') : answer.body;
      res.writeHead(answer.statusCode ?? 200, answer.headers as Record<string, string> | undefined);
      res.end(body);
    } catch (error) {
      // What a function URL answers when the invocation fails.
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ Message: `Internal Server Error (${(error as Error).message})` }));
    }
  }
}
