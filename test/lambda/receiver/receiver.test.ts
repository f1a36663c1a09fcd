import { type Message, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { handleNotification, type ReceiverDeps } from '../../../lambda/receiver/receiver';
import { receiverSqsClientConfig } from '../../../lambda/shared/runtime';
import { TokenCache } from '../../../lambda/receiver/token-cache';
import { decodeStoredNotification, encodeStoredNotification } from '../../../lambda/store/stored-notification';
import { ReceiverDefaults, SQS_MAX_MESSAGE_BYTES } from '../../../contracts/receiver';
import { loadStageToken } from '../../../lambda/shared/secret-tokens';
import { LocalSecretsManager } from '../../../tools/local-aws/secrets-manager-server';
import { apiEvent } from '../../support/api-event';
import { resolveLocalhostSubdomains, TEST_AWS } from '../../support/aws-env';
import { createQueueWithDlq, drainQueue, type Fauxqs, startFauxqs } from '../../../tools/local-aws/fauxqs';
import { RecordingLogger } from '../../support/recording-logger';

const PAYMENTS_TOKEN = 'PayTok3nAbcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQR';
const BOLETO_TOKEN = 'BoletoTok3nZyxwvutsrqponmlkjihgfedcba9876543210ZYXWVUTSRQPONM';
const PIX_NOTIFICATION = JSON.stringify({
  idTransacao: 'tx-2025-0001',
  status: 'EFETIVADO',
  valorPagamento: '250.75',
  dataPagamento: '2025-06-03T14:05:09',
  chavePix: 'financeiro@example.com',
  endToEnd: 'E00000000202506031405abcdef123456',
});
const BOLETO_NOTIFICATION = JSON.stringify({
  agencia: '0101',
  posto: '02',
  beneficiario: '54321',
  nossoNumero: '231004567',
  dataEvento: [2025, 6, 3, 14, 5, 9, 120000000],
  movimento: 'LIQUIDACAO_PIX',
  valorLiquidacao: '250.75',
  idEventoWebhook: 'evt-0001',
});

let fauxqs: Fauxqs;
let restoreDns: () => void;
let secretsManager: LocalSecretsManager;
let sqs: SQSClient;
let queueUrl: string;
let logger: RecordingLogger;
let counted: string[];
let deps: ReceiverDeps;
let secrets: SecretsManagerClient;

beforeAll(async () => {
  restoreDns = resolveLocalhostSubdomains();
  fauxqs = await startFauxqs();
  secretsManager = new LocalSecretsManager();
  const secretsEndpoint = await secretsManager.start();
  const paymentsArn = secretsManager.createSecret('payments-token', PAYMENTS_TOKEN);
  const boletoArn = secretsManager.createSecret('boleto-token', BOLETO_TOKEN);
  sqs = fauxqs.client(receiverSqsClientConfig(ReceiverDefaults.enqueueBudgetMs));
  ({ queueUrl } = await createQueueWithDlq(sqs, 'receiver-matrix'));
  secrets = new SecretsManagerClient({ ...TEST_AWS, endpoint: secretsEndpoint });
  deps = {
    settings: {
      queueUrl,
      paymentsTokenSecretArn: paymentsArn,
      boletoTokenSecretArn: boletoArn,
      boletoTokenHeader: 'X-Webhook-Token',
      receiverName: 'r',
      maxBodyBytes: 1024,
      tokenCacheTtlMs: 60_000,
      enqueueBudgetMs: ReceiverDefaults.enqueueBudgetMs,
    },
    sqs,
    tokens: new TokenCache({
      load: (arn, stage) => loadStageToken(secrets, arn, stage, 2_000),
      ttlMs: 60_000,
      mismatchRefreshIntervalMs: 5_000,
    }),
    get logger() {
      return logger;
    },
    count: (name, route) => counted.push(`${name}:${route}`),
  };
});

afterAll(async () => {
  sqs?.destroy();
  await fauxqs?.stop();
  await secretsManager?.stop();
  restoreDns?.();
});

beforeEach(async () => {
  logger = new RecordingLogger();
  counted = [];
  await drainQueue(sqs, queueUrl);
});

async function stored(): Promise<Message[]> {
  return drainQueue(sqs, queueUrl);
}

function storedBody(message: Message): string {
  return decodeStoredNotification(message.Body!).body.toString('utf8');
}

describe('authenticated notifications are stored exactly as received', () => {
  it('stores a payments call with the payment callback token and answers 200', async () => {
    const result = await handleNotification(
      apiEvent({
        route: 'payments',
        headers: { Authorization: PAYMENTS_TOKEN },
        body: PIX_NOTIFICATION,
        requestId: 'req-pay-1',
        sourceIp: '198.51.100.7',
      }),
      deps,
    );

    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toEqual({ status: 'received', requestId: 'req-pay-1' });
    const messages = await stored();
    expect(messages).toHaveLength(1);
    const { notification, body } = decodeStoredNotification(messages[0].Body!);
    expect(body.toString('utf8')).toBe(PIX_NOTIFICATION);
    expect(notification).toMatchObject({
      v: 1,
      route: 'payments',
      requestId: 'req-pay-1',
      sourceIp: '198.51.100.7',
      contentType: 'application/json',
      bodyEncoding: 'utf8',
    });
    expect(new Date(notification.receivedAt).toISOString()).toBe(notification.receivedAt);
    expect(messages[0].MessageAttributes?.route?.StringValue).toBe('payments');
    expect(counted).toEqual(['NotificationsStored:payments']);
  });

  it('stores a boleto call carrying the contract token in the contract header', async () => {
    const result = await handleNotification(
      apiEvent({ route: 'boleto', headers: { 'X-Webhook-Token': BOLETO_TOKEN }, body: BOLETO_NOTIFICATION }),
      deps,
    );

    expect(result.statusCode).toBe(200);
    const messages = await stored();
    expect(messages.map(storedBody)).toEqual([BOLETO_NOTIFICATION]);
    expect(decodeStoredNotification(messages[0].Body!).notification.route).toBe('boleto');
  });

  it.each([
    ['lower case', 'x-webhook-token'],
    ['upper case', 'X-WEBHOOK-TOKEN'],
  ])('matches the boleto header name in %s', async (_case, headerName) => {
    const result = await handleNotification(
      apiEvent({ route: 'boleto', headers: { [headerName]: BOLETO_TOKEN }, body: BOLETO_NOTIFICATION }),
      deps,
    );
    expect(result.statusCode).toBe(200);
    expect((await stored()).map(storedBody)).toEqual([BOLETO_NOTIFICATION]);
  });

  it('matches the Authorization header in lower case, as some proxies send it', async () => {
    const result = await handleNotification(
      apiEvent({ route: 'payments', headers: { authorization: PAYMENTS_TOKEN }, body: PIX_NOTIFICATION }),
      deps,
    );
    expect(result.statusCode).toBe(200);
    expect(await stored()).toHaveLength(1);
  });
});

describe('requests without the right token get 401 and store nothing', () => {
  const cases: [string, 'payments' | 'boleto', Record<string, string>][] = [
    ['no header', 'payments', {}],
    ['an empty header', 'payments', { Authorization: '' }],
    ['a wrong token of the same length', 'payments', { Authorization: PAYMENTS_TOKEN.replace(/.$/, 'X') }],
    ['a token of another length', 'payments', { Authorization: 'short' }],
    ['a Bearer prefix the token does not have', 'payments', { Authorization: `Bearer ${PAYMENTS_TOKEN}` }],
    ['the token with trailing white space', 'payments', { Authorization: `${PAYMENTS_TOKEN} ` }],
    ['the boleto token on /payments', 'payments', { Authorization: BOLETO_TOKEN }],
    ['the payments token on /boleto', 'boleto', { 'X-Webhook-Token': PAYMENTS_TOKEN }],
    ['the boleto token in Authorization instead of the contract header', 'boleto', { Authorization: BOLETO_TOKEN }],
    ['no header on /boleto', 'boleto', {}],
  ];

  it.each(cases)('%s', async (_case, route, headers) => {
    const result = await handleNotification(
      apiEvent({ route, headers, body: route === 'payments' ? PIX_NOTIFICATION : BOLETO_NOTIFICATION }),
      deps,
    );

    expect(result.statusCode).toBe(401);
    expect(JSON.parse(result.body)).toEqual({ message: 'Unauthorized' });
    expect(await stored()).toEqual([]);
    expect(counted).toEqual([`UnauthorizedRequests:${route}`]);
    const warning = logger.entries.find((e) => e.level === 'warn');
    expect(warning?.message).toBe('Rejected a request without a valid token');
    expect(warning?.extra).toMatchObject({ route, header: route === 'payments' ? 'Authorization' : 'X-Webhook-Token' });
    // The presented value is never logged, whatever it was.
    for (const value of Object.values(headers).filter(Boolean)) expect(logger.text()).not.toContain(value.trim());
  });
});

describe('bodies an authenticated caller sends', () => {
  const auth = { Authorization: PAYMENTS_TOKEN };

  it.each([
    ['an empty body', ''],
    ['no body at all', null],
    ['invalid JSON', '{"idTransacao": "tx-1", '],
    ['a JSON array', JSON.stringify([JSON.parse(BOLETO_NOTIFICATION), JSON.parse(BOLETO_NOTIFICATION)])],
    ['plain text', 'hello bank'],
  ])('stores %s and answers 200 (the processor quarantines what it cannot parse)', async (_case, body) => {
    const result = await handleNotification(apiEvent({ route: 'payments', headers: auth, body }), deps);
    expect(result.statusCode).toBe(200);
    expect((await stored()).map(storedBody)).toEqual([body ?? '']);
  });

  it('decodes a base64-encoded body and stores the original bytes', async () => {
    const result = await handleNotification(
      apiEvent({
        route: 'payments',
        headers: auth,
        body: Buffer.from(PIX_NOTIFICATION).toString('base64'),
        isBase64Encoded: true,
      }),
      deps,
    );
    expect(result.statusCode).toBe(200);
    expect((await stored()).map(storedBody)).toEqual([PIX_NOTIFICATION]);
  });

  it('stores bytes that are not UTF-8 as base64, unchanged', async () => {
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x80, 0x7d]);
    const result = await handleNotification(
      apiEvent({ route: 'payments', headers: auth, body: bytes.toString('base64'), isBase64Encoded: true }),
      deps,
    );
    expect(result.statusCode).toBe(200);
    const [message] = await stored();
    const { notification, body } = decodeStoredNotification(message.Body!);
    expect(notification.bodyEncoding).toBe('base64');
    expect(body.equals(bytes)).toBe(true);
  });

  it('stores a body exactly at the size limit', async () => {
    const body = 'x'.repeat(1024);
    const result = await handleNotification(apiEvent({ route: 'payments', headers: auth, body }), deps);
    expect(result.statusCode).toBe(200);
    expect((await stored()).map(storedBody)).toEqual([body]);
  });

  it('answers 413 to a body over the limit, stores nothing, and logs an error', async () => {
    const result = await handleNotification(
      apiEvent({ route: 'payments', headers: auth, body: 'x'.repeat(1025) }),
      deps,
    );
    expect(result.statusCode).toBe(413);
    expect(JSON.parse(result.body)).toEqual({ message: 'Payload too large', maxBodyBytes: 1024 });
    expect(await stored()).toEqual([]);
    expect(counted).toEqual(['PayloadTooLarge:payments']);
    expect(logger.entries.find((e) => e.level === 'error')?.extra).toMatchObject({
      bodyBytes: 1025,
      maxBodyBytes: 1024,
    });
  });

  it('measures a text body by its bytes of UTF-8, not its characters', async () => {
    // 342 characters of three bytes each: 1026 bytes, over the 1024 limit in fewer than 1024 characters.
    const result = await handleNotification(
      apiEvent({ route: 'payments', headers: auth, body: '\u20AC'.repeat(342) }),
      deps,
    );
    expect(result.statusCode).toBe(413);
    expect(await stored()).toEqual([]);
    expect(logger.entries.find((e) => e.level === 'error')?.extra).toMatchObject({ bodyBytes: 1026 });
    const fits = '\u20AC'.repeat(341);
    expect(
      (await handleNotification(apiEvent({ route: 'payments', headers: auth, body: fits }), deps)).statusCode,
    ).toBe(200);
    expect((await stored()).map(storedBody)).toEqual([fits]);
  });

  it('measures the limit after base64 decoding', async () => {
    const result = await handleNotification(
      apiEvent({
        route: 'payments',
        headers: auth,
        body: Buffer.alloc(1025, 1).toString('base64'),
        isBase64Encoded: true,
      }),
      deps,
    );
    expect(result.statusCode).toBe(413);
    expect(await stored()).toEqual([]);
  });

  it('checks the token before the size: an unauthenticated oversized body gets 401', async () => {
    const result = await handleNotification(apiEvent({ route: 'payments', headers: {}, body: 'x'.repeat(5000) }), deps);
    expect(result.statusCode).toBe(401);
  });
});

