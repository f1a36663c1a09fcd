import { BankSimulator } from '../../simulator/simulator';
import { getEventListeners } from 'node:events';
import { sleepUnlessAborted, type DeliveryRecord } from '../../simulator/notifier';
import { bankCall, collectionHeaders, contractBody, paymentsHeaders } from '../support/bank-session';
import { makeReceiverPki, startTarget, type ReceiverPki, type Target } from '../support/tls-targets';

const DEADLINE_MS = 1000; // the bank's is 10 s; shortened here only
const PAYMENT_TOKEN = 'payment-callback-token-value';
let pki: ReceiverPki;
let simulator: BankSimulator;
let good: Target;
let contractId: number;

beforeAll(async () => {
  pki = makeReceiverPki();
  simulator = await BankSimulator.start({ trustedCas: [pki.ca.certPem], deliveryTimeoutMs: DEADLINE_MS });
  good = await startTarget({ pair: pki.leaf });
  const created = await bankCall(simulator, '/cobranca/boleto/v1/webhook/contrato/', {
    method: 'POST',
    headers: await collectionHeaders(simulator),
    body: contractBody(simulator, { url: `${good.url}/boleto` }),
  });
  contractId = created.json.idContrato;
});

afterEach(async () => {
  await simulator.control.clearFaults();
  good.requests.length = 0;
});

afterAll(async () => {
  await good.close();
  await simulator.stop();
});

async function registerPayments(urlCallback: string, authorizationCallback = PAYMENT_TOKEN): Promise<void> {
  const answer = await bankCall(simulator, '/pagamentos/v1/associado/webhook', {
    method: 'PATCH',
    headers: await paymentsHeaders(simulator),
    body: { urlCallback, authorizationCallback },
  });
  expect(answer.status).toBe(204);
}

async function updateContract(overrides: Record<string, unknown>): Promise<void> {
  const answer = await bankCall(simulator, `/cobranca/boleto/v1/webhook/contrato/${contractId}`, {
    method: 'PUT',
    headers: await collectionHeaders(simulator),
    body: contractBody(simulator, { url: `${good.url}/boleto`, ...overrides }),
  });
  expect(answer.status).toBe(200);
}

/** Settles a new Pix payment against whatever is registered; returns its delivery log lines. */
async function payAndWait(): Promise<DeliveryRecord[]> {
  const before = (await simulator.control.deliveries()).at(-1)?.seq ?? 0;
  const { payment } = await simulator.control.createPayment({ tipo: 'pix', valor: '12.34' });
  await simulator.control.settlePayment('pix', payment.idTransacao);
  expect(await simulator.control.waitForDeliveries(10_000)).toBe(true);
  return simulator.control.deliveries(before);
}

describe('notifier: payments', () => {
  it('POSTs each status change to urlCallback with Authorization: <authorizationCallback> and the query body', async () => {
    await registerPayments(`${good.url}/payments`);
    const records = await payAndWait();
    expect(records.map((r) => [r.outcome, r.status, r.authHeader])).toEqual([
      ['ENTREGUE', 200, 'Authorization'],
      ['ENTREGUE', 200, 'Authorization'],
    ]);
    expect(good.requests.map((r) => [r.method, r.path, r.headers.authorization, r.headers['content-type']])).toEqual([
      ['POST', '/payments', PAYMENT_TOKEN, 'application/json'],
      ['POST', '/payments', PAYMENT_TOKEN, 'application/json'],
    ]);
    const bodies = good.requests.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.status)).toEqual(['RECEBIDO', 'EFETIVADO']);
    expect(bodies[1]).toEqual((await simulator.control.getPayment('pix', bodies[1].idTransacao)).payment);
    expect(records[1].tlsProtocol).toBe('TLSv1.3');
    expect(JSON.stringify(records)).not.toContain(PAYMENT_TOKEN);
  });

  it('sends no Authorization header when authorizationCallback is cleared, and nothing when urlCallback is', async () => {
    await registerPayments(`${good.url}/payments`, '');
    await payAndWait();
    expect(good.requests.map((r) => r.headers.authorization)).toEqual([undefined, undefined]);
    good.requests.length = 0;
    await registerPayments('', '');
    const records = await payAndWait();
    expect(records.map((r) => r.outcome)).toEqual(['NÃO ENVIADO', 'NÃO ENVIADO']);
    expect(records[0].reason).toMatch(/no urlCallback registered for conta 123456/);
    expect(good.requests).toHaveLength(0);
  });
});

