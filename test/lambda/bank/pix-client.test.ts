/**
 * The Pix API client against the simulator's standard Pix API over HTTPS: the token (HTTP Basic
 * over mutual TLS, grant_type where the connection says), one token per scope set kept, each
 * operation's path and scope, every reading of the answers into one shape, 404 as "not there",
 * retries, and errors that name what to set and carry no secret.
 */
import { PixChargeKind } from '../../../contracts/events';
import {
  type PixConnectionSettings,
  type PixCredentials,
  PixGrantTypePlacement,
  PixOperation,
} from '../../../contracts/pix-connection';
import { BankApiError } from '../../../lambda/bank/errors';
import { HttpsTransport } from '../../../lambda/bank/http';
import { PixClient } from '../../../lambda/bank/pix/client';
import type { RetryInfo } from '../../../lambda/bank/base/paced-sender';
import {
  PixCallbackKey,
  PixEndToEndIdField,
  PixGrantType,
  PixQueryTime,
  PixRefundsShape,
  PixWebhookKeyField,
} from '../../../simulator/pix/pix-behaviour';
import { RefundStatus } from '../../../simulator/pix/pix-model';
import { BankSimulator } from '../../../simulator/simulator';

let simulator: BankSimulator;
const calls: string[] = [];
const originalSend = HttpsTransport.prototype.send;
const clients: PixClient[] = [];
const EVP = '2f6b1c9e-4d3a-4e8b-9c7f-1a2b3c4d5e6f';

beforeAll(async () => {
  simulator = await BankSimulator.start();
  jest.spyOn(HttpsTransport.prototype, 'send').mockImplementation(function (this: HttpsTransport, req) {
    const url = new URL(req.url);
    const grant = url.searchParams.get('grant_type')
      ? ' (grant in query)'
      : req.body && new URLSearchParams(req.body).get('grant_type')
        ? ' (grant in body)'
        : '';
    calls.push(`${req.method} ${url.pathname}${grant}`);
    return originalSend.call(this, req);
  });
});

afterAll(async () => {
  jest.restoreAllMocks();
  await simulator?.stop();
});

beforeEach(async () => {
  calls.length = 0;
  await simulator.control.clearFaults();
  await simulator.control.resetBehaviour();
});

afterEach(() => clients.splice(0).forEach((c) => c.close()));

const credentials = (overrides: Partial<PixCredentials> = {}): PixCredentials => ({
  clientId: simulator.credentials.pix!.clientId,
  clientSecret: simulator.credentials.pix!.clientSecret,
  clientCertificate: simulator.pixClientCertPem,
  clientKey: simulator.pixClientKeyPem,
  caCertificates: simulator.caPem,
  ...overrides,
});

function pixClient(
  settings: Partial<PixConnectionSettings> = {},
  creds: PixCredentials = credentials(),
): { pix: PixClient; retries: RetryInfo[] } {
  const retries: RetryInfo[] = [];
  const pix = new PixClient({
    settings: {
      baseUrl: simulator.baseUrl,
      tokenUrl: simulator.info.pixTokenUrl,
      credentialsSecretArn: 'arn:aws:secretsmanager:us-east-1:111111111111:secret:pix',
      ...settings,
    },
    credentials: () => Promise.resolve(creds),
    retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 },
    onRetry: (info) => retries.push(info),
  });
  clients.push(pix);
  return { pix, retries };
}

const soon = () => Date.now() + 20_000;

it("confirms a Pix of ours, reads another customer's as not there (404), and keeps one pix.read token for both", async () => {
  const { pix } = pixClient();
  const {
    pix: [ours],
  } = await simulator.control.pix.payKey(EVP, { valor: '12.34', txid: 'estatico1' });
  const { pix: foreign } = await simulator.control.pix.deliverForeign({ url: 'https://127.0.0.1:1/none' });
  expect(await pix.getPix(ours.endToEndId, soon())).toEqual({
    endToEndId: ours.endToEndId,
    txid: 'estatico1',
    valor: '12.34',
    chave: EVP,
    horario: ours.horario,
    refunds: [],
  });
  expect(await pix.getPix(foreign.endToEndId, soon())).toBeUndefined();
  expect(calls).toEqual([
    'POST /oauth/token (grant in body)',
    `GET /api/v2/pix/${ours.endToEndId}`,
    `GET /api/v2/pix/${foreign.endToEndId}`,
  ]);
});