it('answers 404 for a route it does not serve, storing nothing', async () => {
  const result = await handleNotification(
    apiEvent({ route: 'other', headers: { Authorization: PAYMENTS_TOKEN }, body: '{}' }),
    deps,
  );
  expect(result.statusCode).toBe(404);
  expect(await stored()).toEqual([]);
});

it('answers 503, never 200, when the queue does not exist', async () => {
  const result = await handleNotification(
    apiEvent({
      route: 'payments',
      headers: { Authorization: PAYMENTS_TOKEN },
      body: PIX_NOTIFICATION,
      requestId: 'req-missing-queue',
    }),
    { ...deps, settings: { ...deps.settings, queueUrl: queueUrl.replace('receiver-matrix', 'no-such-queue') } },
  );
  expect(result.statusCode).toBe(503);
  expect(JSON.parse(result.body)).toEqual({
    message: 'Temporarily unable to store the notification',
    requestId: 'req-missing-queue',
  });
  expect(logger.entries.find((e) => e.level === 'error')?.extra).toMatchObject({
    requestId: 'req-missing-queue',
    route: 'payments',
  });
  expect(logger.text()).not.toContain(PAYMENTS_TOKEN);
});

it('answers 503 and stores nothing when the token secret cannot be read and nothing is cached', async () => {
  const unreadable = new TokenCache({
    load: () => Promise.reject(new Error('AccessDeniedException: not authorized')),
    ttlMs: 60_000,
    mismatchRefreshIntervalMs: 1_000,
  });
  const result = await handleNotification(
    apiEvent({
      route: 'boleto',
      headers: { 'X-Webhook-Token': BOLETO_TOKEN },
      body: BOLETO_NOTIFICATION,
      requestId: 'req-no-secret',
    }),
    { ...deps, tokens: unreadable },
  );
  expect(result.statusCode).toBe(503);
  expect(JSON.parse(result.body)).toEqual({
    message: 'Temporarily unable to accept the notification',
    requestId: 'req-no-secret',
  });
  expect(await stored()).toEqual([]);
  expect(counted).toEqual(['TokenLoadFailures:boleto']);
  expect(logger.entries.find((e) => e.level === 'error')?.extra).toMatchObject({
    requestId: 'req-no-secret',
    route: 'boleto',
    error: { message: 'AccessDeniedException: not authorized' },
  });
  expect(logger.text()).not.toContain(BOLETO_TOKEN);
});