describe('notifier: boletos', () => {
  it("POSTs the event to the contract URL with the contract's header: token, and idTituloEmpresa only when asked", async () => {
    await updateContract({ enviarIdTituloEmpresa: true });
    const boleto = await simulator.control.createBoleto({ valor: '250.75', idTituloEmpresa: 'INV-2025-0042' });
    const change = await simulator.control.settleBoleto(boleto.nossoNumero);
    await simulator.control.waitForDeliveries();
    expect(good.requests).toHaveLength(1);
    expect(good.requests[0].headers['x-webhook-token']).toBe('contract-token-value');
    const event = JSON.parse(good.requests[0].body);
    expect(event).toEqual({
      agencia: '0101',
      posto: '02',
      beneficiario: '54321',
      nossoNumero: boleto.nossoNumero,
      dataEvento: expect.any(Array),
      movimento: 'LIQUIDACAO_PIX',
      valorLiquidacao: '250.75',
      valorDesconto: '0',
      valorJuros: '0',
      valorMulta: '0',
      valorAbatimento: '0',
      carteira: 'CARTEIRA SIMPLES',
      dataPrevisaoPagamento: expect.any(Array),
      idEventoWebhook: change.notificationId,
      idTituloEmpresa: 'INV-2025-0042',
    });
    expect(event.dataEvento).toHaveLength(7);

    await updateContract({ enviarIdTituloEmpresa: false });
    await simulator.control.reverseBoleto(boleto.nossoNumero);
    await simulator.control.waitForDeliveries();
    const reversal = JSON.parse(good.requests[1].body);
    expect(reversal.movimento).toBe('ESTORNO_LIQUIDACAO_REDE');
    expect(reversal.idTituloEmpresa).toBeUndefined();
    expect(reversal.idEventoWebhook).not.toBe(event.idEventoWebhook);
  });

  it.each([
    [
      'the contract is INATIVO',
      { contratoStatus: 'INATIVO' },
      /contract \d+ is not active \(contratoStatus INATIVO, urlStatus ATIVO\)/,
    ],
    ['the URL is BLOQUEADO', { urlStatus: 'BLOQUEADO' }, /not active \(contratoStatus ATIVO, urlStatus BLOQUEADO\)/],
    ['the event is not subscribed', { eventos: ['BAIXA'] }, /not subscribed to LIQUIDACAO \(eventos BAIXA\)/],
  ])('sends nothing when %s, and logs why', async (_case, overrides, reason) => {
    await updateContract(overrides);
    const boleto = await simulator.control.createBoleto({ valor: '5' });
    const change = await simulator.control.settleBoleto(boleto.nossoNumero);
    await simulator.control.waitForDeliveries();
    expect(change.skipped).toMatch(reason);
    expect(good.requests).toHaveLength(0);
    const record = (await simulator.control.deliveries()).find((r) => r.notificationId === change.notificationId);
    expect(record).toEqual(expect.objectContaining({ outcome: 'NÃO ENVIADO', reason: expect.stringMatching(reason) }));
  });

  it('delivers cancellations to contracts subscribed to BAIXA', async () => {
    await updateContract({ eventos: ['LIQUIDACAO', 'BAIXA'] });
    const boleto = await simulator.control.createBoleto({ valor: '5' });
    await simulator.control.cancelBoleto(boleto.nossoNumero);
    await simulator.control.waitForDeliveries();
    expect(JSON.parse(good.requests[0].body).movimento).toBe('BAIXA');
  });
});