it("reads a charge under v3 (this bank's path), concluded with the Pix that paid it; a due-date charge at cobv; an unknown txid as not there", async () => {
  const { pix } = pixClient();
  const charge = await simulator.control.pix.createCharge({ chave: EVP, valor: '99.00' });
  const {
    pix: [paid],
  } = await simulator.control.pix.payCharge(charge.txid);
  expect(await pix.getCharge(PixChargeKind.COB, charge.txid, soon())).toMatchObject({
    txid: charge.txid,
    state: 'CONCLUIDA',
    valorOriginal: '99.00',
    paidBy: [paid.endToEndId],
  });
  const due = await simulator.control.pix.createCharge({ kind: 'cobv', chave: EVP, valor: '10.00' });
  expect(await pix.getCharge(PixChargeKind.COBV, due.txid, soon())).toMatchObject({ state: 'ATIVA' });
  expect(await pix.getCharge(PixChargeKind.COB, due.txid, soon())).toBeUndefined();
  expect(calls.filter((c) => c.startsWith('GET'))).toEqual([
    `GET /api/v3/cob/${charge.txid}`,
    `GET /api/v2/cobv/${due.txid}`,
    `GET /api/v3/cob/${due.txid}`,
  ]);
  // One token for cob.read, one for cobv.read: each operation's own scope.
  expect(calls.filter((c) => c.startsWith('POST'))).toHaveLength(2);
});

it('reads every reading the provider may write into the same Pix: endToEndID, horario as an object, one refund as an object, no chave', async () => {
  const {
    pix: [paid],
  } = await simulator.control.pix.payKey(EVP, { valor: '8.00', txid: 'leituras' });
  await simulator.control.pix.refund(paid.endToEndId, { valor: '3.00', id: 'dev9' });
  await simulator.control.pix.settleRefund(paid.endToEndId, 'dev9', RefundStatus.RETURNED);
  const standard = await pixClient().pix.getPix(paid.endToEndId, soon());
  expect(standard?.refunds).toEqual([
    expect.objectContaining({
      id: 'dev9',
      valor: '3.00',
      status: RefundStatus.RETURNED,
      settledAt: expect.any(String),
    }),
  ]);
  await simulator.control.setBehaviour({
    pixEndToEndIdField: PixEndToEndIdField.END_TO_END_ID_UPPER,
    pixQueryTime: PixQueryTime.OBJECT,
    pixRefundsShape: PixRefundsShape.OBJECT,
    pixCallbackKey: PixCallbackKey.LEFT_OUT,
  });
  expect(await pixClient().pix.getPix(paid.endToEndId, soon())).toEqual(standard);
  expect(await pixClient().pix.getRefund(paid.endToEndId, 'dev9', soon())).toEqual(standard?.refunds[0]);
});

it('lists the Pix of a window page by page from 0', async () => {
  const { pix } = pixClient();
  for (const txid of ['pagina1', 'pagina2', 'pagina3'])
    await simulator.control.pix.payKey(EVP, { valor: '1.00', txid });
  const window = {
    inicio: new Date(Date.now() - 60_000).toISOString(),
    fim: new Date(Date.now() + 60_000).toISOString(),
  };
  const first = await pix.listPix(window, 0, soon(), { itensPorPagina: 2 });
  expect(first).toMatchObject({ paginaAtual: 0, quantidadeDePaginas: expect.any(Number) });
  expect(first.pix).toHaveLength(2);
  const last = await pix.listPix(window, first.quantidadeDePaginas - 1, soon(), { itensPorPagina: 2 });
  expect(last.paginaAtual).toBe(first.quantidadeDePaginas - 1);
});

it("registers, reads and removes a key's webhook under either reading (201, cnpj), a URL-encoded key in the path", async () => {
  const { pix } = pixClient();
  await simulator.control.setBehaviour({ pixWebhookPutStatus: 201, pixWebhookKeyField: PixWebhookKeyField.CNPJ });
  await pix.putWebhook('pix@example.com', 'https://receiver.example/pix', soon());
  expect(await pix.getWebhook('pix@example.com', soon())).toEqual({ webhookUrl: 'https://receiver.example/pix' });
  expect(await pix.deleteWebhook('pix@example.com', soon())).toBe(true);
  expect(await pix.deleteWebhook('pix@example.com', soon())).toBe(false);
  expect(await pix.getWebhook('pix@example.com', soon())).toBeUndefined();
  expect(calls).toContain('PUT /api/v2/webhook/pix%40example.com');
});

it("sends grant_type in the query string only when the connection says so: refused by the bank's current reading, taken by the older one", async () => {
  const { pix } = pixClient({ grantType: PixGrantTypePlacement.QUERY });
  const refused = pix.getPix('E01181521202611271200abcdefghijk', soon());
  await expect(refused).rejects.toThrow(
    /Pix token request \(scopes pix\.read\) failed with HTTP 400: invalid_request: gerarToken\.grantType/,
  );
  await simulator.control.setBehaviour({ pixGrantType: PixGrantType.BODY_OR_QUERY });
  expect(await pix.getPix('E01181521202611271200abcdefghijk', soon())).toBeUndefined();
  expect(calls.filter((c) => c.startsWith('POST'))).toEqual([
    'POST /oauth/token (grant in query)',
    'POST /oauth/token (grant in query)',
  ]);
});

