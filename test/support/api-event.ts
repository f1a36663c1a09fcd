import type { APIGatewayProxyEvent } from 'aws-lambda';

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
  const headers = { 'Content-Type': 'application/json', Host: 'abc123.execute-api.us-east-1.amazonaws.com', 'User-Agent': 'bank-notifier/1.0', ...input.headers };
  const multiValueHeaders = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]]));
  const requestId = input.requestId ?? `req-${counter}-${Date.now()}`;
  return {
    resource: `/${input.route}`,
    path: `/${input.route}`,
    httpMethod: 'POST',
    headers,
    multiValueHeaders,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: input.body === undefined ? null : input.body,
    isBase64Encoded: input.isBase64Encoded ?? false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'abc123',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: 'POST',
      path: `/prod/${input.route}`,
      stage: 'prod',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'res1',
      resourcePath: `/${input.route}`,
      identity: {
        accessKey: null, accountId: null, apiKey: null, apiKeyId: null, caller: null, clientCert: null,
        cognitoAuthenticationProvider: null, cognitoAuthenticationType: null, cognitoIdentityId: null,
        cognitoIdentityPoolId: null, principalOrgId: null, sourceIp: input.sourceIp ?? '203.0.113.10',
        user: null, userAgent: 'bank-notifier/1.0', userArn: null,
      },
    },
  };
}
