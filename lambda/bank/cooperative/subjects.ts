/**
 * This bank's two kinds of subject (BANK-NOTES.md): a boleto of the collection API, verified by the
 * boleto query of this receiver's beneficiary; a payment of the payments API (Pix sent, a boleto
 * paid, taxes), verified by the payment query of its kind.
 */
import { SubjectKind, StatusClass, type PaymentKind } from '../../../contracts/events';
import type { LookSubject } from '../../../contracts/reconciliation';
import { answerNames, identifier, nossoNumeroOf } from '../answers';
import { NotOurs, type SubjectRules } from '../family';
import {
  boletoChanges, boletoClaim, boletoState, checkBoletoClaim, checkPaymentClaim, keepRecordedSettlement, paymentChanges, paymentClaim, paymentState,
} from '../state';

type BoletoTarget = Extract<LookSubject, { kind: 'boleto' }>;
type PaymentTarget = Extract<LookSubject, { kind: 'payment' }>;

function wrongKind(kind: string): never {
  throw new Error(`a ${kind} rule was given a subject of another kind`);
}

export const BOLETO_RULES: SubjectRules = {
  kind: SubjectKind.BOLETO,
  owns: (target) => target.kind === 'boleto',
  targetOf: (item) => (item.kind === 'boleto-event' ? { kind: 'boleto', nossoNumero: item.nossoNumero } : undefined),
  notOurs: (item, account) => (item.kind === 'boleto-event' && item.beneficiario !== undefined && item.beneficiario !== account.codigoBeneficiario
    ? `boleto event ${item.idEventoWebhook} names beneficiary ${item.beneficiario}, not this receiver's ${account.codigoBeneficiario}: it is not ours to verify`
    : undefined),
  notificationId: (item) => (item.kind === 'boleto-event' ? item.idEventoWebhook : wrongKind('boleto')),
  async query(target, provider, context, deadline) {
    const { nossoNumero } = target as BoletoTarget;
    const ours = context.account.codigoBeneficiario;
    const answer = await provider.queryBoleto(ours, nossoNumero, deadline);
    // The manual's answer names no beneficiary (the query asked for ours, and the bank refuses
    // another's with 401); one that names another is never ours.
    const named = identifier(answer.codigoBeneficiario);
    if (named !== undefined && named !== ours) {
      throw new NotOurs(`the bank's answer for nossoNumero ${nossoNumero} belongs to beneficiary ${named}, not this receiver's ${ours}: nothing is published for it`);
    }
    const answered = identifier(answer.nossoNumero);
    if (answered !== undefined && (nossoNumeroOf(answered) ?? answered) !== nossoNumero) throw new Error(`the bank answered for nossoNumero ${answered}, not ${nossoNumero}`);
    return answer;
  },
  verify: (previous, answer, context) => keepRecordedSettlement(previous, boletoState(answer, context.settings.boletoStatuses, context.zuluTimestamps)),
  changes: boletoChanges,
  claim: (item, state, history) => {
    if (item.kind !== 'boleto-event') return wrongKind('boleto');
    const claim = boletoClaim(item);
    return { claim, check: checkBoletoClaim(claim, state, history) };
  },
  pendingUntilFinal: () => false,
  eventAccount: (account) => ({ cooperativa: account.cooperativa, posto: account.posto, codigoBeneficiario: account.codigoBeneficiario }),
  eventSubject: (id, target, sequence, account) => ({ kind: SubjectKind.BOLETO, id, sequence, nossoNumero: (target as BoletoTarget).nossoNumero, codigoBeneficiario: account.codigoBeneficiario }),
};

export const PAYMENT_RULES: SubjectRules = {
  kind: SubjectKind.PAYMENT,
  owns: (target) => target.kind === 'payment',
  targetOf: (item) => (item.kind === 'payment' ? { kind: 'payment', paymentKind: item.type, idTransacao: item.idTransacao } : undefined),
  notOurs: () => undefined,
  notificationId: (item) => (item.kind === 'payment' ? item.status : wrongKind('payment')),
  async query(target, provider, _context, deadline) {
    const { paymentKind, idTransacao } = target as PaymentTarget;
    const answer = await provider.queryPayment(paymentKind, idTransacao, deadline);
    if (!answerNames(answer, 'idTransacao', idTransacao)) throw new Error(`the bank answered for idTransacao ${identifier(answer.idTransacao)}, not ${idTransacao}`);
    return answer;
  },
  verify: (_previous, answer, context) => paymentState(answer, context.settings.paymentStatuses, context.zuluTimestamps),
  changes: paymentChanges,
  claim: (item, state, history, context) => {
    if (item.kind !== 'payment') return wrongKind('payment');
    const claim = paymentClaim(item, context.settings.paymentStatuses);
    return { claim, check: checkPaymentClaim(claim, state, history) };
  },
  pendingUntilFinal: (state) => !state || state.statusClass === StatusClass.PENDING || state.statusClass === StatusClass.UNKNOWN,
  eventAccount: (account) => ({ cooperativa: account.cooperativa, posto: account.posto, conta: account.conta }),
  eventSubject: (id, target, sequence) => {
    const { paymentKind, idTransacao } = target as PaymentTarget;
    return { kind: SubjectKind.PAYMENT, id, sequence, paymentKind: paymentKind as PaymentKind, idTransacao };
  },
};
