/** The truth model: states from the bank's answers, the changes between them, and claims. */
import { bankDateToIso } from '../../../lambda/bank/cooperative/answers';
import {
  boletoChanges,
  boletoClaim,
  boletoState,
  checkBoletoClaim,
  checkPaymentClaim,
  classifyBoletoStatus,
  classifyPaymentStatus,
  keepRecordedSettlement,
  paymentChanges,
  paymentClaim,
  paymentState,
  settlementOf,
  type SubjectState,
} from '../../../lambda/bank/cooperative/state';
import { ZuluTimestamps as Z } from '../../../contracts/bank-connection';
import {
  type BoletoEventItem,
  parseNotification,
  type PaymentItem,
} from '../../../lambda/bank/cooperative/notification';
import { BankEventDetailType as T, StatusClass as C } from '../../../contracts/events';
import { ProcessorDefaults as D } from '../../../contracts/processor';

const boletoEvent = (movimento: string, valorLiquidacao = '100.00') =>
  parseNotification(
    'boleto',
    Buffer.from(JSON.stringify({ nossoNumero: '123', movimento, valorLiquidacao, idEventoWebhook: 'ev' })),
    D.boletoMovements,
  ).items[0] as BoletoEventItem;
const payment = (status: string, valorPagamento = '15.00') =>
  parseNotification(
    'payments',
    Buffer.from(JSON.stringify({ idPagamentoPix: 1, idTransacao: 'tx', status, valorPagamento })),
    D.boletoMovements,
  ).items[0] as PaymentItem;
const answer = (situacao: string, valor?: string, data: unknown = [2025, 6, 3, 14, 5, 9, 120000000]) => ({
  codigoBeneficiario: '54321',
  nossoNumero: '123',
  valor: '100.00',
  situacao,
  dadosLiquidacao: valor ? { data, valor } : null,
});
const boleto = (situacao: string, valor?: string, data?: unknown) =>
  boletoState(answer(situacao, valor, data), D.boletoStatuses);

describe('bank dates', () => {
  it.each([
    [[2025, 6, 3, 14, 5, 9, 120000000], '2025-06-03T14:05:09.120-03:00'],
    [[2025, 6, 3], '2025-06-03'],
    ['03/06/2025', '2025-06-03'],
    ['2024-06-18 00:00:00.0', '2024-06-18'],
    ['2024-06-18 13:45:00', '2024-06-18T13:45:00.000-03:00'],
    ['2025-06-03T14:05:09-03:00', '2025-06-03T14:05:09-03:00'],
  ])('reads %j as %s', (value, iso) => {
    expect(bankDateToIso(value)).toBe(iso);
  });

  it.each([['yesterday'], [[2025, 13, 1]], [null], [[2025, 'x', 1]]])('gives nothing for %j', (value) => {
    expect(bankDateToIso(value)).toBeUndefined();
  });
});

