import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { invokeLocally } from './lambda-invoke';
import { readRequestBody } from './json-protocol-server';

export interface ProxyRequest {
  /** The route's resource path, such as `payments`. */
  readonly route: string;
  readonly method?: string;
  /** Header values as received; repeated headers as lists. */
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  readonly body: string | null;
  readonly isBase64Encoded?: boolean;
  readonly sourceIp: string;
  readonly userAgent?: string;
  /** @default a new UUID */
  readonly requestId?: string;
  /** @default 'prod' */
  readonly stage?: string;
  /** @default 'localapi' */
  readonly apiId?: string;
}

/**
 * A REST API (v1) Lambda proxy event as API Gateway builds it for a request: `headers` keeps the
 * last value of a repeated header and `multiValueHeaders` all of them; the request context
 * carries the request id, the stage and the caller's source IP.
 */
export function restProxyEvent(req: ProxyRequest): APIGatewayProxyEvent {
  const stage = req.stage ?? 'prod';
  const method = req.method ?? 'POST';
  const multiValueHeaders = Object.fromEntries(
    Object.entries(req.headers).map(([name, value]) => [name, typeof value === 'string' ? [value] : [...value]]),
  );
  const headers = Object.fromEntries(
    Object.entries(multiValueHeaders).map(([name, list]) => [name, list[list.length - 1]]),
  );
  const userAgent = req.userAgent ?? headers['User-Agent'] ?? headers['user-agent'] ?? null;
  return {
    resource: `/${req.route}`,
    path: `/${req.route}`,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: req.body,
    isBase64Encoded: req.isBase64Encoded ?? false,
    requestContext: {
      accountId: '000000000000',
      apiId: req.apiId ?? 'localapi',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: method,
      path: `/${stage}/${req.route}`,
      stage,
      requestId: req.requestId ?? randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: req.route,
      resourcePath: `/${req.route}`,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: req.sourceIp,
        user: null,
        userAgent,
        userArn: null,
      },
    },
  };
}

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export interface LocalApiGatewayOptions {
  /** Handler of `POST /<stage>/<route>` for each route (`''`: `POST /<stage>`, the API's root). */
  readonly routes: Readonly<Record<string, ProxyHandler>>;
  /** Server certificate and key (PEM), issued for 127.0.0.1. */
  readonly tls: { readonly certPem: string; readonly keyPem: string };
  /** @default 'prod' */
  readonly stage?: string;
  /** The function's timeout: past it the call is answered 502, as API Gateway does. @default 6000 */
  readonly functionTimeoutMs?: number;
  /** Told of every request to a route once answered (for counts, progress and audits). */
  readonly onResponse?: (exchange: ProxyExchange) => void;
  /**
   * The API's `BinaryMediaTypes`, as API Gateway applies them: a body whose Content-Type matches
   * one (`*\/*` matches all) reaches the handler base64-encoded, byte for byte; any other is
   * decoded as UTF-8 text (invalid bytes replaced), as a REST API does.
   * @default none: every body as text
   */
  readonly binaryMediaTypes?: readonly string[];
}

/** Whether a Content-Type matches one of an API's binary media types (`type/subtype`, `type/*`, `*\/*`). */
export function isBinaryMediaType(contentType: string | undefined, binaryMediaTypes: readonly string[]): boolean {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  return binaryMediaTypes.some((pattern) => {
    const p = pattern.replace(/~1/g, '/').toLowerCase();
    if (p === '*/*') return true;
    if (p.endsWith('/*')) return type.startsWith(p.slice(0, -1));
    return type === p;
  });
}

/** One request to a route and its answer, as the front door saw them. */
export interface ProxyExchange {
  readonly route: string;
  readonly status: number;
  /** The request id passed to the handler; absent when no handler ran (unknown route or method). */
  readonly requestId?: string;
  readonly body: string;
  readonly durationMs: number;
}

const MISSING_ROUTE = JSON.stringify({ message: 'Missing Authentication Token' });

/**
 * A local HTTPS front door for the receiver bundle: `POST /<stage>/<route>` becomes a REST proxy
 * event, the handler's answer becomes the HTTP answer, and a handler that throws or times out is
 * answered 502 `{"message": "Internal server error"}`, as API Gateway answers. Anything else gets
 * API Gateway's 403 "Missing Authentication Token". TLS 1.2 or newer, loopback only.
 */
export class LocalApiGateway {
  private server?: Server;
  private stageName: string;

  constructor(private readonly options: LocalApiGatewayOptions) {
    this.stageName = options.stage ?? 'prod';
  }

  /** Listens on 127.0.0.1; returns the stage's base URL, ending with `/`. */
  async start(port = 0): Promise<string> {
    const server = createServer(
      { cert: this.options.tls.certPem, key: this.options.tls.keyPem, minVersion: 'TLSv1.2' },
      (req, res) => {
        void this.handle(req, res);
      },
    );
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    return this.url;
  }

  get url(): string {
    const { port } = this.server!.address() as AddressInfo;
    return `https://127.0.0.1:${port}/${this.stageName}/`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    const raw = await readRequestBody(req);
    const binary = isBinaryMediaType(req.headers['content-type'], this.options.binaryMediaTypes ?? []);
    const requestBody = binary ? raw.toString('base64') : raw.toString('utf8');
    // `POST /<stage>/<route>`, or `POST /<stage>` (route '': the API's root, which the Pix API serves).
    const match = /^\/([^/?]+)(?:\/([^/?]+))?\/?(\?.*)?$/.exec(req.url ?? '');
    const route = match && match[1] === this.stageName ? (match[2] ?? '') : undefined;
    const handler = route !== undefined && req.method === 'POST' ? this.options.routes[route] : undefined;
    let status = 403;
    let body = MISSING_ROUTE;
    let headers: Record<string, string> = { 'content-type': 'application/json' };
    let requestId: string | undefined;
    if (handler && route !== undefined) {
      requestId = randomUUID();
      const received: Record<string, string[]> = {};
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        (received[req.rawHeaders[i]] ??= []).push(req.rawHeaders[i + 1]);
      const event = restProxyEvent({
        route,
        headers: received,
        body: raw.length ? requestBody : null,
        isBase64Encoded: binary && raw.length > 0,
        sourceIp: req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1',
        requestId,
        stage: this.stageName,
      });
      try {
        const result = await invokeLocally(handler, event, {
          functionName: `local-${route}`,
          timeoutMs: this.options.functionTimeoutMs ?? 6_000,
        });
        status = result.statusCode;
        body = result.isBase64Encoded ? Buffer.from(result.body, 'base64').toString('utf8') : result.body;
        headers = {
          ...Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)])),
          'x-amzn-requestid': requestId,
        };
      } catch {
        status = 502;
        body = JSON.stringify({ message: 'Internal server error' });
      }
    }
    res.writeHead(status, headers).end(body);
    if (route || (route === '' && handler))
      this.options.onResponse?.({
        route,
        status,
        requestId,
        body: raw.toString('utf8'),
        durationMs: Date.now() - started,
      });
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
