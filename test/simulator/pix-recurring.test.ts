/**
 * Pix Automático over HTTPS in the simulator (the standard's API Pix 2.9.0): the account's
 * `webhookrec` and `webhookcobr`, the callbacks to `{url}/rec` and `{url}/cobr` (the provider's
 * certificate, no credential), `GET /rec/{idRec}` and `GET /cobr/{txid}` with their scopes and
 * listings, and the control calls that move a recurrence and its charges through the standard's
 * statuses.
 */
import {
  ActivationJourney,
  AttemptKind,
  AttemptStatus,
  CancelledBy,
  RecStatus,
  RecurringChargeStatus,
  RetryPolicy,
} from '../../contracts/pix-recurring';
import { RefundNature, RefundStatus } from '../../contracts/pix';
import { QueryOperation } from '../../simulator/routes';
import { PixBook } from '../../simulator/pix/pix-book';
import { RecurringBook } from '../../simulator/pix/recurring-book';
import { PixRecurringAnswers, STANDARD_PIX_BEHAVIOUR } from '../../simulator/pix/pix-behaviour';
import { cobrNotificationView, cobrView, recNotificationView, recView } from '../../simulator/pix/recurring-views';
import { readRecurrence, readRecurringCharge } from '../../lambda/bank/pix/recurring-answers';
import { recurringReceiverOf, RecurringWebhookKind } from '../../simulator/pix/recurring-model';
import { type BankSimulator, SAMPLE_ACCOUNT } from '../../simulator/simulator';
import { pixOpenApiValidator } from '../support/pix-openapi';
import { bareEngine, pixAuth, pixCall, pixPath, startPixPeers, stopPixPeers } from '../support/pix-session';
import { makeReceiverPki, type Target } from '../support/tls-targets';

let simulator: BankSimulator;
let target: Target;
const pki = makeReceiverPki();

beforeAll(async () => {
  ({ simulator, target } = await startPixPeers(pki));
});

afterAll(() => stopPixPeers({ simulator, target }));

afterEach(async () => {
  await simulator.control.waitForDeliveries(10_000);
  target.requests.length = 0;
});

const get = async (rest: string, scope?: string) =>
  pixCall(simulator, pixPath(rest), { headers: await pixAuth(simulator, scope) });
const delivered = async () => {
  expect(await simulator.control.waitForDeliveries(10_000)).toBe(true);
  return target.requests.map((r) => ({ path: r.path, body: JSON.parse(r.body) as Record<string, any>, r }));
};
const register = async (kind: string, url = target.url) => {
  const answer = await pixCall(simulator, pixPath(`/webhook${kind}`), {
    method: 'PUT',
    headers: await pixAuth(simulator),
    body: { webhookUrl: url },
  });
  expect(answer.status).toBe(200);
};

describe('the recurring webhooks (one each per account, no key)', () => {
  it('registers, reads and deletes webhookrec and webhookcobr apart, each under its own scope', async () => {
    await register('rec');
    expect(await get('/webhookrec')).toMatchObject({ status: 200, json: { webhookUrl: target.url } });
    expect((await get('/webhookcobr')).status).toBe(404);
    await register('cobr');
    // A token for webhookrec only reads no webhookcobr.
    expect((await get('/webhookcobr', 'webhookrec.read')).status).toBe(403);
    expect((await get('/webhookcobr', 'webhookcobr.read')).json).toMatchObject({ webhookUrl: target.url });
    const removed = await pixCall(simulator, pixPath('/webhookrec'), {
      method: 'DELETE',
      headers: await pixAuth(simulator),
    });
    expect(removed.status).toBe(204);
    expect((await get('/webhookrec')).status).toBe(404);
    expect((await get('/webhookcobr')).status).toBe(200);
  });

  it("refuses a URL that is not https with the standard's problem", async () => {
    const answer = await pixCall(simulator, pixPath('/webhookcobr'), {
      method: 'PUT',
      headers: await pixAuth(simulator),
      body: { webhookUrl: 'http://example.com/hook' },
    });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ type: 'https://pix.bcb.gov.br/api/v2/error/WebhookOperacaoInvalida' });
  });
});

