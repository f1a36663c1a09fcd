/** The exactly-once audit finds each way the end-to-end promise can break. */
import { encodeStoredNotification } from '../../../lambda/store/stored-notification';
import type { ProxyExchange } from '../../../tools/local-aws/api-gateway';
import type { RecordedEvent } from '../../../tools/local-aws/eventbridge-server';
import { auditExactlyOnce, notificationIdentities } from '../../../tools/local-runner/audit';

const boleto = (id: string, nossoNumero = '000000001', movimento = 'LIQUIDACAO_PIX') => ({
  idEventoWebhook: id,
  nossoNumero,
  movimento,
  valorLiquidacao: '10.00',
});
const pix = (id: string, status = 'EFETIVADO') => ({
  idTransacao: id,
  status,
  valorPagamento: '5.00',
  idPagamentoPix: 'p',
});
const exchange = (requestId: string, route: string, body: unknown, status = 200): ProxyExchange => ({
  route,
  status,
  requestId,
  body: JSON.stringify(body),
  durationMs: 1,
});
let ids = 0;
/** An event with a detail of the published shape (the audit checks it against its JSON Schema too). */
const event = (
  detailType: string,
  subject: Record<string, unknown>,
  state: Record<string, unknown>,
  notificationId = 'n',
): RecordedEvent => ({
  id: `e-${ids++}`,
  eventBusName: 'bus',
  source: 'cdk-bank-webhooks',
  detailType,
  detail: {
    version: '3',
    idempotencyKey: `${String(subject.id)}#${String(subject.sequence)}:${String(state.status)}${detailType === 'Notification Not Confirmed' ? `:${notificationId}` : ''}`,
    trigger: 'webhook',
    account: { cooperativa: '0101', posto: '02' },
    subject,
    state,
    matchesNotification: true,
    mismatches: [],
    notification: {
      receivedAt: '2026-01-01T00:00:00Z',
      requestId: 'r',
      id: notificationId,
      claim: { status: String(state.status), statusClass: String(state.statusClass) },
    },
    verifiedAt: '2026-01-01T00:00:01Z',
    attempt: 1,
  },
});
const settlement = { id: '2026-01-01:1000', date: '2026-01-01', amount: { cents: 1000, decimal: '10.00' } };
const settled = (nossoNumero: string, sequence = 1) => {
  const e = event(
    'Boleto Settled',
    { kind: 'boleto', id: `boleto:54321:${nossoNumero}`, nossoNumero, sequence },
    { status: 'LIQUIDADO', statusClass: 'settled' },
  );
  return { ...e, detail: { ...e.detail, settlement } };
};
const paid = (idTransacao: string, status = 'EFETIVADO', sequence = 1) =>
  event(
    'Payment Status Verified',
    { kind: 'payment', id: `payment:pix:${idTransacao}`, idTransacao, sequence },
    { status, statusClass: status === 'EFETIVADO' ? 'settled' : 'pending' },
  );
const stored = (requestId: string, body: unknown) =>
  encodeStoredNotification(
    { route: 'payments', receivedAt: '2026-01-01T00:00:00Z', requestId },
    Buffer.from(JSON.stringify(body)),
  );

it('names the notifications a body holds: one per boleto event, one per payment status, none when it cannot be understood', () => {
  expect(notificationIdentities('boleto', JSON.stringify([boleto('a'), boleto('b')]))).toEqual([
    'boleto:000000001:a',
    'boleto:000000001:b',
  ]);
  expect(notificationIdentities('payments', JSON.stringify(pix('t1')))).toEqual(['payment:t1:EFETIVADO']);
  expect(notificationIdentities('payments', '{not json')).toEqual([]);
});

it("passes when the bank's published state accounts for every 200 (re-sent ids, a status moved on, a claim never shown) or a quarantine holds it", () => {
  const report = auditExactlyOnce({
    exchanges: [
      exchange('r1', 'boleto', boleto('a')),
      exchange('r2', 'boleto', boleto('a')),
      exchange('r3', 'boleto', boleto('a-again')),
      exchange('r4', 'payments', pix('t', 'RECEBIDO')),
      exchange('r5', 'boleto', boleto('never', '000000002')),
      exchange('r6', 'payments', { junk: true }),
      exchange('r7', 'payments', pix('x'), 401),
    ],
    events: [
      settled('000000001'),
      paid('t'),
      event(
        'Notification Not Confirmed',
        { kind: 'boleto', id: 'boleto:54321:000000002', nossoNumero: '000000002', sequence: 0 },
        { status: 'EM CARTEIRA', statusClass: 'open' },
        'never',
      ),
    ],
    quarantined: [{ reason: 'not a payment', body: stored('r6', { junk: true }) }],
    processedRequestIds: new Set(['r1', 'r2', 'r3', 'r4', 'r5', 'r6']),
  });
  expect(report).toEqual({
    ok: true,
    problems: [],
    acceptedNotifications: 5,
    verified: 3,
    notConfirmed: 1,
    quarantined: 1,
    refused: 1,
  });
});