describe("notifier: the bank's delivery rules", () => {
  afterAll(async () => {
    await registerPayments(`${good.url}/payments`);
  });

  async function deliverTo(url: string): Promise<DeliveryRecord> {
    await registerPayments(url);
    const records = await payAndWait();
    expect(records).toHaveLength(2);
    return records[1];
  }

  it('refuses a self-signed target, even when its certificate is in the trust store', async () => {
    const selfSigned = await startTarget({ pair: pki.selfSigned });
    try {
      const refused = await deliverTo(selfSigned.url);
      expect(refused).toEqual(
        expect.objectContaining({ outcome: 'NÃO ENTREGUE', reason: expect.stringMatching(/self-signed/) }),
      );
      await simulator.control.trustCa(pki.selfSigned.certPem);
      const trusted = await deliverTo(selfSigned.url);
      expect(trusted).toEqual(
        expect.objectContaining({ outcome: 'NÃO ENTREGUE', reason: expect.stringMatching(/self-signed/) }),
      );
      expect(selfSigned.requests).toHaveLength(0);
    } finally {
      await selfSigned.close();
    }
  });

  it('refuses a target that only speaks TLS 1.1', async () => {
    const old = await startTarget({ pair: pki.leaf, tls11Only: true });
    try {
      const record = await deliverTo(old.url);
      expect(record).toEqual(
        expect.objectContaining({
          outcome: 'NÃO ENTREGUE',
          reason: expect.stringMatching(/TLS 1\.2 or later is required/),
        }),
      );
      expect(old.requests).toHaveLength(0);
    } finally {
      await old.close();
    }
  });

  it('refuses a target whose CA it does not trust, and a plain-HTTP target', async () => {
    const other = makeReceiverPki();
    const untrusted = await startTarget({ pair: other.leaf });
    const plain = await startTarget();
    try {
      expect((await deliverTo(untrusted.url)).reason).toMatch(/not trusted/);
      expect((await deliverTo(plain.url)).reason).toBe('the URL is not HTTPS; the bank only delivers over HTTPS');
      expect(untrusted.requests).toHaveLength(0);
      expect(plain.requests).toHaveLength(0);
    } finally {
      await untrusted.close();
      await plain.close();
    }
  });

  it('marks a target slower than the deadline "NÃO ENTREGUE" at the deadline', async () => {
    const slow = await startTarget({ pair: pki.leaf, answer: () => ({ delayMs: DEADLINE_MS * 5 }) });
    try {
      const record = await deliverTo(slow.url);
      expect(record).toEqual(
        expect.objectContaining({
          outcome: 'NÃO ENTREGUE',
          reason: `no HTTP 200 within the ${DEADLINE_MS} ms deadline`,
        }),
      );
      expect(record.durationMs).toBeGreaterThanOrEqual(DEADLINE_MS - 5);
      expect(record.durationMs).toBeLessThan(DEADLINE_MS * 5);
      expect(slow.requests).toHaveLength(2);
    } finally {
      await slow.close();
    }
  });

  it.each([500, 201, 202, 204, 401])('records an answer of %i as "NÃO ENTREGUE": only 200 counts', async (status) => {
    const target = await startTarget({ pair: pki.leaf, answer: () => ({ status }) });
    try {
      const record = await deliverTo(target.url);
      expect(record).toEqual(
        expect.objectContaining({
          outcome: 'NÃO ENTREGUE',
          status,
          reason: `answered HTTP ${status}; only 200 counts as delivered`,
        }),
      );
    } finally {
      await target.close();
    }
  });
});