describe('a recurrence from its creation to its end', () => {
  beforeAll(async () => {
    await register('rec');
    await register('cobr');
  });

  it("announces each change at {url}/rec with the provider's certificate and no credential; GET /rec/{idRec} shows it", async () => {
    const created = await simulator.control.pix.createRecurrence({ valorRec: '49.90' });
    expect(created.idRec).toMatch(/^RN[0-9A-Z]{8}\d{8}[a-zA-Z0-9]{11}$/);
    expect(created).toMatchObject({ status: RecStatus.CREATED, skipped: null });
    await simulator.control.pix.approveRecurrence(created.idRec, ActivationJourney.JOURNEY_3);
    const calls = await delivered();
    expect(calls.map((c) => [c.path, c.body.recs[0].status])).toEqual([
      ['/rec', RecStatus.CREATED],
      ['/rec', RecStatus.APPROVED],
    ]);
    expect(calls[1].body.recs[0]).toEqual({
      idRec: created.idRec,
      status: RecStatus.APPROVED,
      atualizacao: [
        { status: RecStatus.CREATED, data: expect.any(String) },
        { status: RecStatus.APPROVED, data: expect.any(String) },
      ],
      ativacao: { tipoJornada: ActivationJourney.JOURNEY_3 },
    });
    expect(calls[1].r.headers.authorization).toBeUndefined();
    expect(calls[1].r.clientCertificate).toBeDefined();
    const read = await get(`/rec/${created.idRec}`, 'rec.read');
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({
      idRec: created.idRec,
      status: RecStatus.APPROVED,
      valor: { valorRec: '49.90' },
      politicaRetentativa: RetryPolicy.NONE,
      recebedor: { cnpj: expect.stringMatching(/^[0-9A-Z]{14}$/), ispbParticipante: expect.any(String) },
    });
  });

  it('ends rejected, expired or cancelled (who and why written), and a final recurrence moves no more', async () => {
    const rejected = await simulator.control.pix.createRecurrence();
    expect(await simulator.control.pix.rejectRecurrence(rejected.idRec, { codigo: 'AP14' })).toMatchObject({
      status: RecStatus.REJECTED,
      encerramento: { rejeicao: { codigo: 'AP14' } },
    });
    const expired = await simulator.control.pix.createRecurrence();
    expect((await simulator.control.pix.expireRecurrence(expired.idRec)).status).toBe(RecStatus.EXPIRED);
    const cancelled = await simulator.control.pix.createRecurrence();
    await simulator.control.pix.approveRecurrence(cancelled.idRec);
    expect(
      await simulator.control.pix.cancelRecurrence(cancelled.idRec, {
        solicitante: CancelledBy.RECEIVER,
        codigo: 'ACCL',
      }),
    ).toMatchObject({
      status: RecStatus.CANCELLED,
      encerramento: { cancelamento: { solicitante: CancelledBy.RECEIVER, codigo: 'ACCL' } },
    });
    await expect(simulator.control.pix.approveRecurrence(cancelled.idRec)).rejects.toThrow(/CANCELADA \(final\)/);
    await expect(simulator.control.pix.rejectRecurrence(expired.idRec, { codigo: 'XX99' })).rejects.toThrow(
      /AP13, AP14/,
    );
  });

  it('answers 404 for a recurrence that is not this account’s, and refuses a token without rec.read', async () => {
    expect((await get('/rec/RN0118152120260101abcdefghijk')).status).toBe(404);
    const created = await simulator.control.pix.createRecurrence();
    expect((await get(`/rec/${created.idRec}`, 'cob.read')).status).toBe(403);
  });
});

