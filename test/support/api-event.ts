import type { APIGatewayProxyEvent } from 'aws-lambda';
import { restProxyEvent } from '../../tools/local-aws/api-gateway';

export interface ApiEventInput {
  /** payments, boleto, or any other path (to test unknown routes). */
  readonly route: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | null;
  readonly isBase64Encoded?: boolean;
  readonly sourceIp?: string;
  readonly requestId?: string;
}

let counter = 0;

/** A REST API (v1) Lambda proxy event as API Gateway sends it for `POST /<route>`. */
export function apiEvent(input: ApiEventInput): APIGatewayProxyEvent {
  counter += 1;
  return restProxyEvent({
    route: input.route,
    headers: {
      'Content-Type': 'application/json',
      Host: 'abc123.execute-api.us-east-1.amazonaws.com',
      'User-Agent': 'bank-notifier/1.0',
      ...input.headers,
    },
    body: input.body === undefined ? null : input.body,
    isBase64Encoded: input.isBase64Encoded,
    sourceIp: input.sourceIp ?? '203.0.113.10',
    requestId: input.requestId ?? `req-${counter}-${Date.now()}`,
    apiId: 'abc123',
  });
}