describe("a settlement written with a Z (the boleto query's dadosLiquidacao.data)", () => {
  // 22:30 and 01:30 at the bank (UTC−3): written as true UTC instants, or as local digits with a Z.
  it.each([
    ['22:30 local as UTC', '2026-03-04T01:30:00.000Z', Z.UTC, '2026-03-03', '2026-03-03T22:30:00.000-03:00'],
    ['01:30 local as UTC', '2026-03-04T04:30:00.000Z', Z.UTC, '2026-03-04', '2026-03-04T01:30:00.000-03:00'],
    [
      '22:30 local with a Z',
      '2026-03-03T22:30:00.000Z',
      Z.BANK_LOCAL_TIME,
      '2026-03-03',
      '2026-03-03T22:30:00.000-03:00',
    ],
    [
      '01:30 local with a Z',
      '2026-03-04T01:30:00.000Z',
      Z.BANK_LOCAL_TIME,
      '2026-03-04',
      '2026-03-04T01:30:00.000-03:00',
    ],
  ])("reads %s on the bank's day", (_case, data, reading, day, iso) => {
    const read = settlementOf({ data, valor: 250.7 }, reading);
    expect(read?.settlement).toEqual({ id: `${day}:25070`, date: iso, amount: { cents: 25070, decimal: '250.70' } });
    expect(bankDateToIso(data, reading)).toBe(iso);
  });

  it('knows the ids the same settlement has under the other reading and under earlier releases (the first ten characters)', () => {
    expect(settlementOf({ data: '2026-03-04T01:30:00.000Z', valor: 250.7 }, Z.UTC)?.aliases).toEqual([
      '2026-03-04:25070',
    ]);
    expect(settlementOf({ data: '2026-03-04T04:30:00.000Z', valor: 250.7 }, Z.UTC)?.aliases).toEqual([]);
    expect(settlementOf({ data: '2026-03-04T01:30:00.000Z', valor: 250.7 }, Z.BANK_LOCAL_TIME)?.aliases).toEqual([
      '2026-03-03:25070',
    ]);
    expect(settlementOf({ data: [2026, 3, 4, 1, 30, 0, 0], valor: '250.70' }, Z.UTC)?.aliases).toEqual([]);
  });

  it("reads the manual's flat answer: valorNominal for the amount, the situacao with its channel", () => {
    const flat = {
      nossoNumero: '000001234',
      valorNominal: 250.75,
      situacao: 'LIQUIDADO PIX',
      dadosLiquidacao: { data: '2026-03-04T04:30:00.000Z', valor: 250.7, multa: 0, juros: 0 },
    };
    expect(boletoState(flat, D.boletoStatuses)).toEqual({
      key: 'settled:2026-03-04:25070',
      state: {
        status: 'LIQUIDADO PIX',
        statusClass: C.SETTLED,
        amount: { cents: 25075, decimal: '250.75' },
        settlement: {
          id: '2026-03-04:25070',
          date: '2026-03-04T01:30:00.000-03:00',
          amount: { cents: 25070, decimal: '250.70' },
        },
      },
    });
    expect(
      boletoState({ nossoNumero: '000001234', valorNominal: 250.75, situacao: 'EM CARTEIRA' }, D.boletoStatuses).state,
    ).toEqual({ status: 'EM CARTEIRA', statusClass: C.OPEN, amount: { cents: 25075, decimal: '250.75' } });
  });

  it("publishes nothing again, and makes up no reversal, for a settlement recorded under an earlier release's id (upgrade)", () => {
    // Recorded by the earlier release: the first ten characters of the Z text were taken as the day.
    const recorded: SubjectState = {
      status: 'LIQUIDADO PIX',
      statusClass: C.SETTLED,
      settlement: {
        id: '2026-03-04:25070',
        date: '2026-03-04T01:30:00.000Z',
        amount: { cents: 25070, decimal: '250.70' },
      },
    };
    const now = boletoState(
      {
        situacao: 'LIQUIDADO PIX',
        valorNominal: 250.7,
        dadosLiquidacao: { data: '2026-03-04T01:30:00.000Z', valor: 250.7 },
      },
      D.boletoStatuses,
      Z.UTC,
    );
    expect(now.state.settlement?.id).toBe('2026-03-03:25070');
    const kept = keepRecordedSettlement(recorded, now);
    expect(kept.key).toBe('settled:2026-03-04:25070');
    expect(kept.state.settlement).toEqual(recorded.settlement);
    expect(boletoChanges(recorded, kept)).toEqual([]);
    // Without it, the same settlement would be reversed and published again.
    expect(boletoChanges(recorded, now).map((c) => c.detailType)).toEqual([
      T.BOLETO_SETTLEMENT_REVERSED,
      T.BOLETO_SETTLED,
    ]);
    // A settlement that is really another (another amount) is still told as one.
    const other = boletoState(
      { situacao: 'LIQUIDADO PIX', dadosLiquidacao: { data: '2026-03-04T01:30:00.000Z', valor: 99 } },
      D.boletoStatuses,
      Z.UTC,
    );
    expect(boletoChanges(recorded, keepRecordedSettlement(recorded, other)).map((c) => c.detailType)).toEqual([
      T.BOLETO_SETTLEMENT_REVERSED,
      T.BOLETO_SETTLED,
    ]);
  });
});

describe('boleto states and changes', () => {
  it('classifies situacao by prefix and payment status exactly', () => {
    expect(classifyBoletoStatus('LIQUIDADO POR COMPENSACAO', D.boletoStatuses)).toBe(C.SETTLED);
    expect(classifyBoletoStatus('baixado por solicitacao', D.boletoStatuses)).toBe(C.WRITTEN_OFF);
    expect(classifyBoletoStatus('PROTESTADO', D.boletoStatuses)).toBe(C.UNKNOWN);
    expect(classifyPaymentStatus('EFETIVADO', D.paymentStatuses)).toBe(C.SETTLED);
    expect(classifyPaymentStatus('efetivado', D.paymentStatuses)).toBe(C.UNKNOWN);
  });

  it('identifies a settlement by its bank day and amount in cents', () => {
    expect(boleto('LIQUIDADO', '150.25')).toEqual({
      key: 'settled:2025-06-03:15025',
      state: {
        status: 'LIQUIDADO',
        statusClass: C.SETTLED,
        amount: { cents: 10000, decimal: '100.00' },
        settlement: {
          id: '2025-06-03:15025',
          date: '2025-06-03T14:05:09.120-03:00',
          amount: { cents: 15025, decimal: '150.25' },
        },
      },
    });
  });

  it('publishes a first settlement, nothing for the same one again, and a reversal naming the settlement once it is gone', () => {
    const settled = boleto('LIQUIDADO', '150.25');
    expect(boletoChanges(undefined, settled).map((c) => [c.detailType, c.key])).toEqual([
      [T.BOLETO_SETTLED, 'settled:2025-06-03:15025'],
    ]);
    expect(boletoChanges(settled.state, boleto('LIQUIDADO', '150.25'))).toEqual([]);
    const [reversal] = boletoChanges(settled.state, boleto('EM CARTEIRA'));
    expect(reversal).toMatchObject({
      detailType: T.BOLETO_SETTLEMENT_REVERSED,
      key: 'reversed:2025-06-03:15025',
      reverses: settled.state.settlement,
      state: { statusClass: C.OPEN },
    });
  });

  it('tells a settlement replaced by another as its reversal and then the new settlement', () => {
    const first = boleto('LIQUIDADO', '150.25');
    const second = boleto('LIQUIDADO', '150.25', [2025, 6, 4]);
    expect(boletoChanges(first.state, second).map((c) => c.detailType)).toEqual([
      T.BOLETO_SETTLEMENT_REVERSED,
      T.BOLETO_SETTLED,
    ]);
  });

  it('publishes nothing for a boleto that is open and never was anything else, nor for a situacao no mapping names', () => {
    expect(boletoChanges(undefined, boleto('EM CARTEIRA'))).toEqual([]);
    expect(boletoChanges(undefined, boleto('PROTESTADO'))).toEqual([]);
    // Settled with no readable settlement: nothing identifies the change, so it is not one yet.
    expect(
      boletoChanges(
        undefined,
        boletoState({ ...answer('LIQUIDADO'), dadosLiquidacao: { valor: '1.00' } }, D.boletoStatuses),
      ),
    ).toEqual([]);
  });

  it('publishes write-offs and rejections', () => {
    expect(boletoChanges(undefined, boleto('BAIXADO')).map((c) => c.detailType)).toEqual([T.BOLETO_WRITTEN_OFF]);
    expect(boletoChanges(undefined, boleto('REJEITADO')).map((c) => c.detailType)).toEqual([T.BOLETO_REJECTED]);
  });
});