describe('recurring charges', () => {
  const approved = async (input: { politicaRetentativa?: RetryPolicy } = {}) => {
    const rec = await simulator.control.pix.createRecurrence({ valorRec: '30.00', ...input });
    await simulator.control.pix.approveRecurrence(rec.idRec);
    return rec.idRec;
  };

  beforeAll(async () => {
    await register('rec');
    await register('cobr');
  });

  it("pays a scheduled charge: {url}/cobr tells it concluded with its Pix, GET /cobr/{txid} shows it, and the Pix is the account's (no key) under the attempt's end-to-end id", async () => {
    const idRec = await approved();
    const issued = await simulator.control.pix.issueRecurringCharge(idRec, { dataDeVencimento: '2026-12-10' });
    expect(issued).toMatchObject({
      status: RecurringChargeStatus.ACTIVE,
      valor: { original: '30.00' },
      tentativas: [{ tipo: AttemptKind.SCHEDULED, status: AttemptStatus.SCHEDULED, dataLiquidacao: '2026-12-10' }],
    });
    const e2e = issued.tentativas[0].endToEndId;
    await delivered();
    target.requests.length = 0;
    const paid = await simulator.control.pix.payRecurringCharge(issued.txid);
    expect(paid.paidPix).toMatchObject({ endToEndId: e2e, txid: issued.txid, valor: '30.00' });
    expect(paid.paidPix).not.toHaveProperty('chave');
    const calls = await delivered();
    const cobr = calls.find((c) => c.path === '/cobr')!.body.cobsr[0];
    expect(cobr).toMatchObject({
      idRec,
      txid: issued.txid,
      status: RecurringChargeStatus.CONCLUDED,
      tentativas: [{ status: AttemptStatus.PAID, endToEndId: e2e }],
      pix: [{ endToEndId: e2e, txid: issued.txid, valor: '30.00' }],
    });
    const read = await get(`/cobr/${issued.txid}`, 'cobr.read');
    expect(read.json).toMatchObject({ status: RecurringChargeStatus.CONCLUDED, pix: [{ endToEndId: e2e }] });
    expect((await get(`/pix/${e2e}`)).json).toMatchObject({ endToEndId: e2e, txid: issued.txid });
    // Concluded is final: it is paid once.
    await expect(simulator.control.pix.payRecurringCharge(issued.txid)).rejects.toThrow(/CONCLUIDA \(final\)/);
  });

  it("refunds a recurring charge's Pix only with the natures the standard gives Pix Automático (ORIGINAL, MED_FRAUDE, MED_PIX_AUTOMATICO)", async () => {
    const issued = await simulator.control.pix.issueRecurringCharge(await approved());
    const { paidPix } = await simulator.control.pix.payRecurringCharge(issued.txid);
    for (const natureza of [RefundNature.MED_OPERACIONAL, RefundNature.RETIRADA])
      await expect(simulator.control.pix.refund(paidPix.endToEndId, { valor: '1.00', natureza })).rejects.toThrow(
        /ORIGINAL, MED_FRAUDE, MED_PIX_AUTOMATICO/,
      );
    const refund = await simulator.control.pix.refund(paidPix.endToEndId, {
      valor: '30.00',
      natureza: RefundNature.MED_PIX_AUTOMATICO,
    });
    expect(refund).toMatchObject({ natureza: RefundNature.MED_PIX_AUTOMATICO, status: RefundStatus.IN_PROCESS });
    // A common Pix keeps every nature.
    const common = await simulator.control.pix.payAccount({ valor: '5.00' });
    expect(
      await simulator.control.pix.refund(common.pix[0].endToEndId, {
        valor: '1.00',
        natureza: RefundNature.MED_OPERACIONAL,
      }),
    ).toMatchObject({ natureza: RefundNature.MED_OPERACIONAL });
  });

  it('rejects a charge whose attempt fails when it allows no retry, with the rejection written', async () => {
    const issued = await simulator.control.pix.issueRecurringCharge(await approved());
    const failed = await simulator.control.pix.failRecurringAttempt(issued.txid, { codigo: 'AM02' });
    expect(failed).toMatchObject({
      status: RecurringChargeStatus.REJECTED,
      encerramento: { rejeicao: { codigo: 'AM02' } },
      tentativas: [{ status: AttemptStatus.REJECTED, rejeicao: { codigo: 'AM02' } }],
    });
  });

  it('retries up to 3 times within 7 days under PERMITE_3R_7D, then expires; a code that ends the charge rejects it at once', async () => {
    const idRec = await approved({ politicaRetentativa: RetryPolicy.THREE_IN_SEVEN_DAYS });
    expect(idRec.startsWith('RR')).toBe(true);
    const issued = await simulator.control.pix.issueRecurringCharge(idRec);
    let charge = issued;
    for (let i = 0; i < 3; i++) charge = await simulator.control.pix.failRecurringAttempt(issued.txid);
    expect(charge.status).toBe(RecurringChargeStatus.ACTIVE);
    expect(charge.tentativas.map((t) => [t.tipo, t.status])).toEqual([
      [AttemptKind.SCHEDULED, AttemptStatus.REJECTED],
      [AttemptKind.RETRY, AttemptStatus.REJECTED],
      [AttemptKind.RETRY, AttemptStatus.REJECTED],
      [AttemptKind.RETRY, AttemptStatus.SCHEDULED],
    ]);
    // Each attempt has its own end-to-end id.
    expect(new Set(charge.tentativas.map((t) => t.endToEndId)).size).toBe(4);
    expect((await simulator.control.pix.failRecurringAttempt(issued.txid)).status).toBe(RecurringChargeStatus.EXPIRED);
    const ending = await simulator.control.pix.issueRecurringCharge(idRec);
    expect(await simulator.control.pix.failRecurringAttempt(ending.txid, { codigo: 'AC05' })).toMatchObject({
      status: RecurringChargeStatus.REJECTED,
      tentativas: [{ status: AttemptStatus.REJECTED }],
    });
  });

  it('is cancelled by either side, and is issued only for an approved recurrence', async () => {
    const idRec = await approved();
    const issued = await simulator.control.pix.issueRecurringCharge(idRec);
    expect(
      await simulator.control.pix.cancelRecurringCharge(issued.txid, {
        solicitante: CancelledBy.PAYER,
        codigo: 'CCLD',
      }),
    ).toMatchObject({
      status: RecurringChargeStatus.CANCELLED,
      encerramento: { cancelamento: { solicitante: CancelledBy.PAYER, codigo: 'CCLD' } },
      tentativas: [{ status: AttemptStatus.CANCELLED }],
    });
    const waiting = await simulator.control.pix.createRecurrence({ valorRec: '1.00' });
    await expect(simulator.control.pix.issueRecurringCharge(waiting.idRec)).rejects.toThrow(/CRIADA/);
  });

  it('lists recurrences and charges by creation time, paged; a window is required', async () => {
    // An hour on, so that nothing made by the tests before is in the window.
    const { offsetSeconds } = await simulator.control.advanceClock(3600);
    const before = new Date(Date.now() + offsetSeconds * 1000 - 500).toISOString();
    const idRec = await approved();
    await simulator.control.pix.issueRecurringCharge(idRec);
    await simulator.control.pix.issueRecurringCharge(idRec);
    const after = new Date(Date.now() + offsetSeconds * 1000 + 1000).toISOString();
    const window = `inicio=${encodeURIComponent(before)}&fim=${encodeURIComponent(after)}`;
    const counted = simulator.queryCounts()[QueryOperation.RECURRING_LISTING];
    const recs = await get(`/rec?${window}`);
    expect(recs.json.recs.map((r: { idRec: string }) => r.idRec)).toEqual([idRec]);
    const cobrs = await get(`/cobr?${window}&paginacao.itensPorPagina=1`);
    expect(cobrs.json.parametros.paginacao).toMatchObject({ itensPorPagina: 1, quantidadeDePaginas: 2 });
    expect(cobrs.json.cobsr).toHaveLength(1);
    expect(simulator.queryCounts()[QueryOperation.RECURRING_LISTING]).toBe(counted + 2);
    expect((await get('/cobr')).json).toMatchObject({ type: expect.stringContaining('ConsultaInvalida') });
  });

  it('keeps nothing from the callbacks when the provider drops a webhook: the change is logged as not sent', async () => {
    await simulator.control.pix.dropRecurringWebhook(RecurringWebhookKind.COBR);
    const issued = await simulator.control.pix.issueRecurringCharge(await approved());
    expect(issued.skipped).toBe('no webhookcobr registered');
    expect((await delivered()).map((c) => c.path)).toEqual(['/rec', '/rec']);
    await register('cobr');
  });
});