describe('reading the token secret', () => {
  const stagesRead = (from: number) => secretsManager.calls.slice(from).map((call) => call.input.VersionStage);
  const freshTokens = () =>
    new TokenCache({
      load: (arn, stage) => loadStageToken(secrets, arn, stage, 2_000),
      ttlMs: 60_000,
      mismatchRefreshIntervalMs: 60_000,
    });
  const pay = (token: string, requestId: string, tokens: TokenCache) =>
    handleNotification(
      apiEvent({ route: 'payments', headers: { Authorization: token }, body: PIX_NOTIFICATION, requestId }),
      { ...deps, tokens },
    );

  it('reads only AWSCURRENT while the bank presents the current token, once per cache period', async () => {
    const tokens = freshTokens();
    const from = secretsManager.calls.length;
    expect((await pay(PAYMENTS_TOKEN, 'req-stage-1', tokens)).statusCode).toBe(200);
    expect((await pay(PAYMENTS_TOKEN, 'req-stage-2', tokens)).statusCode).toBe(200);
    expect(stagesRead(from)).toEqual(['AWSCURRENT']);
    expect(await stored()).toHaveLength(2);
  });

  it('reads AWSPENDING once for a token that is not the current one, and accepts it during a rotation', async () => {
    const next = 'PayTok3nNextNextNextNextNextNextNextNextNextNextNextNextNextNextNe';
    const arn = deps.settings.paymentsTokenSecretArn;
    const tokens = freshTokens();
    expect((await pay('not-the-token-at-all-0123456789', 'req-stage-bad', tokens)).statusCode).toBe(401);
    secretsManager.putValue(arn, next, ['AWSPENDING']);
    try {
      const from = secretsManager.calls.length;
      // The cache still holds "no pending value", and the mismatch reload waits for its interval.
      expect((await pay(next, 'req-stage-early', tokens)).statusCode).toBe(401);
      expect(stagesRead(from)).toEqual([]);
      const fresh = freshTokens();
      expect((await pay(next, 'req-stage-pending', fresh)).statusCode).toBe(200);
      expect((await pay(PAYMENTS_TOKEN, 'req-stage-current', fresh)).statusCode).toBe(200);
      expect((await pay(next, 'req-stage-pending-2', fresh)).statusCode).toBe(200);
      expect(stagesRead(from)).toEqual(['AWSCURRENT', 'AWSPENDING']);
      expect((await stored()).map((m) => decodeStoredNotification(m.Body!).notification.requestId)).toEqual([
        'req-stage-pending',
        'req-stage-current',
        'req-stage-pending-2',
      ]);
    } finally {
      secretsManager.finishRotation(arn);
      secretsManager.putValue(arn, PAYMENTS_TOKEN, ['AWSCURRENT']);
    }
    expect(logger.text()).not.toContain(next);
  });
});

