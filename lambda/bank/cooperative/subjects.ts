/**
 * This bank's two kinds of subject (cdk-bank-webhooks/docs/bank-api.md): a boleto of the collection API, verified by the
 * boleto query of this receiver's beneficiary; a payment of the payments API (Pix sent, a boleto
 * paid, taxes), verified by the payment query of its kind.
 */
import {
  PAYMENT_ID_PATTERN,
  PAYMENT_ID_RULE,
  PAYMENT_TYPES,
  type PaymentType,
} from '../../../contracts/bank-connection';
import { PaymentKind, SubjectKind, StatusClass } from '../../../contracts/events';
import type { LookSubject } from '../../../contracts/reconciliation';
import { answerNames, BANK_OFFSET, identifier, nossoNumeroOf } from './answers';
import { NotOurs, type ProviderQueries, type SubjectItem, type SubjectRules, wrongKind } from '../family';
import type { BoletoEventItem, PaymentItem } from './notification';
import type { SubjectState } from '../verified-state';
import {
  boletoChanges,
  boletoClaim,
  boletoState,
  checkBoletoClaim,
  checkPaymentClaim,
  keepRecordedSettlement,
  paymentChanges,
  paymentClaim,
  paymentState,
} from './state';

type BoletoTarget = Extract<LookSubject, { kind: 'boleto' }>;
type PaymentTarget = Extract<LookSubject, { kind: 'payment' }>;

const boletoItem = (item: SubjectItem): BoletoEventItem | undefined =>
  item.kind === 'boleto-event' ? (item as BoletoEventItem) : undefined;
const paymentItem = (item: SubjectItem): PaymentItem | undefined =>
  item.kind === 'payment' ? (item as PaymentItem) : undefined;

/** A date the bank writes (a day, read at the bank's midnight, or an instant) in epoch ms. */
function datedMs(dated: string | undefined): number | undefined {
  if (!dated) return undefined;
  const at = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(dated) ? `${dated}T00:00:00${BANK_OFFSET}` : dated);
  return Number.isFinite(at) ? at : undefined;
}

const datedAt = (state: SubjectState) => datedMs(state.settlement?.date ?? state.paidAt);

/** The queries this bank's rules make (its client fits), under `clients.cooperative`. */
export interface CooperativeQueries {
  queryBoleto(codigoBeneficiario: string, nossoNumero: string, deadline: number): Promise<Record<string, unknown>>;
  queryPayment(type: PaymentType, idTransacao: string, deadline: number): Promise<Record<string, unknown>>;
}

function queriesOf(provider: ProviderQueries): CooperativeQueries {
  const bank = provider.clients.cooperative as CooperativeQueries | undefined;
  if (!bank) throw new Error('this receiver has no bank connection: a boleto or a payment cannot be verified');
  return bank;
}

/** The boleto's rules (made by a function so a bundle that does not verify leaves them out). */
export function boletoRules(): SubjectRules {
  return {
    kind: SubjectKind.BOLETO,
    owns: (target) => target.kind === 'boleto',
    idOf: (target, codigoBeneficiario) => `boleto:${codigoBeneficiario}:${(target as BoletoTarget).nossoNumero}`,
    // A nossoNumero is up to 9 digits at the bank (clients zero-pad it): nothing else is meant, unless a payment's kind is given.
    guessIds: (arg, codigoBeneficiario, paymentKind) =>
      /^\d{1,9}$/.test(arg) && paymentKind === undefined
        ? { ids: [`boleto:${codigoBeneficiario}:${arg.padStart(9, '0')}`], rank: 3, only: true }
        : undefined,
    targetFrom: (subject, what) => {
      const nossoNumero = typeof subject.nossoNumero === 'string' ? nossoNumeroOf(subject.nossoNumero) : undefined;
      if (!nossoNumero)
        throw new Error(
          `${what} names nossoNumero ${JSON.stringify(subject.nossoNumero)}; it must be the bank's boleto id, up to 9 digits`,
        );
      return { kind: 'boleto', nossoNumero };
    },
    targetOf: (item) => {
      const event = boletoItem(item);
      return event ? { kind: 'boleto', nossoNumero: event.nossoNumero } : undefined;
    },
    notOurs: (item, account) => {
      const event = boletoItem(item);
      return event && event.beneficiario !== undefined && event.beneficiario !== account.codigoBeneficiario
        ? `boleto event ${event.idEventoWebhook} names beneficiary ${event.beneficiario}, not this receiver's ${account.codigoBeneficiario}: it is not ours to verify`
        : undefined;
    },
    notificationId: (item) => boletoItem(item)?.idEventoWebhook ?? wrongKind('boleto'),
    async query(target, provider, context, deadline) {
      const { nossoNumero } = target as BoletoTarget;
      const ours = context.account.codigoBeneficiario;
      const answer = await queriesOf(provider).queryBoleto(ours, nossoNumero, deadline);
      // The manual's answer names no beneficiary (the query asked for ours, and the bank refuses
      // another's with 401); one that names another is never ours.
      const named = identifier(answer.codigoBeneficiario);
      if (named !== undefined && named !== ours) {
        throw new NotOurs(
          `the bank's answer for nossoNumero ${nossoNumero} belongs to beneficiary ${named}, not this receiver's ${ours}: nothing is published for it`,
        );
      }
      const answered = identifier(answer.nossoNumero);
      if (answered !== undefined && (nossoNumeroOf(answered) ?? answered) !== nossoNumero)
        throw new Error(`the bank answered for nossoNumero ${answered}, not ${nossoNumero}`);
      return answer;
    },
    verify: (previous, answer, context) =>
      keepRecordedSettlement(previous, boletoState(answer, context.settings.boletoStatuses, context.zuluTimestamps)),
    changes: boletoChanges,
    claim: (item, state, history) => {
      const claim = boletoClaim(boletoItem(item) ?? wrongKind('boleto'));
      return { claim, check: checkBoletoClaim(claim, state, history) };
    },
    datedAt,
    pendingUntilFinal: () => false,
    eventAccount: (account) => ({
      cooperativa: account.cooperativa,
      posto: account.posto,
      codigoBeneficiario: account.codigoBeneficiario,
    }),
    eventSubject: (id, target, sequence, account) => ({
      kind: SubjectKind.BOLETO,
      id,
      sequence,
      nossoNumero: (target as BoletoTarget).nossoNumero,
      codigoBeneficiario: account.codigoBeneficiario,
    }),
  };
}