describe("the standard's schemas", () => {
  it('hold every recurring answer and callback: RecCompleta, CobRCompleta, their listings, RecNotification, CobRNotification, the webhooks', async () => {
    const problems = pixOpenApiValidator();
    await register('rec');
    await register('cobr');
    const rec = await simulator.control.pix.createRecurrence({ valorRec: '12.34' });
    await simulator.control.pix.approveRecurrence(rec.idRec);
    const paid = await simulator.control.pix.issueRecurringCharge(rec.idRec);
    await simulator.control.pix.payRecurringCharge(paid.txid);
    const failed = await simulator.control.pix.issueRecurringCharge(rec.idRec);
    await simulator.control.pix.failRecurringAttempt(failed.txid);
    const cancelled = await simulator.control.pix.createRecurrence();
    await simulator.control.pix.cancelRecurrence(cancelled.idRec);
    const window = `inicio=${encodeURIComponent(new Date(0).toISOString())}&fim=${encodeURIComponent(new Date(Date.now() + 86_400_000).toISOString())}`;
    const answers: Array<[string, unknown]> = [
      ['WebhookRecCompleto', (await get('/webhookrec')).json],
      ['WebhookCobRCompleto', (await get('/webhookcobr')).json],
      ['RecCompleta', (await get(`/rec/${rec.idRec}`)).json],
      ['RecCompleta', (await get(`/rec/${cancelled.idRec}`)).json],
      ['CobRCompleta', (await get(`/cobr/${paid.txid}`)).json],
      ['CobRCompleta', (await get(`/cobr/${failed.txid}`)).json],
      ['RecsConsultadas', (await get(`/rec?${window}`)).json],
      ['CobsRConsultadas', (await get(`/cobr?${window}`)).json],
    ];
    for (const call of await delivered()) {
      if (call.path === '/rec') for (const r of call.body.recs) answers.push(['RecNotification', r]);
      if (call.path === '/cobr') for (const c of call.body.cobsr) answers.push(['CobRNotification', c]);
    }
    expect(answers.filter(([component]) => component.endsWith('Notification')).length).toBeGreaterThanOrEqual(6);
    expect(answers.map(([component, value]) => [component, problems(component, value)])).toEqual(
      answers.map(([component]) => [component, []]),
    );
  });
});