it("names the scope setting when the provider refuses the token's scope (403)", async () => {
  const { pix } = pixClient({ scopes: { [PixOperation.PIX_QUERY]: 'cob.read' } });
  await expect(pix.getPix('E01181521202611271200abcdefghijk', soon())).rejects.toThrow(
    /HTTP 403: .*scope "cob\.read".*scopes\.pixQuery/,
  );
});

it('retries a 503 inside the deadline, and refuses a malformed id before sending anything', async () => {
  const { pix, retries } = pixClient();
  await simulator.control.setFaults({ api: [{ scope: 'query', status: 503, times: 1 }] });
  expect(await pix.getPix('E01181521202611271200abcdefghijk', soon())).toBeUndefined();
  expect(retries).toEqual([expect.objectContaining({ status: 503, attempt: 1 })]);
  calls.length = 0;
  await expect(pix.getPix('../cob/x', soon())).rejects.toThrow(
    /not sent: an end-to-end id is 1 to 64 letters and digits/,
  );
  await expect(pix.getCharge(PixChargeKind.COB, 'curto', soon())).rejects.toThrow(/not sent/);
  expect(calls).toEqual([]);
});

it('keeps the client secret and its Basic value out of errors, even when the provider echoes the request', async () => {
  const secret = 'pix-secret-that-must-not-leak';
  await simulator.control.setFaults({ echoRequests: true });
  const { pix } = pixClient({}, credentials({ clientSecret: secret }));
  const error = await pix.getPix('E01181521202611271200abcdefghijk', soon()).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(BankApiError);
  const text = `${(error as Error).message} ${(error as BankApiError).detail}`;
  expect(text).toMatch(/HTTP 401: invalid_client/);
  expect(text).toContain('requisição recebida');
  expect(text).not.toContain(secret);
  expect(text).not.toContain(Buffer.from(`${simulator.credentials.pix!.clientId}:${secret}`).toString('base64'));
});

it("says which credentials are missing, sending nothing; only a simulated connection (a BankSandbox's) goes without a client certificate", async () => {
  const { pix } = pixClient({}, credentials({ clientCertificate: undefined, clientKey: undefined }));
  await expect(pix.getPix('E01181521202611271200abcdefghijk', soon())).rejects.toThrow(
    /the Pix credentials secret lacks clientCertificate, clientKey/,
  );
  const simulated = pixClient(
    { simulated: true },
    credentials({ clientCertificate: undefined, clientKey: undefined, clientSecret: undefined }),
  ).pix;
  await expect(simulated.getPix('E01181521202611271200abcdefghijk', soon())).rejects.toThrow(
    /the Pix credentials secret lacks clientSecret,/,
  );
  expect(calls).toEqual([]);
});

it('renews a token the provider has let expire before the client expected (401), once, and carries on', async () => {
  const { pix } = pixClient();
  await pix.getPix('E01181521202611271200abcdefghijk', soon());
  await simulator.control.advanceClock(301);
  expect(await pix.getPix('E01181521202611271200abcdefghijk', soon())).toBeUndefined();
  expect(calls).toEqual([
    'POST /oauth/token (grant in body)',
    'GET /api/v2/pix/E01181521202611271200abcdefghijk',
    'GET /api/v2/pix/E01181521202611271200abcdefghijk',
    'POST /oauth/token (grant in body)',
    'GET /api/v2/pix/E01181521202611271200abcdefghijk',
  ]);
});

it("takes every call, its token requests too, from the pacer it is given (the bank's shared budget)", async () => {
  const acquired: string[] = [];
  const pix = new PixClient({
    settings: {
      baseUrl: simulator.baseUrl,
      tokenUrl: simulator.info.pixTokenUrl,
      credentialsSecretArn: 'arn:aws:secretsmanager:us-east-1:111111111111:secret:pix',
    },
    credentials: () => Promise.resolve(credentials()),
    pacer: {
      acquire: (operation) => {
        acquired.push(operation);
        return Promise.resolve();
      },
      throttled: () => Promise.resolve(),
    },
  });
  clients.push(pix);
  await pix.getPix('E01181521202611271200abcdefghijk', soon());
  await pix.getWebhook('pix@example.com', soon());
  expect(acquired).toEqual([
    'Pix token request (scopes pix.read)',
    'Pix query (endToEndId E01181521202611271200abcdefghijk)',
    'Pix token request (scopes webhook.read)',
    'webhook query (key pix…com)',
  ]);
});