describe("the function's timeout", () => {
  it('answers 503 with an ERROR line at least 1 s before a 6 s timeout when Secrets Manager, the pending stage and SQS are all slow', async () => {
    const CURRENT = 'CurrentTok3nAbcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN';
    const PENDING = 'PendingTok3nAbcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN';
    // A rotation under way: the bank presents the pending value, so both stages are read, each slowly.
    const slowTokens = new TokenCache({
      load: async (_arn, stage) => {
        await new Promise((resolve) => setTimeout(resolve, 1_400));
        return stage === 'AWSPENDING' ? [PENDING] : [CURRENT];
      },
      ttlMs: 60_000,
      mismatchRefreshIntervalMs: 5_000,
    });
    // SQS takes the connection and never answers.
    const silentSqs = {
      send: (_command: unknown, options: { abortSignal: AbortSignal }) =>
        new Promise((_resolve, reject) =>
          options.abortSignal.addEventListener('abort', () => reject(new Error('aborted'))),
        ),
    };
    // The rule is about the function's clock, not this machine's: Jest's clock, moved 100 ms at a time.
    jest.useFakeTimers({ now: Date.parse('2026-11-28T12:00:00Z') });
    let answer: Awaited<ReturnType<typeof handleNotification>> | undefined;
    let elapsed = 0;
    try {
      const started = Date.now();
      const answering = handleNotification(
        apiEvent({ route: 'payments', headers: { Authorization: PENDING }, body: PIX_NOTIFICATION }),
        {
          ...deps,
          tokens: slowTokens,
          sqs: silentSqs as unknown as SQSClient,
          remainingTimeMs: () => 6_000 - (Date.now() - started),
        },
      ).then((a) => {
        answer = a;
        elapsed = Date.now() - started;
      });
      for (let i = 0; i < 80 && answer === undefined; i++) await jest.advanceTimersByTimeAsync(100);
      await answering;
    } finally {
      jest.useRealTimers();
    }

    expect(answer?.statusCode).toBe(503);
    expect(elapsed).toBeLessThanOrEqual(5_000);
    expect(logger.entries.filter((e) => e.level === 'error').map((e) => e.message)).toEqual([
      'Could not store an authenticated notification in SQS within the budget; answering 503',
    ]);
    expect(counted).toEqual(['EnqueueFailures:payments']);
  });
});

