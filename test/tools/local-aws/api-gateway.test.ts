import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createCertificateAuthority, issueCertificate } from '../../../tools/bank-simulator/certificates';
import { httpCall } from '../../../tools/bank-simulator/https-client';
import { LocalApiGateway } from '../../../tools/local-aws/api-gateway';

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
      return Promise.resolve({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"status":"received"}' });
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

it('turns a POST into a REST proxy event with headers as API Gateway passes them, and answers the handler\'s result', async () => {
  const result = await post('prod/payments', { Authorization: 'the-token', 'Content-Type': 'application/json', 'User-Agent': 'bank-notifier/1.0' });
  expect(result.status).toBe(200);
  expect(result.body).toBe('{"status":"received"}');
  const event = seen[seen.length - 1];
  expect(event).toMatchObject({
    resource: '/payments', path: '/payments', httpMethod: 'POST', body: '{"a":1}', isBase64Encoded: false,
    headers: { Authorization: 'the-token', 'Content-Type': 'application/json' },
    multiValueHeaders: { Authorization: ['the-token'] },
    requestContext: { stage: 'prod', resourcePath: '/payments', identity: { sourceIp: '127.0.0.1', userAgent: 'bank-notifier/1.0' } },
  });
  expect(result.headers['x-amzn-requestid']).toBe(event.requestContext.requestId);
  expect(answered).toContainEqual(['payments', 200]);
});

it('answers unknown routes, other stages and other methods with API Gateway\'s 403', async () => {
  for (const [path, method] of [['prod/unknown', 'POST'], ['dev/payments', 'POST'], ['prod/payments', 'GET']] as const) {
    const result = await post(path, {}, method === 'GET' ? '' : '{}', method);
    expect({ path, method, status: result.status, body: result.body }).toEqual({ path, method, status: 403, body: '{"message":"Missing Authentication Token"}' });
  }
});

it('answers 502 when the function throws or runs past its timeout', async () => {
  for (const route of ['broken', 'slow']) {
    const result = await post(`prod/${route}`);
    expect({ route, status: result.status, body: result.body }).toEqual({ route, status: 502, body: '{"message":"Internal server error"}' });
  }
});

it('refuses TLS below 1.2', async () => {
  await expect(httpCall(`${url}payments`, { method: 'POST', body: '{}', trustedCas: [ca.certPem], minTlsVersion: 'TLSv1', maxTlsVersion: 'TLSv1.1' })).rejects.toThrow();
});