it('reports an event that breaks its JSON Schema', () => {
  const bad = settled('000000001');
  delete (bad.detail as unknown as { subject: { sequence?: number } }).subject.sequence;
  const report = auditExactlyOnce({ exchanges: [], events: [bad], quarantined: [], processedRequestIds: new Set() });
  expect(report.problems).toEqual([`event ${bad.id}: Boleto Settled: /subject must have required property 'sequence'`]);
});

it('reports a lost notification, a change published twice, a quarantine without a reason and a refused request that reached the queue', () => {
  const report = auditExactlyOnce({
    exchanges: [
      exchange('r1', 'boleto', boleto('lost', '000000009')),
      exchange('r2', 'payments', pix('t')),
      exchange('r3', 'payments', { junk: true }),
      exchange('r4', 'payments', pix('forged'), 401),
    ],
    events: [paid('t'), paid('t')],
    quarantined: [{ body: stored('r3', { junk: true }) }, { reason: 'x', body: 'not ours' }],
    processedRequestIds: new Set(['r1', 'r2', 'r3', 'r4']),
  });
  expect(report.ok).toBe(false);
  expect(report.problems).toEqual([
    'idempotency key payment:pix:t#1:EFETIVADO appears on 2 events, and nothing in the run publishes an outbox again',
    'request r3 was quarantined without a reason',
    'the dead-letter queue holds a message the receiver did not write: not ours',
    'boleto:000000009:lost was answered 200 (request r1) but no verified event accounts for it and it is not in quarantine',
    'request r4 was refused (401) but reached the queue',
  ]);
});

describe('the Pix route', () => {
  const E1 = 'E01181521202611271200aaaaaaaaaa1';
  const E2 = 'E01181521202611271200bbbbbbbbbb2';
  const callback = (...e2es: string[]) => ({
    pix: e2es.map((endToEndId) => ({ endToEndId, txid: 'QR1', valor: '10.00', horario: '2026-11-27T12:00:00Z' })),
  });
  const received = (endToEndId: string) => {
    const e = event(
      'Pix Received',
      { kind: 'pix', id: `pix:${endToEndId}`, endToEndId, sequence: 1 },
      { status: 'RECEBIDO', statusClass: 'settled' },
    );
    return {
      ...e,
      detail: {
        ...e.detail,
        pix: { endToEndId, amount: { cents: 1000, decimal: '10.00' }, horario: '2026-11-27T12:00:00Z' },
      },
    };
  };

  it("passes when each Pix the provider holds for us is published once and another's never is; a validation call never reaches the queue", () => {
    const report = auditExactlyOnce({
      exchanges: [exchange('p1', 'pix', callback(E1, E2)), exchange('p2', 'pix', {}), exchange('p3', '', {})],
      events: [received(E1)],
      quarantined: [],
      processedRequestIds: new Set(['p1']),
      pixHeld: [{ endToEndId: E1, devolucoes: [] }],
    });
    expect(report).toMatchObject({ ok: true, verified: 1 });
  });

  it("reports another customer's Pix published, one of ours never published, a callback that never reached the processor, and a validation call that did", () => {
    const report = auditExactlyOnce({
      exchanges: [
        exchange('p1', 'pix', callback(E1, E2)),
        exchange('p2', 'pix', callback(E1)),
        exchange('p3', 'pix', { teste: true }),
      ],
      events: [received(E2)],
      quarantined: [],
      processedRequestIds: new Set(['p1', 'p3']),
      pixHeld: [{ endToEndId: E1, devolucoes: [] }],
    });
    expect(report.problems).toEqual([
      `pix:${E1} was answered 200 (request p1) but no verified event accounts for it and it is not in quarantine`,
      `pix:${E2} is not a Pix the provider holds for us (another customer's, or forged) but was published`,
      'Pix callback p2 was answered 200 but never reached the processor',
      'the Pix validation call p3 reached the queue',
    ]);
  });
});
