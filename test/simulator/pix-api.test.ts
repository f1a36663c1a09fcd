/**
 * The standard Pix API over HTTPS (PIX-NOTES.md): the token, webhooks per key, charges, the Pix
 * received and their refunds, and the callbacks a receiver gets: to `{url}/pix`, with the
 * provider's client certificate and no credential, only for Pix with a txid.
 */
import {
  PixCallbackKey,
  PixEndToEndIdField,
  PixGrantType,
  PixQueryTime,
  PixRefundsShape,
  PixTimeZone,
  PixWebhookKeyField,
} from '../../simulator/pix/pix-behaviour';
import { RefundStatus } from '../../simulator/pix/pix-model';
import { BankSimulator } from '../../simulator/simulator';
import { paymentsTokenCall } from '../support/bank-session';
import {
  bareEngine,
  pixAuth,
  pixCall,
  pixPath,
  pixTokenCall,
  startPixPeers,
  stopPixPeers,
} from '../support/pix-session';
import { makeReceiverPki, type Target } from '../support/tls-targets';

let simulator: BankSimulator;
let target: Target;
const pki = makeReceiverPki();
const EMAIL = 'pix@example.com';
const EVP = '2f6b1c9e-4d3a-4e8b-9c7f-1a2b3c4d5e6f';
const TXID = 'cobrancaDeTeste0000000000001';
const CC = { grant_type: 'client_credentials' };

beforeAll(async () => {
  ({ simulator, target } = await startPixPeers(pki));
});

afterAll(() => stopPixPeers({ simulator, target }));

afterEach(async () => {
  await simulator.control.waitForDeliveries(10_000);
  await simulator.control.resetBehaviour();
  target.requests.length = 0;
});

const registerWebhook = async (chave: string, url: string) => {
  const answer = await pixCall(simulator, pixPath(`/webhook/${encodeURIComponent(chave)}`), {
    method: 'PUT',
    headers: await pixAuth(simulator),
    body: { webhookUrl: url },
  });
  expect(answer.status).toBe(200);
};
const delivered = async () => {
  expect(await simulator.control.waitForDeliveries(10_000)).toBe(true);
  return target.requests.map((r) => ({
    path: r.path,
    body: JSON.parse(r.body) as Record<string, any>,
    headers: r.headers,
    cert: r.clientCertificate,
  }));
};

describe('the token (POST /oauth/token)', () => {
  it('issues a bearer token for 300 s to HTTP Basic over mutual TLS, grant_type in the form body, every scope unless asked', async () => {
    const answer = await pixTokenCall(simulator);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 300,
      scope: expect.stringContaining('webhook.write'),
    });
    expect(answer.json.scope.split(' ')).toEqual(simulator.info.scopes.pix);
  });

  it('refuses grant_type in the query string as the bank does since 2026-06, and takes it there when the behaviour says so', async () => {
    const refused = await pixTokenCall(simulator, {}, { query: 'grant_type=client_credentials' });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      error: 'invalid_request',
      error_description: expect.stringContaining('gerarToken.grantType'),
    });
    await simulator.control.setBehaviour({ pixGrantType: PixGrantType.BODY_OR_QUERY });
    expect(
      (await pixTokenCall(simulator, {}, { query: 'grant_type=client_credentials&scope=pix.read' })).json,
    ).toMatchObject({ scope: 'pix.read' });
  });

  it.each([
    ['no client certificate', CC, { certificate: 'none' as const }, 401, 'invalid_client'],
    [
      "the payments application's certificate (another client's)",
      CC,
      { certificate: 'payments' as const },
      401,
      'invalid_client',
    ],
    ['a wrong secret', CC, { authorization: `Basic ${Buffer.from('x:y').toString('base64')}` }, 401, 'invalid_client'],
    ['no grant_type', { scope: 'pix.read' }, {}, 400, 'invalid_request'],
    ['another grant', { grant_type: 'password' }, {}, 400, 'unsupported_grant_type'],
    [
      'only unknown scopes',
      { grant_type: 'client_credentials', scope: 'cob.admin lotecobv.write' },
      {},
      400,
      'invalid_scope',
    ],
  ])('refuses %s, issuing nothing', async (_case, form, options, status, error) => {
    const answer = await pixTokenCall(simulator, form, options);
    expect(answer.status).toBe(status);
    expect(answer.json).toEqual({ error, error_description: expect.any(String) });
  });

  it('narrows a token asked for an unknown scope among known ones to the known ones (RFC 6749 section 3.3), as providers do', async () => {
    const answer = await pixTokenCall(simulator, { grant_type: 'client_credentials', scope: 'pix.read cob.admin' });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ scope: 'pix.read' });
  });

  it('serves POST /cob: an immediate charge whose txid the provider makes', async () => {
    const auth = await pixAuth(simulator, 'cob.write cob.read');
    const created = await pixCall(simulator, pixPath('/cob'), {
      method: 'POST',
      headers: auth,
      body: { chave: EMAIL, valor: { original: '7.50' }, calendario: { expiracao: 3600 } },
    });
    expect(created.status).toBe(201);
    const { txid } = created.json as { txid: string };
    expect(txid).toMatch(/^[a-zA-Z0-9]{26,35}$/);
    expect((await pixCall(simulator, `/api/v3/cob/${txid}`, { headers: auth })).json).toMatchObject({
      txid,
      status: 'ATIVA',
      valor: { original: '7.50' },
    });
  });

  it('holds each operation to its scope, and a payments token to none of them', async () => {
    const readOnly = await pixAuth(simulator, 'webhook.read pix.read');
    const put = await pixCall(simulator, pixPath(`/webhook/${encodeURIComponent(EMAIL)}`), {
      method: 'PUT',
      headers: readOnly,
      body: { webhookUrl: 'https://x.example/h' },
    });
    expect(put.status).toBe(403);
    const payments = (await paymentsTokenCall(simulator)).json.access_token as string;
    expect(
      (await pixCall(simulator, pixPath('/webhook'), { headers: { authorization: `Bearer ${payments}` } })).status,
    ).toBe(403);
    expect((await pixCall(simulator, pixPath('/webhook'))).status).toBe(401);
  });
});