describe('the book apart from HTTP', () => {
  it('gives back what it held after an export and a restore, and a state stored before it spoke Pix Automático restores empty', () => {
    let now = Date.parse('2026-11-29T12:00:00Z');
    const pix = new PixBook({ keys: ['pix@example.com'], now: () => now });
    const book = new RecurringBook({ receiver: recurringReceiverOf(SAMPLE_ACCOUNT), now: () => now, pix });
    book.webhooks.put(RecurringWebhookKind.REC, { webhookUrl: 'https://example.com/hooks' });
    const rec = book.createRecurrence({ valorRec: '10.00' });
    book.approve(rec.idRec);
    const charge = book.issueCharge(rec.idRec);
    const state = book.exportState();
    now += 60_000;
    book.payCharge(charge.txid);
    book.cancel(rec.idRec);
    book.restoreState(state);
    expect(book.getRec(rec.idRec).status).toBe(RecStatus.APPROVED);
    expect(book.getCobr(charge.txid).status).toBe(RecurringChargeStatus.ACTIVE);
    expect(book.webhooks.of(RecurringWebhookKind.REC)?.webhookUrl).toBe('https://example.com/hooks');
    const engine = bareEngine(simulator);
    const stored = engine.exportState();
    engine.recurring.createRecurrence();
    engine.restoreState({ ...stored, recurring: undefined });
    expect(engine.recurring.exportState()).toEqual({ webhooks: {}, recs: [], cobrs: [] });
  });
});

describe('lean answers (PixRecurringAnswers.LEAN): what the schemas require, and callbacks naming only the id', () => {
  const lean = { ...STANDARD_PIX_BEHAVIOUR, pixRecurringAnswers: PixRecurringAnswers.LEAN };

  it('answers a recurrence and a charge with their required fields alone, and the library reads both', () => {
    const now = () => Date.parse('2026-11-29T12:00:00Z');
    const pix = new PixBook({ keys: ['pix@example.com'], now });
    const book = new RecurringBook({ receiver: recurringReceiverOf(SAMPLE_ACCOUNT), now, pix });
    const rec = book.createRecurrence({ valorRec: '49.90' });
    book.approve(rec.idRec);
    const charge = book.issueCharge(rec.idRec);
    expect(recView(book.getRec(rec.idRec), lean)).toEqual({ idRec: rec.idRec, status: 'APROVADA' });
    expect(recNotificationView(book.getRec(rec.idRec), lean)).toEqual({ idRec: rec.idRec });
    const view = cobrView(book.getCobr(charge.txid), () => undefined as never, lean);
    expect(Object.keys(view).sort()).toEqual(['calendario', 'idRec', 'status', 'txid', 'valor']);
    expect(cobrNotificationView(book.getCobr(charge.txid), () => undefined as never, lean)).toEqual({
      txid: charge.txid,
    });
    expect(readRecurrence(recView(book.getRec(rec.idRec), lean), 'q', 200)).toMatchObject({
      status: 'APROVADA',
      history: [],
    });
    expect(readRecurringCharge(view, 'q', 200)).toMatchObject({ status: 'ATIVA', attempts: [], receiver: {} });
  });
});
