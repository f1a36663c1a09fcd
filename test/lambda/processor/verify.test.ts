import { ProcessorDefaults } from '../../../lambda/shared/processor-contract';
import { parseNotification, type BoletoEventItem, type PaymentItem } from '../../../lambda/processor/parse';
import { classifyBoletoStatus, classifyPaymentStatus, verifyBoletoEvent, verifyPayment } from '../../../lambda/processor/verify';

const D = ProcessorDefaults;
const boletoEvent = (movimento: string, valorLiquidacao = '100.00') =>
  parseNotification('boleto', Buffer.from(JSON.stringify({ nossoNumero: '123', movimento, valorLiquidacao, idEventoWebhook: 'ev' })), D.boletoMovements).items[0] as BoletoEventItem;
const payment = (status: string, valorPagamento = '15.00') =>
  parseNotification('payments', Buffer.from(JSON.stringify({ idPagamentoPix: 1, idTransacao: 'tx', status, valorPagamento })), D.boletoMovements).items[0] as PaymentItem;
const resultado = (situacao: string, liquidado?: string) => ({ nossoNumero: '123', situacao, dadosLiquidacao: liquidado ? { data: [2025, 6, 3], valor: liquidado } : null });

describe('boleto events', () => {
  it('confirms a settlement when the boleto is settled with the notified amount', () => {
    expect(verifyBoletoEvent(boletoEvent('LIQUIDACAO_PIX'), resultado('LIQUIDADO', '100.0'), D.boletoStatuses)).toEqual({
      idempotencyKey: 'boleto-event:ev', detailType: 'Boleto Settled', matches: true, mismatches: [], status: 'LIQUIDADO', statusClass: 'settled',
    });
  });

  it('matches situacao by prefix ("LIQUIDADO POR COMPENSACAO")', () => {
    expect(verifyBoletoEvent(boletoEvent('LIQUIDACAO_COMPE_H5'), resultado('LIQUIDADO POR COMPENSACAO', '100.00'), D.boletoStatuses).matches).toBe(true);
  });

  it('does not confirm a settlement the query does not show yet', () => {
    expect(verifyBoletoEvent(boletoEvent('LIQUIDACAO_PIX'), resultado('EM CARTEIRA'), D.boletoStatuses)).toMatchObject({
      matches: false, detailType: 'Boleto Notification Not Confirmed', statusClass: 'open',
      mismatches: ['LIQUIDACAO_PIX needs a settled boleto, the bank says situacao "EM CARTEIRA" (open)'],
    });
  });

  it('does not confirm a settlement of another amount', () => {
    expect(verifyBoletoEvent(boletoEvent('LIQUIDACAO_PIX', '100.00'), resultado('LIQUIDADO', '90.00'), D.boletoStatuses).mismatches)
      .toEqual(['settled amount differs: notified 100.00, the bank says 90.00']);
    expect(verifyBoletoEvent(boletoEvent('LIQUIDACAO_PIX'), resultado('LIQUIDADO'), D.boletoStatuses).mismatches)
      .toEqual(['the bank shows no settled amount (notified 100.00)']);
  });

  it('confirms a reversal when the boleto is open again, and not while it is still settled', () => {
    expect(verifyBoletoEvent(boletoEvent('ESTORNO_LIQUIDACAO_REDE'), resultado('EM CARTEIRA'), D.boletoStatuses)).toMatchObject({ matches: true, detailType: 'Boleto Settlement Reversed' });
    expect(verifyBoletoEvent(boletoEvent('ESTORNO_LIQUIDACAO_REDE'), resultado('LIQUIDADO', '100.00'), D.boletoStatuses)).toMatchObject({ matches: false, detailType: 'Boleto Notification Not Confirmed' });
  });

  it('confirms write-offs and rejections', () => {
    expect(verifyBoletoEvent(boletoEvent('BAIXA'), resultado('BAIXADO'), D.boletoStatuses).detailType).toBe('Boleto Written Off');
    expect(verifyBoletoEvent(boletoEvent('REJEICAO'), resultado('REJEITADO'), D.boletoStatuses).detailType).toBe('Boleto Rejected');
  });

  it('does not confirm an answer about another boleto', () => {
    expect(verifyBoletoEvent(boletoEvent('LIQUIDACAO_PIX'), { ...resultado('LIQUIDADO', '100.00'), nossoNumero: '999' }, D.boletoStatuses).mismatches)
      .toEqual(['the bank answered for nossoNumero 999, not 123']);
  });

  it('classifies situacao texts by the configured prefixes', () => {
    expect(['LIQUIDADO', 'liquidado no cartorio', 'BAIXADO POR SOLICITACAO', 'VENCIDO', 'PROTESTADO'].map((s) => classifyBoletoStatus(s, D.boletoStatuses)))
      .toEqual(['settled', 'settled', 'writtenOff', 'open', 'unknown']);
  });
});

describe('payments', () => {
  it('confirms the same status and amount; the key holds the verified status', () => {
    expect(verifyPayment(payment('EFETIVADO'), { idTransacao: 'tx', status: 'EFETIVADO', valorPagamento: '15.00' }, D.paymentStatuses)).toEqual({
      idempotencyKey: 'payment:pix:tx:EFETIVADO', detailType: 'Payment Status Verified', matches: true, mismatches: [], status: 'EFETIVADO', statusClass: 'settled',
    });
  });

  it('reports the bank\'s status when the notification disagrees', () => {
    expect(verifyPayment(payment('EFETIVADO', '15.00'), { idTransacao: 'tx', status: 'RECEBIDO', valorPagamento: '14.00' }, D.paymentStatuses)).toMatchObject({
      idempotencyKey: 'payment:pix:tx:RECEBIDO', matches: false, status: 'RECEBIDO', statusClass: 'pending',
      mismatches: ['status differs: notified EFETIVADO, the bank says RECEBIDO', 'amount differs: notified 15.00, the bank says 14.00'],
    });
  });

  it('classifies statuses exactly, unknown ones as unknown', () => {
    expect(['EFETIVADO', 'RECEBIDO', 'REJEITADO', 'CANCELADO', 'ESTORNADO', 'efetivado', 'NOVO'].map((s) => classifyPaymentStatus(s, D.paymentStatuses)))
      .toEqual(['settled', 'pending', 'rejected', 'cancelled', 'reversed', 'unknown', 'unknown']);
  });
});
