/**
 * The simulated provider's Pix book against the standard's rules (PIX-NOTES.md): webhooks per key,
 * charges and their txids, Pix received and the queries that verify them, refunds, and the
 * standard's RFC 7807 problems for what it refuses.
 */
import { BankError } from '../../simulator/errors';
import { PixBook } from '../../simulator/pix/pix-book';
import { ChargeStatus, RefundStatus } from '../../simulator/pix/pix-model';

const EVP = '3f2c1a9e-7b4d-4e0a-9c61-2d5f8b7a1e34';
const EMAIL = 'financeiro@empresa.example.com';
const OTHER_KEY = 'b7e1c0de-0000-4000-8000-000000000001';
const TXID = 'A1b2C3d4E5f6G7h8I9j0K1l2M3';
const T0 = Date.parse('2026-11-27T12:00:00.000Z');

function book(start = T0) {
  let now = start;
  const pix = new PixBook({ keys: [EVP, EMAIL], now: () => now });
  return {
    pix,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** The problem `fn` throws: its status and body. */
function problemOf(fn: () => unknown): { status: number; body: Record<string, unknown> } {
  try {
    fn();
  } catch (error) {
    if (error instanceof BankError) return { status: error.status, body: error.body as Record<string, unknown> };
    throw error;
  }
  throw new Error('nothing was thrown');
}

describe('webhooks, one per key', () => {
  it("registers, reads, replaces and removes the webhook of one of the account's keys", () => {
    const { pix } = book();
    expect(pix.putWebhook(EVP, { webhookUrl: 'https://hooks.example.com/bank' })).toEqual({
      webhookUrl: 'https://hooks.example.com/bank',
      chave: EVP,
      criacao: '2026-11-27T12:00:00.000Z',
    });
    pix.putWebhook(EVP, { webhookUrl: 'https://hooks.example.com/v2' });
    expect(pix.getWebhook(EVP).webhookUrl).toBe('https://hooks.example.com/v2');
    pix.deleteWebhook(EVP);
    expect(problemOf(() => pix.getWebhook(EVP))).toEqual({
      status: 404,
      body: {
        type: 'https://pix.bcb.gov.br/api/v2/error/NaoEncontrado',
        title: 'Não encontrado',
        status: 404,
        detail: `Nenhum webhook para a chave ${EVP}.`,
      },
    });
    expect(problemOf(() => pix.deleteWebhook(EVP)).status).toBe(404);
  });

  it('refuses a key the account does not hold, a key over 77 characters, and a URL that is not https, as RFC 7807 problems naming the field', () => {
    const { pix } = book();
    expect(problemOf(() => pix.putWebhook(OTHER_KEY, { webhookUrl: 'https://hooks.example.com' }))).toMatchObject({
      status: 400,
      body: {
        type: 'https://pix.bcb.gov.br/api/v2/error/WebhookOperacaoInvalida',
        status: 400,
        violacoes: [{ propriedade: 'chave', valor: OTHER_KEY }],
      },
    });
    expect(
      problemOf(() => pix.putWebhook(`${'a'.repeat(70)}@b.example`, { webhookUrl: 'https://x.example' })).body.detail,
    ).toMatch(/de 1 a 77 caracteres/);
    expect(problemOf(() => pix.putWebhook(EVP, { webhookUrl: 'http://hooks.example.com' })).body).toMatchObject({
      violacoes: [{ propriedade: 'webhookUrl' }],
    });
    expect(problemOf(() => pix.putWebhook(EVP, {})).status).toBe(400);
    expect(problemOf(() => pix.getWebhook(EVP)).status).toBe(404);
  });

  it('lists every webhook a page at a time, pages counted from 0', () => {
    const { pix } = book();
    pix.putWebhook(EVP, { webhookUrl: 'https://a.example' });
    pix.putWebhook(EMAIL, { webhookUrl: 'https://b.example' });
    const first = pix.listWebhooks({ itensPorPagina: '1' });
    expect(first.parametros.paginacao).toEqual({
      paginaAtual: 0,
      itensPorPagina: 1,
      quantidadeDePaginas: 2,
      quantidadeTotalDeItens: 2,
    });
    expect(first.webhooks.map((w) => w.chave)).toEqual([EVP]);
    expect(pix.listWebhooks({ itensPorPagina: '1', paginaAtual: '1' }).webhooks.map((w) => w.chave)).toEqual([EMAIL]);
  });
});

describe('charges', () => {
  it('makes an immediate charge (cob) and one with a due date (cobv), each read only at its own path', () => {
    const { pix } = book();
    const cob = pix.putCharge('cob', TXID, {
      chave: EVP,
      valor: { original: '123.45' },
      calendario: { expiracao: 3600 },
      solicitacaoPagador: 'Pedido 42',
    });
    expect(cob).toMatchObject({
      txid: TXID,
      revisao: 0,
      status: ChargeStatus.ACTIVE,
      chave: EVP,
      valor: { original: '123.45' },
      calendario: { criacao: '2026-11-27T12:00:00.000Z', expiracao: 3600 },
      pix: [],
    });
    const dueTxid = `${TXID}XYZ`;
    const due = pix.putCharge('cobv', dueTxid, {
      chave: EMAIL,
      valor: { original: '10.00' },
      calendario: { dataDeVencimento: '2026-12-10' },
    });
    expect(due.calendario).toEqual({
      criacao: '2026-11-27T12:00:00.000Z',
      dataDeVencimento: '2026-12-10',
      validadeAposVencimento: 30,
    });
    // What the standard requires of a due-date charge: its payer, its receiver with an address, its payload's location.
    expect(due).toMatchObject({
      devedor: { nome: expect.any(String) },
      recebedor: {
        logradouro: expect.any(String),
        cidade: expect.any(String),
        uf: 'RS',
        cep: expect.stringMatching(/^\d{8}$/),
      },
      location: expect.stringContaining(dueTxid.toLowerCase()),
    });
    expect(pix.getCharge('cob', TXID).txid).toBe(TXID);
    expect(problemOf(() => pix.getCharge('cobv', TXID)).status).toBe(404);
    expect(problemOf(() => pix.getCharge('cob', dueTxid)).status).toBe(404);
  });

  it("refuses a txid outside 26 to 35 letters and digits, a txid in use, an amount without two decimals, another's key, a cobv without its due date", () => {
    const { pix } = book();
    const body = { chave: EVP, valor: { original: '1.00' } };
    expect(problemOf(() => pix.putCharge('cob', 'A'.repeat(25), body)).body).toMatchObject({
      type: 'https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida',
      violacoes: [{ propriedade: 'txid' }],
    });
    expect(problemOf(() => pix.putCharge('cob', 'A'.repeat(36), body)).status).toBe(400);
    expect(problemOf(() => pix.putCharge('cob', `${TXID.slice(0, 25)}-`, body)).status).toBe(400);
    pix.putCharge('cob', TXID, body);
    expect(problemOf(() => pix.putCharge('cob', TXID, body)).body.detail).toMatch(/Já existe/);
    expect(problemOf(() => pix.putCharge('cob', `${TXID}1`, { chave: EVP, valor: { original: '1.5' } })).status).toBe(
      400,
    );
    expect(
      problemOf(() => pix.putCharge('cob', `${TXID}2`, { chave: OTHER_KEY, valor: { original: '1.00' } })).body.detail,
    ).toMatch(/não pertence/);
    expect(problemOf(() => pix.putCharge('cobv', `${TXID}3`, body)).body).toMatchObject({
      type: 'https://pix.bcb.gov.br/api/v2/error/CobVOperacaoInvalida',
    });
  });
});

describe('Pix received, and the queries that verify them', () => {
  it('concludes a charge its payer pays: the Pix carries its txid, amount, key and time, and the charge lists it', () => {
    const { pix, advance } = book();
    pix.putCharge('cob', TXID, { chave: EVP, valor: { original: '123.45' } });
    advance(90_000);
    const paid = pix.payCharge(TXID, { infoPagador: 'obrigado' });
    expect(paid).toMatchObject({
      txid: TXID,
      valor: '123.45',
      chave: EVP,
      horario: '2026-11-27T12:01:30.000Z',
      infoPagador: 'obrigado',
      devolucoes: [],
    });
    // E, the ISPB, the minute (UTC), 11 letters and digits: 32 characters.
    expect(paid.endToEndId).toMatch(/^E01181521202611271201[a-z0-9]{11}$/);
    expect(pix.getCharge('cob', TXID)).toMatchObject({ status: ChargeStatus.CONCLUDED, pix: [paid.endToEndId] });
    expect(pix.getPix(paid.endToEndId)).toEqual(paid);
    expect(problemOf(() => pix.payCharge(TXID)).body.detail).toMatch(/CONCLUIDA/);
  });

  it("receives a Pix to a key with a static code's short txid, or with none; refuses a charge's txid there and a key not the account's", () => {
    const { pix } = book();
    expect(pix.payKey(EMAIL, { valor: '5.00', txid: 'LOJA01' })).toMatchObject({ txid: 'LOJA01', chave: EMAIL });
    expect(pix.payKey(EMAIL, { valor: '7.00' }).txid).toBeUndefined();
    expect(problemOf(() => pix.payKey(EMAIL, { valor: '5.00', txid: TXID })).status).toBe(400);
    expect(problemOf(() => pix.payKey(OTHER_KEY, { valor: '5.00' })).status).toBe(404);
  });

  it("answers 404 for a Pix it does not hold (another customer's, or a malformed id)", () => {
    const { pix } = book();
    expect(problemOf(() => pix.getPix('E01181521202611271200abcdefghijk')).status).toBe(404);
    expect(problemOf(() => pix.getPix('../webhook')).status).toBe(404);
  });

  it("lists the window's Pix by time, filtered by txid, txid present and refund present, a page of at most 1000", () => {
    const { pix, advance } = book();
    pix.putCharge('cob', TXID, { chave: EVP, valor: { original: '1.00' } });
    const charged = pix.payCharge(TXID);
    advance(60_000);
    const loose = pix.payKey(EVP, { valor: '2.00' });
    advance(60_000);
    const later = pix.payKey(EVP, { valor: '3.00', txid: 'ABC' });
    const window = { inicio: '2026-11-27T11:00:00Z', fim: '2026-11-27T13:00:00-00:00' };
    expect(pix.listPix(window).pix.map((p) => p.endToEndId)).toEqual([
      charged.endToEndId,
      loose.endToEndId,
      later.endToEndId,
    ]);
    expect(pix.listPix({ ...window, txIdPresente: 'false' }).pix.map((p) => p.valor)).toEqual(['2.00']);
    expect(pix.listPix({ ...window, txid: TXID }).pix.map((p) => p.valor)).toEqual(['1.00']);
    expect(
      pix.listPix({ inicio: '2026-11-27T12:00:30Z', fim: '2026-11-27T12:01:30Z' }).pix.map((p) => p.valor),
    ).toEqual(['2.00']);
    pix.requestRefund(loose.endToEndId, 'D1', { valor: '1.00' });
    expect(pix.listPix({ ...window, devolucaoPresente: 'true' }).pix.map((p) => p.valor)).toEqual(['2.00']);
    const paged = pix.listPix({ ...window, itensPorPagina: '2', paginaAtual: '1' });
    expect(paged.parametros).toEqual({
      ...window,
      paginacao: { paginaAtual: 1, itensPorPagina: 2, quantidadeDePaginas: 2, quantidadeTotalDeItens: 3 },
    });
    expect(paged.pix.map((p) => p.valor)).toEqual(['3.00']);
  });

  it('refuses a listing without its window, with a time that is not RFC 3339, backwards, or pages out of bounds', () => {
    const { pix } = book();
    expect(problemOf(() => pix.listPix({ fim: '2026-11-27T13:00:00Z' })).body).toMatchObject({
      type: 'https://pix.bcb.gov.br/api/v2/error/ConsultaInvalida',
      violacoes: [{ propriedade: 'inicio' }],
    });
    expect(problemOf(() => pix.listPix({ inicio: '2026-11-27', fim: '2026-11-28T00:00:00Z' })).body).toMatchObject({
      violacoes: [{ propriedade: 'inicio', valor: '2026-11-27' }],
    });
    expect(problemOf(() => pix.listPix({ inicio: '2026-11-28T00:00:00Z', fim: '2026-11-27T00:00:00Z' })).status).toBe(
      400,
    );
    const window = { inicio: '2026-11-27T00:00:00Z', fim: '2026-11-28T00:00:00Z' };
    expect(problemOf(() => pix.listPix({ ...window, itensPorPagina: '1001' })).body.detail).toMatch(
      /itensPorPagina deve ser um inteiro de 1 a 1000/,
    );
    expect(problemOf(() => pix.listPix({ ...window, paginaAtual: '-1' })).status).toBe(400);
    // An empty listing says one page: the schema's minimum.
    expect(pix.listPix({ ...window, itensPorPagina: '1000' }).parametros.paginacao).toEqual({
      paginaAtual: 0,
      itensPorPagina: 1000,
      quantidadeDePaginas: 1,
      quantidadeTotalDeItens: 0,
    });
  });
});

describe('refunds', () => {
  it('refunds in process, then returned or not done: the final status is dated, a refund left undone frees its amount', () => {
    const { pix, advance } = book();
    const paid = pix.payKey(EVP, { valor: '10.00', txid: 'X1' });
    const first = pix.requestRefund(paid.endToEndId, 'D1', { valor: '6.00' });
    expect(first).toMatchObject({
      id: 'D1',
      valor: '6.00',
      natureza: 'ORIGINAL',
      status: RefundStatus.IN_PROCESS,
      horario: { solicitacao: '2026-11-27T12:00:00.000Z' },
    });
    expect(first.rtrId).toMatch(/^D01181521\d{12}[a-z0-9]{11}$/);
    expect(problemOf(() => pix.requestRefund(paid.endToEndId, 'D2', { valor: '4.01' })).body).toMatchObject({
      type: 'https://pix.bcb.gov.br/api/v2/error/PixDevolucaoInvalida',
    });
    advance(5_000);
    pix.settleRefund(paid.endToEndId, 'D1', RefundStatus.NOT_DONE, 'conta do pagador encerrada');
    expect(pix.getRefund(paid.endToEndId, 'D1')).toMatchObject({
      status: RefundStatus.NOT_DONE,
      motivo: 'conta do pagador encerrada',
      horario: { liquidacao: '2026-11-27T12:00:05.000Z' },
    });
    expect(problemOf(() => pix.settleRefund(paid.endToEndId, 'D1', RefundStatus.RETURNED)).status).toBe(400);
    // The undone refund returned nothing: the whole amount may be refunded again.
    pix.requestRefund(paid.endToEndId, 'D2', { valor: '10.00' });
    expect(pix.settleRefund(paid.endToEndId, 'D2', RefundStatus.RETURNED).devolucoes.map((d) => d.status)).toEqual([
      RefundStatus.NOT_DONE,
      RefundStatus.RETURNED,
    ]);
    expect(problemOf(() => pix.requestRefund(paid.endToEndId, 'D2', { valor: '1.00' })).body.detail).toMatch(
      /Já existe/,
    );
    expect(problemOf(() => pix.getRefund(paid.endToEndId, 'D9')).status).toBe(404);
  });
});

it('keeps its state as plain JSON: exported and restored, it answers the same', () => {
  const a = book();
  a.pix.putWebhook(EVP, { webhookUrl: 'https://a.example' });
  a.pix.putCharge('cob', TXID, { chave: EVP, valor: { original: '1.00' } });
  const paid = a.pix.payCharge(TXID);
  const state = JSON.parse(JSON.stringify(a.pix.exportState())) as ReturnType<PixBook['exportState']>;
  const b = book();
  b.pix.restoreState(state);
  expect(b.pix.getWebhook(EVP).webhookUrl).toBe('https://a.example');
  expect(b.pix.getCharge('cob', TXID).pix).toEqual([paid.endToEndId]);
  expect(b.pix.getPix(paid.endToEndId)).toEqual(paid);
});