describe('notifier: delivery faults', () => {
  it('duplicates deliveries on demand: the same event, several times', async () => {
    await simulator.control.setFaults({ duplicateDeliveries: 2 });
    const boleto = await simulator.control.createBoleto({ valor: '7' });
    await updateContract({});
    await simulator.control.settleBoleto(boleto.nossoNumero);
    await simulator.control.waitForDeliveries();
    expect(good.requests).toHaveLength(3);
    expect(new Set(good.requests.map((r) => r.body)).size).toBe(1);
    const records = (await simulator.control.deliveries()).filter(
      (r) => r.subject === `boleto ${boleto.nossoNumero} LIQUIDACAO_PIX`,
    );
    expect(records.map((r) => r.attempt).sort()).toEqual([1, 2, 3]);
  });

  it('delivers out of order: a reversal before its settlement', async () => {
    await updateContract({});
    await simulator.control.setFaults({ reorderWindowMs: 1500 }); // wide, so a busy machine still puts both in one window
    const boleto = await simulator.control.createBoleto({ valor: '7' });
    await simulator.control.settleBoleto(boleto.nossoNumero);
    await simulator.control.reverseBoleto(boleto.nossoNumero);
    expect(good.requests).toHaveLength(0);
    await simulator.control.waitForDeliveries();
    expect(good.requests.map((r) => JSON.parse(r.body).movimento)).toEqual([
      'ESTORNO_LIQUIDACAO_REDE',
      'LIQUIDACAO_PIX',
    ]);
  });

  it('loses deliveries silently: recorded NÃO ENTREGUE, never sent, and not sent once the fault is cleared either', async () => {
    await updateContract({});
    await simulator.control.setFaults({ loseDeliveries: true });
    const boleto = await simulator.control.createBoleto({ valor: '7' });
    await simulator.control.settleBoleto(boleto.nossoNumero);
    await simulator.control.waitForDeliveries();
    await simulator.control.clearFaults();
    await simulator.control.waitForDeliveries();
    expect(good.requests).toHaveLength(0);
    const records = (await simulator.control.deliveries()).filter(
      (r) => r.subject === `boleto ${boleto.nossoNumero} LIQUIDACAO_PIX`,
    );
    expect(records.map((r) => [r.outcome, r.reason])).toEqual([
      ['NÃO ENTREGUE', 'lost by the bank (fault loseDeliveries): never sent, never resent'],
    ]);
    await expect(simulator.control.setFaults({ loseDeliveries: 'yes' as unknown as boolean })).rejects.toThrow(
      'loseDeliveries must be true or false',
    );
  });

  it('delays deliveries', async () => {
    await updateContract({});
    await simulator.control.setFaults({ deliveryDelayMs: 1500 });
    const boleto = await simulator.control.createBoleto({ valor: '7' });
    await simulator.control.settleBoleto(boleto.nossoNumero);
    expect(good.requests).toHaveLength(0);
    const deliveries = await simulator.control.deliveries();
    expect(deliveries.some((r) => r.subject.startsWith(`boleto ${boleto.nossoNumero}`))).toBe(false);
    await simulator.control.waitForDeliveries();
    expect(good.requests).toHaveLength(1);
  });
});

describe('notifier: boleto events as arrays', () => {
  it('can deliver a boleto event as an array of one, as integrators have seen', async () => {
    const arrays = await BankSimulator.start({ trustedCas: [pki.ca.certPem], boletoNotificationShape: 'array' });
    try {
      await bankCall(arrays, '/cobranca/boleto/v1/webhook/contrato/', {
        method: 'POST',
        headers: await collectionHeaders(arrays),
        body: contractBody(arrays, { url: `${good.url}/boleto` }),
      });
      const boleto = await arrays.control.createBoleto({ valor: '3' });
      await arrays.control.settleBoleto(boleto.nossoNumero);
      await arrays.control.waitForDeliveries();
      const body = JSON.parse(good.requests[0].body);
      expect(Array.isArray(body)).toBe(true);
      expect(body[0].nossoNumero).toBe(boleto.nossoNumero);
    } finally {
      await arrays.stop();
    }
  });
});

describe('notifier: waiting before a delayed delivery', () => {
  it('leaves no listener on the shutdown signal once the wait is over, so delays do not pile listeners up', async () => {
    const stopping = new AbortController();
    for (let i = 0; i < 20; i++) await sleepUnlessAborted(1, stopping.signal);
    expect(getEventListeners(stopping.signal, 'abort')).toHaveLength(0);
  });

  it('ends at once when the signal aborts, and then leaves no listener either', async () => {
    const stopping = new AbortController();
    const waiting = sleepUnlessAborted(60_000, stopping.signal);
    expect(getEventListeners(stopping.signal, 'abort')).toHaveLength(1);
    stopping.abort();
    await waiting; // a minute's wait: ending at all, within the test's timeout, is ending early
    expect(getEventListeners(stopping.signal, 'abort')).toHaveLength(0);
    await sleepUnlessAborted(60_000, stopping.signal); // already aborted: no wait at all
  });
});
