import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createCertificateAuthority, issueCertificate } from '../../../simulator/certificates';
import { httpCall } from '../../../simulator/https-client';
import { isBinaryMediaType, LocalApiGateway } from '../../../tools/local-aws/api-gateway';

const ca = createCertificateAuthority('api-gateway test CA');
const tls = issueCertificate(ca, { commonName: '127.0.0.1', hosts: ['127.0.0.1', 'localhost'] });
const seen: APIGatewayProxyEvent[] = [];
const answered: Array<[string, number]> = [];
const gateway = new LocalApiGateway({
  tls,
  functionTimeoutMs: 300,
  onResponse: ({ route, status }) => answered.push([route, status]),
  routes: {
    payments: (event) => {
      seen.push(event);
      return Promise.resolve({
        statusCode: 200,
        headers: { 'content-type': 'application/json' },
        body: '{"status":"received"}',
      });
    },
    broken: () => Promise.reject(new Error('crash')),
    slow: () => new Promise((resolve) => setTimeout(() => resolve({ statusCode: 200, body: '' }), 2_000).unref()),
  },
});
let url: string;

beforeAll(async () => {
  url = await gateway.start();
});
afterAll(() => gateway.stop());

const post = (path: string, headers: Record<string, string> = {}, body = '{"a":1}', method = 'POST') =>
  httpCall(url.replace(/prod\/$/, '') + path, { method, headers, body, trustedCas: [ca.certPem] });

it("turns a POST into a REST proxy event with headers as API Gateway passes them, and answers the handler's result", async () => {
  const result = await post('prod/payments', {
    Authorization: 'the-token',
    'Content-Type': 'application/json',
    'User-Agent': 'bank-notifier/1.0',
  });
  expect(result.status).toBe(200);
  expect(result.body).toBe('{"status":"received"}');
  const event = seen[seen.length - 1];
  expect(event).toMatchObject({
    resource: '/payments',
    path: '/payments',
    httpMethod: 'POST',
    body: '{"a":1}',
    isBase64Encoded: false,
    headers: { Authorization: 'the-token', 'Content-Type': 'application/json' },
    multiValueHeaders: { Authorization: ['the-token'] },
    requestContext: {
      stage: 'prod',
      resourcePath: '/payments',
      identity: { sourceIp: '127.0.0.1', userAgent: 'bank-notifier/1.0' },
    },
  });
  expect(result.headers['x-amzn-requestid']).toBe(event.requestContext.requestId);
  expect(answered).toContainEqual(['payments', 200]);
});

it("answers unknown routes, other stages and other methods with API Gateway's 403", async () => {
  for (const [path, method] of [
    ['prod/unknown', 'POST'],
    ['dev/payments', 'POST'],
    ['prod/payments', 'GET'],
  ] as const) {
    const result = await post(path, {}, method === 'GET' ? '' : '{}', method);
    expect({ path, method, status: result.status, body: result.body }).toEqual({
      path,
      method,
      status: 403,
      body: '{"message":"Missing Authentication Token"}',
    });
  }
});

it('answers 502 when the function throws or runs past its timeout', async () => {
  for (const route of ['broken', 'slow']) {
    const result = await post(`prod/${route}`);
    expect({ route, status: result.status, body: result.body }).toEqual({
      route,
      status: 502,
      body: '{"message":"Internal server error"}',
    });
  }
});

it('refuses TLS below 1.2', async () => {
  await expect(
    httpCall(`${url}payments`, {
      method: 'POST',
      body: '{}',
      trustedCas: [ca.certPem],
      minTlsVersion: 'TLSv1',
      maxTlsVersion: 'TLSv1.1',
    }),
  ).rejects.toThrow();
});

describe('binary media types', () => {
  const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0xc3, 0x28, 0x7d]);

  it('passes a body whose Content-Type matches BinaryMediaTypes base64-encoded, byte for byte, as API Gateway does', async () => {
    const binarySeen: APIGatewayProxyEvent[] = [];
    const binary = new LocalApiGateway({
      tls,
      binaryMediaTypes: ['*/*'],
      routes: {
        payments: (event) => {
          binarySeen.push(event);
          return Promise.resolve({ statusCode: 200, body: '' });
        },
      },
    });
    const base = await binary.start();
    try {
      await httpCall(`${base}payments`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: bytes,
        trustedCas: [ca.certPem],
      });
      expect(binarySeen[0]).toMatchObject({ isBase64Encoded: true });
      expect(Buffer.from(binarySeen[0].body!, 'base64')).toEqual(bytes);
    } finally {
      await binary.stop();
    }
  });

  it('without them, passes the body as text with the bytes that are not UTF-8 replaced (why the construct sets */*)', async () => {
    await httpCall(`${url}payments`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: bytes,
      trustedCas: [ca.certPem],
    });
    const event = seen[seen.length - 1];
    expect(event.isBase64Encoded).toBe(false);
    expect(Buffer.from(event.body!, 'utf8')).not.toEqual(bytes);
  });

  it('matches media types as API Gateway does', () => {
    expect(isBinaryMediaType('application/json; charset=utf-8', ['*/*'])).toBe(true);
    expect(isBinaryMediaType('application/octet-stream', ['application/*'])).toBe(true);
    expect(isBinaryMediaType('text/plain', ['application/*', 'image~1png'])).toBe(false);
    expect(isBinaryMediaType('image/png', ['image~1png'])).toBe(true);
    expect(isBinaryMediaType(undefined, ['application/json'])).toBe(false);
  });
});
