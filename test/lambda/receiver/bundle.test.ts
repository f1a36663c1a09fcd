/**
 * The receiver bundle exactly as deployed (dist/handlers/receiver/index.js), configured through
 * the settings the construct writes, against fauxqs and a local Secrets Manager.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { decodeStoredNotification } from '../../../lambda/store/stored-notification';
import { LocalSecretsManager } from '../../../tools/local-aws/secrets-manager-server';
import { apiEvent } from '../../support/api-event';
import { resolveLocalhostSubdomains, TEST_AWS } from '../../support/aws-env';
import { createQueueWithDlq, drainQueue, type Fauxqs, startFauxqs } from '../../../tools/local-aws/fauxqs';
import { type ApiHandler, captureOutput, jsonLogLines, loadHandlerBundle } from '../../support/load-handler';
import { receiverEnvironment, type ReceiverResources } from '../../../lib/endpoint/receiver-settings';

const TOKEN_A = 'RotationTokenAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1';
const TOKEN_B = 'RotationTokenBbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2';
const BOLETO_TOKEN = 'BundleBoletoTokenCccccccccccccccccccccccccccccccccccccccccccccc3';
const BODY = JSON.stringify({ idTransacao: 'tx-bundle-1', status: 'EFETIVADO', valorPagamento: '10.00' });
const CACHE_TTL_MS = 1_000;

let fauxqs: Fauxqs;
let restoreDns: () => void;
let secretsManager: LocalSecretsManager;
let sqs: SQSClient;
let queueUrl: string;
let paymentsArn: string;
let env: Record<string, string>;
let resources: ReceiverResources;
let handler: ApiHandler;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pay = (token: string, requestId?: string) =>
  handler(apiEvent({ route: 'payments', headers: { Authorization: token }, body: BODY, requestId }));

beforeAll(async () => {
  restoreDns = resolveLocalhostSubdomains();
  fauxqs = await startFauxqs();
  secretsManager = new LocalSecretsManager();
  const secretsEndpoint = await secretsManager.start();
  paymentsArn = secretsManager.createSecret('bundle-payments-token', TOKEN_A);
  const boletoTokenSecretArn = secretsManager.createSecret('bundle-boleto-token', BOLETO_TOKEN);
  sqs = fauxqs.client();
  ({ queueUrl } = await createQueueWithDlq(sqs, 'receiver-bundle'));
  env = {
    AWS_REGION: TEST_AWS.region,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_ENDPOINT_URL_SQS: fauxqs.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsEndpoint,
    ...receiverEnvironment((resources = { queueUrl, paymentsTokenSecretArn: paymentsArn, boletoTokenSecretArn }), {
      tokenCacheTtlMs: CACHE_TTL_MS,
    }),
  };
  handler = loadHandlerBundle('receiver', env);
});

afterAll(async () => {
  sqs?.destroy();
  await fauxqs?.stop();
  await secretsManager?.stop();
  restoreDns?.();
});

it('stores a valid notification and logs structured JSON without the token', async () => {
  const { result, output } = await captureOutput(async () => [
    await pay(TOKEN_A, 'bundle-ok'),
    await pay('wrong-token-value-123', 'bundle-bad'),
  ]);

  expect(result.map((r) => r.statusCode)).toEqual([200, 401]);
  const messages = await drainQueue(sqs, queueUrl);
  expect(messages.map((m) => decodeStoredNotification(m.Body!).body.toString())).toEqual([BODY]);
  const lines = jsonLogLines(output);
  expect(lines).toEqual(
    expect.arrayContaining([
      // A stored notification is one line: its metric, with the request's ids.
      expect.objectContaining({
        message: 'Notification stored',
        requestId: 'bundle-ok',
        Route: 'payments',
        NotificationsStored: 1,
        messageId: messages[0].MessageId,
        bodyBytes: String(Buffer.byteLength(BODY)),
      }),
      expect.objectContaining({
        level: 'WARN',
        message: 'Rejected a request without a valid token',
        requestId: 'bundle-bad',
        reason: 'token mismatch',
      }),
    ]),
  );
  // Embedded-metric-format lines count the outcome per route.
  expect(output).toContain('"UnauthorizedRequests"');
  expect(output).toContain('"NotificationsStored"');
  expect(output).not.toContain(TOKEN_A);
  expect(output).not.toContain('wrong-token-value-123');
});

it('accepts the pending token during a rotation and rejects the retired one after it', async () => {
  const { output } = await captureOutput(async () => {
    expect((await pay(TOKEN_A)).statusCode).toBe(200);

    // Rotation starts: the new value is AWSPENDING and is registered with the bank.
    secretsManager.putValue(paymentsArn, TOKEN_B, ['AWSPENDING']);
    await sleep(CACHE_TTL_MS + 100);
    expect((await pay(TOKEN_B)).statusCode).toBe(200);
    expect((await pay(TOKEN_A)).statusCode).toBe(200);

    // Rotation finishes: B is AWSCURRENT, A is AWSPREVIOUS (retired).
    secretsManager.finishRotation(paymentsArn);
    await sleep(CACHE_TTL_MS + 100);
    expect((await pay(TOKEN_B)).statusCode).toBe(200);
    expect((await pay(TOKEN_A)).statusCode).toBe(401);
  });
  expect((await drainQueue(sqs, queueUrl)).length).toBe(4);
  expect(output).not.toContain(TOKEN_A);
  expect(output).not.toContain(TOKEN_B);
});

it('keeps accepting the bank with the values loaded earlier while Secrets Manager is down', async () => {
  expect((await pay(TOKEN_B)).statusCode).toBe(200);
  secretsManager.failWithStatus = 500;
  try {
    await sleep(CACHE_TTL_MS + 100);
    const { result, output } = await captureOutput(async () => [
      await pay(TOKEN_B, 'bundle-sm-down'),
      await pay(TOKEN_A, 'bundle-sm-down-retired'),
    ]);
    expect(result.map((r) => r.statusCode)).toEqual([200, 401]);
    expect(jsonLogLines(output)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: 'WARN', message: 'Token reload failed; using the values loaded earlier' }),
      ]),
    );
    expect(output).not.toContain(TOKEN_B);
  } finally {
    secretsManager.failWithStatus = undefined;
  }
  expect((await drainQueue(sqs, queueUrl)).length).toBe(2);
});

describe('when SQS cannot take the message', () => {
  let blackHole: Server;
  const sockets: Socket[] = [];

  afterAll(async () => {
    sockets.forEach((socket) => socket.destroy());
    await new Promise((resolve) => blackHole?.close(resolve));
  });

  it('answers 503 when SQS accepts connections but never answers (the enqueue budget ends the wait)', async () => {
    blackHole = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const port = (blackHole.address() as { port: number }).port;
    const hanging = loadHandlerBundle('receiver', {
      ...env,
      AWS_ENDPOINT_URL_SQS: `http://127.0.0.1:${port}`,
      ...receiverEnvironment(
        { ...resources, queueUrl: `http://127.0.0.1:${port}/000000000000/receiver-bundle` },
        { tokenCacheTtlMs: CACHE_TTL_MS, enqueueBudgetMs: 1500 },
      ),
    });
    const { result, output } = await captureOutput(() =>
      hanging(
        apiEvent({ route: 'payments', headers: { Authorization: TOKEN_B }, body: BODY, requestId: 'bundle-hang' }),
      ),
    );
    expect(result.statusCode).toBe(503);
    expect(output).toContain('Could not store an authenticated notification in SQS within the budget');
    expect(output).toContain('bundle-hang');
  });

  it('answers 503, never 200, when SQS is down, and logs an error with the request id', async () => {
    await fauxqs.stop();
    const { result, output } = await captureOutput(() => pay(TOKEN_B, 'bundle-sqs-down'));

    expect(result.statusCode).toBe(503);
    expect(JSON.parse(result.body)).toEqual({
      message: 'Temporarily unable to store the notification',
      requestId: 'bundle-sqs-down',
    });
    const error = jsonLogLines(output).find((line) => line.level === 'ERROR');
    expect(error).toMatchObject({ requestId: 'bundle-sqs-down', route: 'payments' });
    expect(output).not.toContain(TOKEN_B);
  });
});