describe('claims', () => {
  it('holds a settlement the bank shows with the notified amount, and says how another amount differs', () => {
    const settled = boleto('LIQUIDADO', '100.00').state;
    expect(checkBoletoClaim(boletoClaim(boletoEvent('LIQUIDACAO_PIX')), settled, [])).toEqual({
      matches: true,
      holds: true,
      mismatches: [],
    });
    expect(checkBoletoClaim(boletoClaim(boletoEvent('LIQUIDACAO_PIX', '99.00')), settled, [])).toEqual({
      matches: false,
      holds: false,
      mismatches: ['settled amount differs: notified 99.00, the bank says 100.00'],
    });
  });

  it('does not hold a settlement the bank does not show, unless one of that amount was published before', () => {
    const open = boleto('EM CARTEIRA').state;
    const claim = boletoClaim(boletoEvent('LIQUIDACAO_PIX'));
    expect(checkBoletoClaim(claim, open, [])).toEqual({
      matches: false,
      holds: false,
      mismatches: ['LIQUIDACAO_PIX needs a settled boleto, the bank says situacao "EM CARTEIRA" (open)'],
    });
    expect(checkBoletoClaim(claim, open, ['settled:2025-06-03:10000', 'reversed:2025-06-03:10000']).holds).toBe(true);
  });

  it('holds a payment status the bank shows, a pending one the payment has moved on from, or one published before', () => {
    const settled = paymentState({ status: 'EFETIVADO', valorPagamento: '15.00' }, D.paymentStatuses).state;
    expect(checkPaymentClaim(paymentClaim(payment('EFETIVADO'), D.paymentStatuses), settled, [])).toEqual({
      matches: true,
      holds: true,
      mismatches: [],
    });
    expect(checkPaymentClaim(paymentClaim(payment('RECEBIDO'), D.paymentStatuses), settled, [])).toMatchObject({
      matches: false,
      holds: true,
    });
    const received = paymentState({ status: 'RECEBIDO', valorPagamento: '15.00' }, D.paymentStatuses).state;
    expect(checkPaymentClaim(paymentClaim(payment('EFETIVADO'), D.paymentStatuses), received, [])).toMatchObject({
      holds: false,
      mismatches: ['status differs: notified EFETIVADO, the bank says RECEBIDO'],
    });
    expect(
      checkPaymentClaim(paymentClaim(payment('EFETIVADO', '99.00'), D.paymentStatuses), settled, ['EFETIVADO']),
    ).toMatchObject({ holds: false });
  });

  it('publishes each new payment status once', () => {
    const received = paymentState({ status: 'RECEBIDO' }, D.paymentStatuses);
    const settled = paymentState({ status: 'EFETIVADO', dataPagamento: [2025, 6, 3, 10, 0, 0, 0] }, D.paymentStatuses);
    expect(paymentChanges(undefined, received).map((c) => c.key)).toEqual(['RECEBIDO']);
    expect(paymentChanges(received.state, received)).toEqual([]);
    expect(paymentChanges(received.state, settled)).toMatchObject([
      {
        detailType: T.PAYMENT_STATUS_VERIFIED,
        state: { status: 'EFETIVADO', statusClass: C.SETTLED, paidAt: '2025-06-03T10:00:00.000-03:00' },
      },
    ]);
  });
});