describe('the size of what is stored', () => {
  it("stores an authenticated body whose escaped JSON would fill the message: the envelope and its attributes fit SQS's 1 MiB", async () => {
    // Control characters, six bytes each once JSON-escaped, as many as keep the JSON envelope
    // itself just within 1 MiB: its message attribute would then take it over.
    const event = apiEvent({ route: 'payments', headers: { Authorization: PAYMENTS_TOKEN }, body: '' });
    const meta = encodeStoredNotification(
      {
        route: 'payments',
        receivedAt: new Date().toISOString(),
        requestId: event.requestContext.requestId,
        sourceIp: event.requestContext.identity.sourceIp,
        contentType: 'application/json',
      },
      Buffer.alloc(0),
    ).length;
    const body = '\u0001'.repeat(Math.floor((SQS_MAX_MESSAGE_BYTES - meta) / 6));
    // SQS counts message attributes (name, type and value) towards the 1 MiB; fauxqs does not.
    const measured = {
      send: (command: SendMessageCommand, options: { abortSignal: AbortSignal }) => {
        const attributes = Object.entries(command.input.MessageAttributes ?? {}).reduce(
          (n, [name, a]) =>
            n + Buffer.byteLength(name) + Buffer.byteLength(a.DataType!) + Buffer.byteLength(a.StringValue ?? ''),
          0,
        );
        const size = Buffer.byteLength(command.input.MessageBody!) + attributes;
        if (size > SQS_MAX_MESSAGE_BYTES) return Promise.reject(new Error(`MessageTooLong: ${size} bytes`));
        return sqs.send(command, options);
      },
    };
    const answer = await handleNotification(
      { ...event, body },
      { ...deps, sqs: measured as unknown as SQSClient, settings: { ...deps.settings, maxBodyBytes: 256 * 1024 } },
    );
    expect(answer.statusCode).toBe(200);
    const [message] = await stored();
    expect(storedBody(message)).toBe(body);
  });

  it('stores a body of exactly the largest maxBodySize (512 KiB) of bytes that are not UTF-8', async () => {
    const bytes = Buffer.alloc(512 * 1024, 0xff);
    const answer = await handleNotification(
      apiEvent({
        route: 'boleto',
        headers: { 'X-Webhook-Token': BOLETO_TOKEN },
        body: bytes.toString('base64'),
        isBase64Encoded: true,
      }),
      { ...deps, settings: { ...deps.settings, maxBodyBytes: 512 * 1024 } },
    );
    expect(answer.statusCode).toBe(200);
    const [message] = await stored();
    expect(decodeStoredNotification(message.Body!).body).toEqual(bytes);
  });
});