describe('webhooks per key', () => {
  it("registers a URL-encoded key, reads it back, lists it and deletes it, with the standard's problems for what it refuses", async () => {
    const auth = await pixAuth(simulator);
    const path = pixPath(`/webhook/${encodeURIComponent(EMAIL)}`);
    expect(
      (
        await pixCall(simulator, path, {
          method: 'PUT',
          headers: auth,
          body: { webhookUrl: 'https://receiver.example/pix-hook' },
        })
      ).status,
    ).toBe(200);
    expect((await pixCall(simulator, path, { headers: auth })).json).toEqual({
      webhookUrl: 'https://receiver.example/pix-hook',
      chave: EMAIL,
      criacao: expect.any(String),
    });
    const list = await pixCall(simulator, pixPath('/webhook'), { headers: auth });
    expect(list.json).toMatchObject({
      parametros: { paginacao: { paginaAtual: 0, itensPorPagina: 100 } },
      webhooks: [expect.objectContaining({ chave: EMAIL })],
    });
    await simulator.control.setBehaviour({ pixWebhookKeyField: PixWebhookKeyField.CNPJ, pixWebhookPutStatus: 201 });
    expect((await pixCall(simulator, path, { headers: auth })).json).toEqual({
      webhookUrl: 'https://receiver.example/pix-hook',
      cnpj: EMAIL,
      criacao: expect.any(String),
    });
    expect(
      (
        await pixCall(simulator, path, {
          method: 'PUT',
          headers: auth,
          body: { webhookUrl: 'https://receiver.example/other' },
        })
      ).status,
    ).toBe(201);
    expect((await pixCall(simulator, path, { method: 'DELETE', headers: auth })).status).toBe(204);
    const gone = await pixCall(simulator, path, { headers: auth });
    expect(gone.status).toBe(404);
    expect(gone.headers['content-type']).toContain('application/problem+json');
    expect(gone.json).toMatchObject({ type: 'https://pix.bcb.gov.br/api/v2/error/NaoEncontrado', status: 404 });
  });

  it.each([
    ['a key the account does not hold', 'someone.else@example.com', { webhookUrl: 'https://r.example/h' }],
    ['a key of 78 characters', `${'a'.repeat(66)}@example.com`, { webhookUrl: 'https://r.example/h' }],
    ['an http URL', EMAIL, { webhookUrl: 'http://r.example/h' }],
    ['no URL', EMAIL, {}],
  ])('refuses %s with 400 and registers nothing', async (_case, chave, body) => {
    const auth = await pixAuth(simulator);
    const answer = await pixCall(simulator, pixPath(`/webhook/${encodeURIComponent(chave)}`), {
      method: 'PUT',
      headers: auth,
      body,
    });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({
      type: expect.stringMatching(/^https:\/\/pix\.bcb\.gov\.br\/api\/v2\/error\//),
      title: expect.any(String),
      status: 400,
    });
    expect(
      (await simulator.control.pix.state()).webhooks.filter(
        (w) => w.chave === chave && w.webhookUrl === (body as { webhookUrl?: string }).webhookUrl,
      ),
    ).toEqual([]);
  });
});

describe('charges', () => {
  it('creates an immediate charge and reads it under /api/v2 and /api/v3 alike; a due-date charge only at /cobv', async () => {
    const auth = await pixAuth(simulator);
    const put = await pixCall(simulator, pixPath(`/cob/${TXID}`), {
      method: 'PUT',
      headers: auth,
      body: { chave: EVP, valor: { original: '15.00' } },
    });
    expect(put.status).toBe(201);
    expect(put.json).toMatchObject({
      txid: TXID,
      status: 'ATIVA',
      chave: EVP,
      valor: { original: '15.00' },
      revisao: 0,
    });
    const v3 = await pixCall(simulator, `/api/v3/cob/${TXID}`, { headers: auth });
    expect(v3.json).toEqual((await pixCall(simulator, pixPath(`/cob/${TXID}`), { headers: auth })).json);
    expect((await pixCall(simulator, pixPath(`/cobv/${TXID}`), { headers: auth })).status).toBe(404);
    const short = await pixCall(simulator, pixPath('/cob/curto'), {
      method: 'PUT',
      headers: auth,
      body: { chave: EVP, valor: { original: '1.00' } },
    });
    expect(short.status).toBe(400);
  });
});

describe('callbacks', () => {
  it("announces a paid charge to {url}/pix with the provider's certificate and no credential; the query confirms it, and the charge shows it", async () => {
    await registerWebhook(EVP, `${target.url}/hook`);
    const charge = await simulator.control.pix.createCharge({ chave: EVP, valor: '42.50' });
    const paid = await simulator.control.pix.payCharge(charge.txid);
    const [callback] = await delivered();
    expect(callback.path).toBe('/hook/pix');
    expect(callback.headers.authorization).toBeUndefined();
    expect(callback.cert).toEqual({
      commonName: 'webhook-pix.bank-simulator.local',
      fingerprint256: expect.any(String),
      authorized: true,
    });
    expect(callback.body).toEqual({
      pix: [
        {
          endToEndId: paid.pix[0].endToEndId,
          txid: charge.txid,
          valor: '42.50',
          componentesValor: { original: { valor: '42.50' } },
          horario: expect.any(String),
          chave: EVP,
        },
      ],
    });
    expect(paid.pix[0].endToEndId).toMatch(/^E01181521\d{12}[a-z0-9]{11}$/);
    const auth = await pixAuth(simulator, 'pix.read cob.read');
    expect((await pixCall(simulator, pixPath(`/pix/${paid.pix[0].endToEndId}`), { headers: auth })).json).toEqual(
      callback.body.pix[0],
    );
    expect((await pixCall(simulator, pixPath(`/cob/${charge.txid}`), { headers: auth })).json).toMatchObject({
      status: 'CONCLUIDA',
      pix: [{ endToEndId: paid.pix[0].endToEndId }],
    });
  });

  it('appends /pix to a registered URL as given: one ending in / is called at //pix', async () => {
    await registerWebhook(EVP, `${target.url}/hook/`);
    await simulator.control.pix.payKey(EVP, { valor: '1.00', txid: 'qrEstatico1' });
    expect((await delivered()).map((c) => c.path)).toEqual(['/hook//pix']);
  });

  it('never announces a Pix without a txid, and says why in the delivery log', async () => {
    await registerWebhook(EVP, `${target.url}/hook`);
    const paid = await simulator.control.pix.payKey(EVP, { valor: '3.00' });
    expect(paid.skipped).toEqual([expect.stringContaining('without a txid')]);
    expect(await delivered()).toEqual([]);
    const [record] = (await simulator.control.deliveries()).filter((d) => d.notificationId === paid.notificationIds[0]);
    expect(record).toMatchObject({ kind: 'pix', outcome: 'NÃO ENVIADO' });
  });

  it('groups several Pix of one key in one call, one call per key', async () => {
    await registerWebhook(EVP, `${target.url}/evp`);
    await registerWebhook(EMAIL, `${target.url}/email`);
    const charge = await simulator.control.pix.createCharge({ chave: EVP, valor: '9.00' });
    await simulator.control.pix.payMany([
      { txid: charge.txid },
      { chave: EVP, valor: '2.00', txid: 'estatico2' },
      { chave: EMAIL, valor: '5.00', txid: 'estatico3' },
    ]);
    const calls = await delivered();
    expect(calls.map((c) => [c.path, c.body.pix.length]).sort()).toEqual([
      ['/email/pix', 1],
      ['/evp/pix', 2],
    ]);
  });

  it('announces a refund once it is final, with the refund; in process, nothing', async () => {
    await registerWebhook(EVP, `${target.url}/hook`);
    const {
      pix: [pix],
    } = await simulator.control.pix.payKey(EVP, { valor: '20.00', txid: 'reembolso1' });
    await delivered();
    target.requests.length = 0;
    const refund = await simulator.control.pix.refund(pix.endToEndId, { valor: '5.00', id: 'dev1' });
    expect(refund).toMatchObject({
      id: 'dev1',
      status: RefundStatus.IN_PROCESS,
      rtrId: expect.stringMatching(/^D01181521/),
    });
    expect(await delivered()).toEqual([]);
    await simulator.control.pix.settleRefund(pix.endToEndId, 'dev1', RefundStatus.RETURNED);
    const [callback] = await delivered();
    expect(callback.body.pix[0].devolucoes).toEqual([
      expect.objectContaining({
        id: 'dev1',
        status: 'DEVOLVIDO',
        horario: { solicitacao: expect.any(String), liquidacao: expect.any(String) },
      }),
    ]);
    const auth = await pixAuth(simulator, 'pix.read');
    expect(
      (await pixCall(simulator, pixPath(`/pix/${pix.endToEndId}/devolucao/dev1`), { headers: auth })).json,
    ).toMatchObject({ id: 'dev1', status: 'DEVOLVIDO' });
  });

  it("delivers another customer's Pix to a URL it registered, with the genuine certificate: our query does not know it", async () => {
    await registerWebhook(EVP, `${target.url}/hook`);
    const { pix } = await simulator.control.pix.deliverForeign({ valor: '999.00' });
    const [callback] = await delivered();
    expect(callback).toMatchObject({
      path: '/hook/pix',
      cert: { authorized: true },
      body: { pix: [{ endToEndId: pix.endToEndId, chave: 'outro.cliente@example.com' }] },
    });
    const auth = await pixAuth(simulator, 'pix.read');
    expect((await pixCall(simulator, pixPath(`/pix/${pix.endToEndId}`), { headers: auth })).status).toBe(404);
  });

  it('sends the validation call to the bare URL with no pix array', async () => {
    await registerWebhook(EVP, `${target.url}/hook`);
    await simulator.control.pix.sendValidation();
    expect((await delivered()).map((c) => [c.path, c.body])).toEqual([['/hook', {}]]);
  });

  it("writes horario without its zone, in Brasília's wall clock, under pixTimeZone left-out: the same instant", async () => {
    await registerWebhook(EVP, `${target.url}/hook`);
    await simulator.control.setBehaviour({ pixTimeZone: PixTimeZone.LEFT_OUT });
    const {
      pix: [paid],
    } = await simulator.control.pix.payKey(EVP, { valor: '5.00', txid: 'semzona' });
    const [callback] = await delivered();
    const written = (callback.body as { pix: Array<{ horario: string }> }).pix[0].horario;
    expect(written).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
    expect(Date.parse(`${written}-03:00`)).toBe(Date.parse(paid.horario));
  });

  it('plays the readings PIX-NOTES.md lists: chave left out of callbacks, endToEndID, horario as an object in queries, one refund as an object', async () => {
    await registerWebhook(EVP, `${target.url}/hook`);
    await simulator.control.setBehaviour({
      pixCallbackKey: PixCallbackKey.LEFT_OUT,
      pixEndToEndIdField: PixEndToEndIdField.END_TO_END_ID_UPPER,
      pixQueryTime: PixQueryTime.OBJECT,
      pixRefundsShape: PixRefundsShape.OBJECT,
    });
    const {
      pix: [pix],
    } = await simulator.control.pix.payKey(EVP, { valor: '7.00', txid: 'leituras1' });
    const [callback] = await delivered();
    expect(callback.body.pix[0]).toEqual({
      endToEndID: pix.endToEndId,
      txid: 'leituras1',
      valor: '7.00',
      horario: pix.horario,
    });
    await simulator.control.pix.refund(pix.endToEndId, { valor: '7.00', id: 'dev2' });
    await simulator.control.pix.settleRefund(pix.endToEndId, 'dev2', RefundStatus.NOT_DONE, 'saldo insuficiente');
    const auth = await pixAuth(simulator, 'pix.read');
    const queried = (await pixCall(simulator, pixPath(`/pix/${pix.endToEndId}`), { headers: auth })).json;
    expect(queried).toMatchObject({
      endToEndID: pix.endToEndId,
      chave: EVP,
      horario: { solicitacao: pix.horario, liquidacao: pix.horario },
      devolucoes: { id: 'dev2', status: 'NAO_REALIZADO', motivo: 'saldo insuficiente' },
    });
  });
});

describe('the listing (GET /pix)', () => {
  it('pages from 0, at most 1000 a page, and refuses a window without its ends', async () => {
    const auth = await pixAuth(simulator, 'pix.read');
    for (const txid of ['lista1', 'lista2', 'lista3'])
      await simulator.control.pix.payKey(EMAIL, { valor: '1.00', txid });
    const inicio = new Date(Date.now() - 3_600_000).toISOString();
    const fim = new Date(Date.now() + 60_000).toISOString();
    const page = (n: number) =>
      pixCall(
        simulator,
        pixPath(
          `/pix?inicio=${inicio}&fim=${fim}&txIdPresente=true&paginacao.paginaAtual=${n}&paginacao.itensPorPagina=2`,
        ),
        { headers: auth },
      );
    const first = (await page(0)).json;
    expect(first.parametros).toMatchObject({ inicio, fim, paginacao: { paginaAtual: 0, itensPorPagina: 2 } });
    const total = first.parametros.paginacao.quantidadeTotalDeItens as number;
    expect(total).toBeGreaterThanOrEqual(3);
    expect(first.pix).toHaveLength(2);
    expect(first.parametros.paginacao.quantidadeDePaginas).toBe(Math.ceil(total / 2));
    expect(
      (
        await pixCall(simulator, pixPath(`/pix?inicio=${inicio}&fim=${fim}&paginacao.itensPorPagina=1001`), {
          headers: auth,
        })
      ).status,
    ).toBe(400);
    expect((await pixCall(simulator, pixPath(`/pix?inicio=${inicio}`), { headers: auth })).json).toMatchObject({
      status: 400,
      detail: 'fim é obrigatório.',
    });
  });
});

it('tells where the Pix API is, its keys, scopes and the certificate its callbacks present', () => {
  expect(simulator.info).toMatchObject({
    pixBaseUrl: `${simulator.baseUrl}/api/v2`,
    pixTokenUrl: `${simulator.baseUrl}/oauth/token`,
    pixKeys: expect.arrayContaining([EVP, EMAIL]),
    pixWebhookCertFile: simulator.pixWebhookCertFile,
    credentials: { pix: { clientId: expect.stringMatching(/^simulator-pix-/) } },
  });
});

it("keeps its Pix book in the exported state (a deployed simulator's), and takes back a state stored before it spoke Pix", () => {
  const engine = () => bareEngine(simulator);
  const first = engine();
  first.pix.putWebhook(EVP, { webhookUrl: 'https://r.example/h' });
  const state = first.exportState();
  const second = engine();
  second.restoreState(state);
  expect(second.pix.getWebhook(EVP)).toMatchObject({ webhookUrl: 'https://r.example/h' });
  // A state stored before: no Pix book, no Pix settings in its behaviour.
  const { pix: _pix, behaviour, ...before } = state;
  const oldBehaviour = Object.fromEntries(
    Object.entries(behaviour).filter(([key]) => !key.startsWith('pix')),
  ) as unknown as typeof behaviour;
  second.restoreState({ ...before, behaviour: oldBehaviour });
  expect(second.pix.exportState().webhooks).toEqual([]);
  expect(second.behaviour).toMatchObject({ pixGrantType: PixGrantType.BODY, pixRefundsShape: PixRefundsShape.ARRAY });
});