/** The payment's rules. */
export function paymentRules(): SubjectRules {
  return {
    kind: SubjectKind.PAYMENT,
    owns: (target) => target.kind === 'payment',
    idOf: (target) => `payment:${(target as PaymentTarget).paymentKind}:${(target as PaymentTarget).idTransacao}`,
    guessIds: (arg, _codigoBeneficiario, paymentKind) =>
      PAYMENT_ID_PATTERN.test(arg)
        ? { ids: (paymentKind ? [paymentKind] : Object.values(PaymentKind)).map((k) => `payment:${k}:${arg}`), rank: 1 }
        : undefined,
    targetFrom: (subject, what) => {
      const paymentKind = typeof subject.paymentKind === 'string' ? subject.paymentKind.toLowerCase() : '';
      if (!(PAYMENT_TYPES as readonly string[]).includes(paymentKind)) {
        throw new Error(
          `${what} names paymentKind ${JSON.stringify(subject.paymentKind)}; it must be one of ${PAYMENT_TYPES.join(', ')}`,
        );
      }
      if (typeof subject.idTransacao !== 'string' || !PAYMENT_ID_PATTERN.test(subject.idTransacao)) {
        throw new Error(
          `${what} names idTransacao ${JSON.stringify(subject.idTransacao)?.slice(0, 120)}; it must match the bank's pattern ${PAYMENT_ID_RULE} (1 to 100 letters, digits, ':' or '-')`,
        );
      }
      return { kind: 'payment', paymentKind: paymentKind as PaymentType, idTransacao: subject.idTransacao };
    },
    targetOf: (item) => {
      const payment = paymentItem(item);
      return payment ? { kind: 'payment', paymentKind: payment.type, idTransacao: payment.idTransacao } : undefined;
    },
    notOurs: () => undefined,
    notificationId: (item) => paymentItem(item)?.status ?? wrongKind('payment'),
    async query(target, provider, _context, deadline) {
      const { paymentKind, idTransacao } = target as PaymentTarget;
      const answer = await queriesOf(provider).queryPayment(paymentKind, idTransacao, deadline);
      if (!answerNames(answer, 'idTransacao', idTransacao))
        throw new Error(`the bank answered for idTransacao ${identifier(answer.idTransacao)}, not ${idTransacao}`);
      return answer;
    },
    verify: (_previous, answer, context) =>
      paymentState(answer, context.settings.paymentStatuses, context.zuluTimestamps),
    changes: paymentChanges,
    claim: (item, state, history, context) => {
      const claim = paymentClaim(paymentItem(item) ?? wrongKind('payment'), context.settings.paymentStatuses);
      return { claim, check: checkPaymentClaim(claim, state, history) };
    },
    datedAt,
    pendingUntilFinal: (state) =>
      !state || state.statusClass === StatusClass.PENDING || state.statusClass === StatusClass.UNKNOWN,
    eventAccount: (account) => ({ cooperativa: account.cooperativa, posto: account.posto, conta: account.conta }),
    eventSubject: (id, target, sequence) => {
      const { paymentKind, idTransacao } = target as PaymentTarget;
      return { kind: SubjectKind.PAYMENT, id, sequence, paymentKind: paymentKind as PaymentKind, idTransacao };
    },
  };
}
