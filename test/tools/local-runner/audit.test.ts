/** The exactly-once audit finds each way the end-to-end promise can break. */
import { encodeStoredNotification } from '../../../lambda/shared/receiver-contract';
import type { ProxyExchange } from '../../../tools/local-aws/api-gateway';
import type { RecordedEvent } from '../../../tools/local-aws/eventbridge-server';
import { auditExactlyOnce, notificationIdentities } from '../../../tools/local-runner/audit';

const boleto = (id: string) => ({ idEventoWebhook: id, nossoNumero: '1', movimento: 'LIQUIDACAO_PIX', valorLiquidacao: '10.00' });
const pix = (id: string, status = 'PAGO') => ({ idTransacao: id, status, valorPagamento: '5.00', idPagamentoPix: 'p' });
const exchange = (requestId: string, route: string, body: unknown, status = 200): ProxyExchange => ({ route, status, requestId, body: JSON.stringify(body), durationMs: 1 });
const event = (detailType: string, notification: unknown, key: string, requestId: string): RecordedEvent => ({
  id: `e-${key}-${requestId}`, eventBusName: 'bus', source: 'cdk-bank-webhooks', detailType, detail: { notification, idempotencyKey: key, requestId },
});
const stored = (requestId: string, body: unknown) => encodeStoredNotification({ route: 'payments', receivedAt: '2026-01-01T00:00:00Z', requestId }, Buffer.from(JSON.stringify(body)));

it('names the notifications a body holds: one per boleto event, one per payment status, none when it cannot be understood', () => {
  expect(notificationIdentities('boleto', JSON.stringify([boleto('a'), boleto('b')]))).toEqual(['boleto:a', 'boleto:b']);
  expect(notificationIdentities('payments', JSON.stringify(pix('t1')))).toEqual(['payment:pix:t1:PAGO']);
  expect(notificationIdentities('payments', '{not json')).toEqual([]);
});

it('passes when every 200 is one event (duplicate deliveries included) or a quarantine with a reason, and refused requests never reached the queue', () => {
  const report = auditExactlyOnce({
    exchanges: [exchange('r1', 'boleto', boleto('a')), exchange('r2', 'boleto', boleto('a')), exchange('r3', 'payments', { junk: true }), exchange('r4', 'payments', pix('x'), 401)],
    events: [event('Boleto Settled', boleto('a'), 'boleto-event:a', 'r1')],
    quarantined: [{ reason: 'not a payment', body: stored('r3', { junk: true }) }],
    processedRequestIds: new Set(['r1', 'r2', 'r3']),
  });
  expect(report).toEqual({ ok: true, problems: [], acceptedNotifications: 2, verified: 1, quarantined: 1, refused: 1 });
});

it('reports a lost notification, a duplicated event, a quarantine without a reason and a refused request that reached the queue', () => {
  const report = auditExactlyOnce({
    exchanges: [
      exchange('r1', 'boleto', boleto('lost')),
      exchange('r2', 'payments', pix('t')),
      exchange('r3', 'payments', { junk: true }),
      exchange('r4', 'payments', pix('forged'), 401),
    ],
    events: [event('Payment Status Verified', pix('t'), 'payment:pix:t:PAGO', 'r2'), event('Payment Status Verified', pix('t'), 'payment:pix:t:PAGO', 'r2')],
    quarantined: [{ body: stored('r3', { junk: true }) }, { reason: 'x', body: 'not ours' }],
    processedRequestIds: new Set(['r1', 'r2', 'r3', 'r4']),
  });
  expect(report.ok).toBe(false);
  expect(report.problems).toEqual([
    'payment:pix:t:PAGO was published 2 times (Payment Status Verified, Payment Status Verified)',
    'idempotency key payment:pix:t:PAGO appears on 2 events',
    'the dead-letter queue holds a message the receiver did not write: not ours',
    'boleto:lost was answered 200 (request r1) but has no verified event and is not in quarantine',
    'request r3 was quarantined without a reason',
    'request r4 was refused (401) but reached the queue',
  ]);
});
