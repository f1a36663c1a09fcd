/**
 * The bank API client against the bank simulator over HTTPS: the collection password grant, the
 * payments client_credentials grant over mutual TLS, token caching and renewal, retries inside a
 * deadline, and readable errors.
 */
import { CooperativeClient, type RetryInfo } from '../../../lambda/bank/cooperative/client';
import {
  type BankConnectionSettings,
  type BankCredentials,
  ClientCredentialsAuth,
} from '../../../contracts/bank-connection';
import { OutOfRate } from '../../../lambda/bank/pacing';
import { BankApiError } from '../../../lambda/bank/errors';
import { HttpsTransport } from '../../../lambda/bank/http';
import { EmptyListing, HasNextType, PaymentScopeRule } from '../../../simulator/behaviour';
import { BankSimulator } from '../../../simulator/simulator';
import { simulatorConnection, simulatorCredentials } from '../../support/simulator-connection';

let simulator: BankSimulator;
let credentials: BankCredentials;
const calls: string[] = [];
const originalSend = HttpsTransport.prototype.send;

beforeAll(async () => {
  simulator = await BankSimulator.start();
  credentials = simulatorCredentials(simulator);
  // Records every HTTP call the client makes: "METHOD path", plus "(grant type)" for token requests.
  jest.spyOn(HttpsTransport.prototype, 'send').mockImplementation(function (this: HttpsTransport, req) {
    const grant = req.body === undefined ? null : new URLSearchParams(req.body).get('grant_type');
    calls.push(`${req.method} ${new URL(req.url).pathname}${grant ? ` (${grant})` : ''}`);
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
});

interface ClientSetup {
  readonly settings?: Partial<BankConnectionSettings>;
  readonly credentials?: BankCredentials;
  readonly now?: () => number;
}

const clients: CooperativeClient[] = [];
afterEach(() => clients.splice(0).forEach((client) => client.close()));

function client(setup: ClientSetup = {}): { bank: CooperativeClient; retries: RetryInfo[]; waits: number[] } {
  const retries: RetryInfo[] = [];
  const waits: number[] = [];
  const bank = new CooperativeClient({
    settings: simulatorConnection(
      simulator,
      'arn:aws:secretsmanager:us-east-1:000000000000:secret:bank',
      setup.settings,
    ),
    credentials: () => Promise.resolve(setup.credentials ?? credentials),
    onRetry: (info) => retries.push(info),
    sleep: (ms) => {
      waits.push(ms);
      return new Promise((resolve) => setTimeout(resolve, Math.min(ms, 50)));
    },
    now: setup.now,
  });
  clients.push(bank);
  return { bank, retries, waits };
}

const inSeconds = (s: number) => Date.now() + s * 1000;

async function newBoleto(): Promise<string> {
  return (await simulator.control.createBoleto({ valor: '42.00' })).nossoNumero;
}

async function newPix(): Promise<string> {
  return (await simulator.control.createPayment({ tipo: 'pix', valor: '15.00' })).payment.idTransacao;
}

describe('collection API', () => {
  it('gets a password-grant token with x-api-key, queries a boleto, and reuses the token', async () => {
    const { bank } = client();
    const nossoNumero = await newBoleto();
    const first = await bank.queryBoleto('54321', nossoNumero, inSeconds(10));
    const second = await bank.queryBoleto('54321', nossoNumero, inSeconds(10));

    expect(first).toMatchObject({ nossoNumero, situacao: 'EM CARTEIRA', valorNominal: 42 });
    expect(second).toEqual(first);
    expect(calls).toEqual([
      'POST /auth/openapi/token (password)',
      'GET /cobranca/boleto/v1/boletos',
      'GET /cobranca/boleto/v1/boletos',
    ]);
  });

  it('shares its token with the client withPacer makes (looks pace apart, and ask no token of their own)', async () => {
    const { bank } = client();
    const paced: string[] = [];
    const looks = bank.withPacer({
      acquire: async (operation) => {
        paced.push(operation);
      },
      throttled: async () => undefined,
    });
    const nossoNumero = await newBoleto();
    await bank.queryBoleto('54321', nossoNumero, inSeconds(10));
    await expect(looks.queryBoleto('54321', nossoNumero, inSeconds(10))).resolves.toMatchObject({ nossoNumero });
    expect(calls).toEqual([
      'POST /auth/openapi/token (password)',
      'GET /cobranca/boleto/v1/boletos',
      'GET /cobranca/boleto/v1/boletos',
    ]);
    expect(paced).toEqual([expect.stringMatching(/boleto query/)]);
  });

  it('renews the token with the refresh grant shortly before it expires', async () => {
    let clock = Date.now();
    const { bank } = client({ now: () => clock });
    const nossoNumero = await newBoleto();
    await bank.queryBoleto('54321', nossoNumero, clock + 10_000);
    clock += 275_000; // 300 s tokens are renewed 30 s early.
    await bank.queryBoleto('54321', nossoNumero, clock + 10_000);

    expect(calls).toEqual([
      'POST /auth/openapi/token (password)',
      'GET /cobranca/boleto/v1/boletos',
      'POST /auth/openapi/token (refresh_token)',
      'GET /cobranca/boleto/v1/boletos',
    ]);
  });

  it('renews the token once when the bank answers 401 (a token it no longer accepts)', async () => {
    const { bank } = client();
    const nossoNumero = await newBoleto();
    await bank.queryBoleto('54321', nossoNumero, inSeconds(10));
    await simulator.control.advanceClock(301); // the bank's clock: the cached token has expired there
    calls.length = 0;

    await expect(bank.queryBoleto('54321', nossoNumero, inSeconds(10))).resolves.toMatchObject({ nossoNumero });
    expect(calls).toEqual([
      'GET /cobranca/boleto/v1/boletos',
      'POST /auth/openapi/token (refresh_token)',
      'GET /cobranca/boleto/v1/boletos',
    ]);
  });

  it('falls back to the password grant when the bank refuses the refresh token', async () => {
    const { bank } = client();
    const nossoNumero = await newBoleto();
    await bank.queryBoleto('54321', nossoNumero, inSeconds(10));
    await simulator.control.advanceClock(1801); // past the refresh token's life at the bank
    calls.length = 0;

    await expect(bank.queryBoleto('54321', nossoNumero, inSeconds(10))).resolves.toMatchObject({ nossoNumero });
    expect(calls).toEqual([
      'GET /cobranca/boleto/v1/boletos',
      'POST /auth/openapi/token (refresh_token)',
      'POST /auth/openapi/token (password)',
      'GET /cobranca/boleto/v1/boletos',
    ]);
  });

  it('says which credential fields are missing, without calling the bank', async () => {
    const { bank } = client({ credentials: { clientId: 'x', clientSecret: 'y' } });
    await expect(bank.queryBoleto('54321', '1', inSeconds(5))).rejects.toThrow(
      "collection token request failed: the bank credentials secret lacks apiKey and password, which the collection API's password grant needs",
    );
    expect(calls).toEqual([]);
  });

  it("reports a wrong password with the bank's OAuth message and no secret", async () => {
    const { bank } = client({ credentials: { ...credentials, password: 'wrong-password-value' } });
    const error = await bank.queryBoleto('54321', '1', inSeconds(5)).catch((e: unknown) => e as BankApiError);
    expect(error).toBeInstanceOf(BankApiError);
    expect(error.message).toMatch(/^collection token request failed with HTTP (400|401): invalid_grant: /);
    expect(error.retryable).toBe(false);
    expect(error.message).not.toContain('wrong-password-value');
    expect(error.message).not.toContain(credentials.apiKey);
  });

  it('puts nothing but the bank\'s id patterns in a URL: refuses "..", "a/b" or a 10-digit nossoNumero without calling', async () => {
    const { bank } = client();
    for (const call of [
      () => bank.queryPayment('pix', '..', inSeconds(5)),
      () => bank.queryPayment('pix', 'a/b', inSeconds(5)),
      () => bank.queryBoleto('54321', '1234567890', inSeconds(5)),
    ]) {
      const error = await call().catch((e: unknown) => e as BankApiError);
      expect(error).toBeInstanceOf(BankApiError);
      expect([error.retryable, error.status]).toEqual([false, undefined]);
      expect(error.message).toMatch(/failed: not sent: /);
    }
    expect(calls).toEqual([]);
  });

  it("asks a short nossoNumero zero-padded to the bank's nine digits", async () => {
    const nossoNumero = await newBoleto();
    const { bank } = client();
    await expect(bank.queryBoleto('54321', nossoNumero.replace(/^0+/, ''), inSeconds(10))).resolves.toMatchObject({
      nossoNumero,
    });
  });

  it("reads a listing's 404 as an empty page (one client reads an empty day so), and a string hasNext", async () => {
    const { bank } = client();
    await simulator.control.setBehaviour({
      emptyListing: EmptyListing.NOT_FOUND,
      listingHasNext: HasNextType.STRING,
      listingPageSize: 1,
    });
    try {
      await expect(bank.listSettledBoletos('54321', '01/01/2020', 1, inSeconds(10))).resolves.toEqual({
        items: [],
        hasNext: false,
      });
      for (let i = 0; i < 2; i++) await simulator.control.settleBoleto(await newBoleto());
      // The bank's day by the bank's clock (an earlier test moves it on; near midnight that is tomorrow).
      const { offsetSeconds } = await simulator.control.advanceClock(0);
      const local = new Date(Date.now() + offsetSeconds * 1000 - 3 * 3600_000).toISOString();
      const dia = `${local.slice(8, 10)}/${local.slice(5, 7)}/${local.slice(0, 4)}`;
      const page = await bank.listSettledBoletos('54321', dia, 1, inSeconds(10));
      expect([page.items.length, page.hasNext]).toEqual([1, true]);
    } finally {
      await simulator.control.resetBehaviour();
    }
  });

  it('reports a boleto the bank does not know with its collection error message', async () => {
    const { bank } = client();
    await expect(bank.queryBoleto('54321', '999999', inSeconds(5))).rejects.toMatchObject({
      status: 404,
      retryable: false,
      message: 'boleto query (nossoNumero 999999) failed with HTTP 404: TITULO_NAO_ENCONTRADO: Titulo não encontrado',
    });
  });
});

describe('payments API', () => {
  it('gets a client_credentials token over mutual TLS and queries a Pix payment', async () => {
    const { bank } = client();
    const id = await newPix();
    await expect(bank.queryPayment('pix', id, inSeconds(10))).resolves.toMatchObject({
      idTransacao: id,
      status: 'RECEBIDO',
      valorPagamento: '15.00',
    });
    expect(calls).toEqual([
      'POST /thirdparty/auth/token (client_credentials)',
      `GET /pagamentos/v1/pagamentos/pix/${id}`,
    ]);
  });

  it('sends the client id and secret as HTTP Basic when configured', async () => {
    const { bank } = client({ settings: { paymentsClientAuth: ClientCredentialsAuth.BASIC } });
    const id = await newPix();
    await expect(bank.queryPayment('pix', id, inSeconds(10))).resolves.toMatchObject({ idTransacao: id });
  });

  it("is refused without the client certificate, with the bank's reason", async () => {
    const { bank } = client({ credentials: { ...credentials, clientCertificate: undefined, clientKey: undefined } });
    const error = await bank.queryPayment('pix', 'abc', inSeconds(5)).catch((e: unknown) => e as BankApiError);
    expect(error.message).toMatch(
      /^payments token request \(scopes payments.pix.consultar\) failed with HTTP 401: invalid_client: .*certificate/i,
    );
    expect(error.message).not.toContain(credentials.clientSecret);
  });

  it("asks each kind's query with a token of its consultar scope, one token per scope set, and the registration with the pagar scopes", async () => {
    const scopes: string[] = [];
    const { bank } = client();
    const spy = jest.spyOn(HttpsTransport.prototype, 'send');
    spy.mockClear();
    const pix = await newPix();
    const boleto = (await simulator.control.createPayment({ tipo: 'boleto', valor: '9.00' })).payment.idTransacao;
    await bank.queryPayment('pix', pix, inSeconds(10));
    await bank.queryPayment('pix', pix, inSeconds(10));
    await bank.queryPayment('boleto', boleto, inSeconds(10));
    await bank.call({
      operation: 'read the callback registration',
      api: 'payments',
      method: 'GET',
      url: `${bank.settings.registrationBaseUrl}/v1/associado/webhook`,
      deadline: inSeconds(10),
    });
    for (const [req] of spy.mock.calls)
      if (req.url.endsWith('/thirdparty/auth/token')) scopes.push(new URLSearchParams(req.body).get('scope')!);
    expect(scopes).toEqual([
      'payments.pix.consultar',
      'payments.boleto.consultar',
      'payments.pix.pagar payments.boleto.pagar payments.tributos.pagar',
    ]);
  });

  it('says which scopes a refused payment query asked, and what to set', async () => {
    // A bank that wants other scopes for queries than those configured.
    const { bank } = client({
      settings: {
        paymentQueryScopes: {
          pix: 'payments.pix.pagar',
          boleto: 'payments.boleto.consultar',
          tributos: 'payments.tributos.consultar',
        },
      },
    });
    const error = await bank
      .queryPayment('pix', await newPix(), inSeconds(10))
      .catch((e: unknown) => e as BankApiError);
    expect(error).toBeInstanceOf(BankApiError);
    expect(error.status).toBe(403);
    expect(error.message).toMatch(
      /^pix payment query \(idTransacao [^)]+\) failed with HTTP 403: Insufficient scope: .*; the token asked the scopes "payments\.pix\.pagar": if the bank wants others for pix queries, set the bank connection's paymentQueryScopes\.pix \(docs\/bank-api\.md\)$/,
    );
    // The looser reading of the spec: the same token passes.
    await simulator.control.setBehaviour({ paymentScopes: PaymentScopeRule.ANY });
    try {
      await expect(bank.queryPayment('pix', await newPix(), inSeconds(10))).resolves.toMatchObject({
        status: 'RECEBIDO',
      });
    } finally {
      await simulator.control.resetBehaviour();
    }
  });

  it("reports an unknown payment with the payments API's error shape", async () => {
    const { bank } = client();
    await expect(bank.queryPayment('tributos', 'no-such-id', inSeconds(5))).rejects.toThrow(
      'tributos payment query (idTransacao no-such-id) failed with HTTP 404: PAGAMENTO_NAO_ENCONTRADO: Pagamento no-such-id não encontrado.',
    );
  });
});

describe('retries', () => {
  it('retries 5xx answers with backoff and succeeds', async () => {
    const { bank, retries, waits } = client();
    const nossoNumero = await newBoleto();
    await simulator.control.setFaults({ api: [{ scope: 'query', status: 503, times: 2 }] });

    await expect(bank.queryBoleto('54321', nossoNumero, inSeconds(10))).resolves.toMatchObject({ nossoNumero });
    expect(retries.map((r) => [r.attempt, r.status])).toEqual([
      [1, 503],
      [2, 503],
    ]);
    expect(waits[0]).toBeLessThan(200); // first wait: random up to the 200 ms base
    expect(waits[1]).toBeLessThan(400); // then up to 400 ms
  });

  it('honours Retry-After on a 429', async () => {
    const { bank, retries, waits } = client();
    const nossoNumero = await newBoleto();
    await simulator.control.setFaults({ api: [{ scope: 'query', status: 429, times: 1, retryAfterSeconds: 2 }] });

    await expect(bank.queryBoleto('54321', nossoNumero, inSeconds(10))).resolves.toMatchObject({ nossoNumero });
    expect(retries).toEqual([expect.objectContaining({ status: 429, attempt: 1 })]);
    // The wait is the pacer's: the slot after the bank's Retry-After (the clock moved a little since).
    expect(waits.filter((ms) => ms > 1_000)).toEqual([expect.any(Number)]);
    expect(Math.max(...waits)).toBeGreaterThan(1_900);
    expect(Math.max(...waits)).toBeLessThanOrEqual(2_000);
  });

  it('gives up at once when Retry-After goes past the deadline, so the record is retried later', async () => {
    const { bank, waits } = client();
    const nossoNumero = await newBoleto();
    await simulator.control.setFaults({ api: [{ scope: 'query', status: 429, retryAfterSeconds: 30 }] });

    const before = Date.now();
    const error = (await bank.queryBoleto('54321', nossoNumero, inSeconds(5)).catch((e: unknown) => e)) as OutOfRate;
    expect(error).toBeInstanceOf(OutOfRate);
    expect(error).toMatchObject({ status: 429, retryable: true, outOfTime: true, attempts: 1 });
    expect(error.message).toMatch(
      /failed with HTTP 429: Too many requests; bank calls: no slot of the 10\/s rate before this invocation's deadline \(the next starts in \d+ ms\)$/,
    );
    // Told when to come back: after the bank's 30 s, not at once.
    expect(error.retryAt - before).toBeGreaterThanOrEqual(29_000);
    expect(waits.filter((ms) => ms > 1_000)).toEqual([]);
  });

  it('times out a slow call and retries it', async () => {
    const { bank, retries } = client({ settings: { callTimeoutMs: 300 } });
    const nossoNumero = await newBoleto();
    await simulator.control.setFaults({ api: [{ scope: 'query', delayMs: 1000, times: 1 }] });

    await expect(bank.queryBoleto('54321', nossoNumero, inSeconds(10))).resolves.toMatchObject({ nossoNumero });
    expect(retries).toEqual([
      expect.objectContaining({ attempt: 1, status: undefined, reason: 'no complete answer within 300 ms' }),
    ]);
  });

  it("stops after the most attempts and reports the bank's last message", async () => {
    const { bank, retries } = client();
    const nossoNumero = await newBoleto();
    await simulator.control.setFaults({ api: [{ scope: 'query', status: 500 }] });

    const error = await bank.queryBoleto('54321', nossoNumero, inSeconds(30)).catch((e: unknown) => e as BankApiError);
    expect(error).toMatchObject({ status: 500, retryable: true, attempts: 5 });
    expect(error.message).toMatch(/^boleto query \(nossoNumero \d+\) failed with HTTP 500: .+ \(after 5 attempts\)$/);
    expect(retries).toHaveLength(4);
  });

  it('reports the bank\'s last failure when a wait overran the deadline (a busy machine), not a bare "no time left"', async () => {
    // The first wait is decided with time to spare; the clock jumps past the deadline as it is
    // reported, before the sleep (on a busy machine a test polling for it came too late).
    let retried = (): boolean => false;
    const { bank, retries } = client({ now: () => Date.now() + (retried() ? 10_000 : 0) });
    retried = () => retries.length > 0;
    const nossoNumero = await newBoleto();
    await simulator.control.setFaults({ api: [{ scope: 'query', status: 503 }] });
    const error = await bank.queryBoleto('54321', nossoNumero, inSeconds(5)).catch((e: unknown) => e as BankApiError);
    expect(retries).toHaveLength(1);
    expect(error).toMatchObject({ status: 503, retryable: true, outOfTime: true, attempts: 1 });
    expect(error.message).toMatch(
      /^boleto query \(nossoNumero \d+\) failed with HTTP 503: .+; no time left to try again/,
    );
  });

  it('retries a token request that fails with 5xx', async () => {
    const { bank, retries } = client();
    const id = await newPix();
    await simulator.control.setFaults({ api: [{ scope: 'token', status: 502, times: 1 }] });
    await expect(bank.queryPayment('pix', id, inSeconds(10))).resolves.toMatchObject({ idTransacao: id });
    expect(retries).toEqual([
      expect.objectContaining({ operation: 'payments token request (scopes payments.pix.consultar)', status: 502 }),
    ]);
  });

  it('does not start a call with no time left in the deadline', async () => {
    const { bank } = client();
    await expect(bank.queryBoleto('54321', '1', Date.now() + 50)).rejects.toMatchObject({
      retryable: true,
      message: "collection token request failed: no time left in the invocation's budget to call the bank",
    });
    expect(calls).toEqual([]);
  });

  it('fails a network error (nothing listening) as retryable, naming the code', async () => {
    const { bank } = client({ settings: { collectionTokenUrl: 'https://127.0.0.1:9/auth/openapi/token' } });
    const error = await bank.queryBoleto('54321', '1', inSeconds(2)).catch((e: unknown) => e as BankApiError);
    expect(error).toMatchObject({ retryable: true, status: undefined });
    expect(error.message).toMatch(/^collection token request failed: ECONNREFUSED/);
  });

  it('refuses a plain-HTTP URL as an error retrying cannot fix', async () => {
    const { bank } = client({ settings: { baseUrl: 'http://127.0.0.1:9' } });
    await expect(bank.queryBoleto('54321', '1', inSeconds(5))).rejects.toMatchObject({
      retryable: false,
      message:
        'boleto query (nossoNumero 1) failed: http://127.0.0.1:9/cobranca/boleto/v1/boletos?codigoBeneficiario=54321&nossoNumero=000000001 is not an https URL; the bank is only reached over HTTPS',
    });
  });
});
