/**
 * The standard Pix API's two kinds of subject: a Pix received, confirmed with `GET /pix/{e2eid}`
 * under our credentials (a 404 on the last verification attempt: not ours) and, when its txid is a
 * charge's, with the charge concluded with that Pix (`cob`, `cobv`, `cobr`); and a refund of one,
 * confirmed with `GET /pix/{e2eid}/devolucao/{id}`, published at its final status. Whose a Pix is
 * (tied.ts) is asked first: a key that is not the receiver's, or a Pix the provider holds for
 * someone else, is {@link Foreign} (anyone at the provider can point a webhook at our URL).
 */
import {
  BankEventDetailType,
  type EventAmount,
  type PixCharge,
  type PixReceived,
  type PixRefund,
  type PixValueComponents,
  StatusClass,
  SubjectKind,
} from '../../../contracts/events';
import { END_TO_END_ID, normalizePixKey, REFUND_ID, RefundStatus } from '../../../contracts/pix';
import type { LookSubject } from '../../../contracts/reconciliation';
import { Foreign, type SubjectItem, type SubjectRules, wrongKind } from '../family';
import type { ClaimCheck, KeyedState, SubjectState } from '../verified-state';
import type { PixRead, PixRefundRead } from './answers';
import type { PixItem, PixRefundItem } from './notification';
import { listedAnswers } from './bulk';
import { foreignKey, mayBeLag, type PixAnswer, queriesOf, tiedPix } from './tied';

type PixTarget = Extract<LookSubject, { kind: 'pix' }>;
type RefundTarget = Extract<LookSubject, { kind: 'pix-refund' }>;

/** The status a confirmed Pix is recorded with. */
export const PIX_RECEIVED_STATUS = 'RECEBIDO';

/** A decimal amount of the standard (`\d{1,10}\.\d{2}`) both ways. */
export function pixAmount(valor: string): EventAmount {
  const [whole, fraction = '00'] = valor.split('.');
  return { cents: Number(whole) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2)), decimal: valor };
}

const amounts = (parts: PixRead['componentesValor']): PixValueComponents | undefined =>
  parts ? Object.fromEntries(Object.entries(parts).map(([name, valor]) => [name, pixAmount(valor)])) : undefined;

function pixState(answer: PixAnswer): KeyedState {
  const { pix, charge } = answer;
  const amount = pixAmount(pix.valor);
  const components = amounts(pix.componentesValor);
  const received: PixReceived = {
    endToEndId: pix.endToEndId,
    amount,
    horario: pix.horario,
    ...(pix.horarioZoneAssumed ? { horarioZoneAssumed: true } : {}),
    ...(pix.txid ? { txid: pix.txid } : {}),
    ...(pix.chave ? { chave: pix.chave } : {}),
    ...(pix.infoPagador ? { infoPagador: pix.infoPagador } : {}),
    ...(components ? { componentesValor: components } : {}),
  };
  if (charge === undefined) {
    return {
      key: `${StatusClass.SETTLED}:${amount.cents}`,
      state: {
        status: PIX_RECEIVED_STATUS,
        statusClass: StatusClass.SETTLED,
        amount,
        paidAt: pix.horario,
        pix: received,
      },
    };
  }
  if (charge === null) {
    // A charge's txid with no charge behind it at the provider: never published as received.
    return {
      key: 'charge-missing',
      state: { status: 'COBRANCA_NAO_ENCONTRADA', statusClass: StatusClass.UNKNOWN, amount, paidAt: pix.horario },
    };
  }
  if (!charge.concluded)
    return {
      key: `charge:${charge.status}`,
      state: { status: charge.status, statusClass: StatusClass.PENDING, amount, paidAt: pix.horario },
    };
  const paid: PixCharge = {
    txid: charge.txid,
    kind: charge.kind,
    status: charge.status,
    original: pixAmount(charge.valorOriginal),
  };
  return {
    key: `${StatusClass.SETTLED}:${amount.cents}`,
    state: {
      status: charge.status,
      statusClass: StatusClass.SETTLED,
      amount,
      paidAt: pix.horario,
      pix: { ...received, charge: paid },
    },
  };
}

function pixClaimCheck(item: PixItem, state: SubjectState, history: readonly string[]): ClaimCheck {
  const claimed = pixAmount(item.pix.valor);
  const mismatches: string[] = [];
  if (state.statusClass !== StatusClass.SETTLED) {
    mismatches.push(
      state.status === 'COBRANCA_NAO_ENCONTRADA'
        ? `the provider shows no charge ${item.pix.txid} (cob or cobv) for the Pix`
        : `the provider shows the charge ${item.pix.txid} ${state.status}, not concluded with this Pix`,
    );
  }
  if (state.amount && state.amount.cents !== claimed.cents)
    mismatches.push(`the callback says ${claimed.decimal}; the provider shows ${state.amount.decimal}`);
  if (item.pix.txid && state.pix && state.pix.txid !== item.pix.txid)
    mismatches.push(`the callback names txid ${item.pix.txid}; the provider shows ${state.pix.txid ?? 'none'}`);
  const keyOf = (chave: string | undefined) =>
    chave === undefined ? undefined : (normalizePixKey(chave)?.key ?? chave);
  if (item.pix.chave && state.pix?.chave && keyOf(item.pix.chave) !== keyOf(state.pix.chave))
    mismatches.push('the callback names another key than the provider shows');
  const matches = mismatches.length === 0;
  return { matches, holds: matches || history.includes(`${StatusClass.SETTLED}:${claimed.cents}`), mismatches };
}

const datedMs = (dated: string | undefined): number | undefined => {
  const at = dated === undefined ? NaN : Date.parse(dated);
  return Number.isFinite(at) ? at : undefined;
};

const pixItem = (item: SubjectItem): PixItem | undefined => (item.kind === 'pix' ? (item as PixItem) : undefined);
const refundItem = (item: SubjectItem): PixRefundItem | undefined =>
  item.kind === 'pix-refund' ? (item as PixRefundItem) : undefined;

const eventAccount: SubjectRules['eventAccount'] = (account) => ({
  cooperativa: account.cooperativa,
  posto: account.posto,
  conta: account.conta,
});

/** A look request's end-to-end id, checked. */
function endToEndIdFrom(subject: Readonly<Record<string, unknown>>, what: string): string {
  if (typeof subject.endToEndId !== 'string' || !END_TO_END_ID.test(subject.endToEndId)) {
    throw new Error(
      `${what} names endToEndId ${JSON.stringify(subject.endToEndId)?.slice(0, 120)}; it must be a Pix's end-to-end id (1 to 64 letters and digits)`,
    );
  }
  return subject.endToEndId;
}

/** The rules of a Pix received. */
export function pixRules(): SubjectRules {
  return {
    kind: SubjectKind.PIX,
    owns: (target) => target.kind === 'pix',
    idOf: (target) => `pix:${(target as PixTarget).endToEndId}`,
    // An end-to-end id (E, the payer's ISPB, letters and digits since the standard's 2.9.0, the minute...) is likelier a Pix received than a payment's id.
    guessIds: (arg, _codigoBeneficiario, paymentKind) =>
      paymentKind === undefined && END_TO_END_ID.test(arg)
        ? { ids: [`pix:${arg}`], rank: /^[ED][0-9A-Z]{8}\d{12}/.test(arg) ? 2 : 0 }
        : undefined,
    targetFrom: (subject, what) => ({ kind: 'pix', endToEndId: endToEndIdFrom(subject, what) }),
    targetOf: (item) => {
      const pix = pixItem(item);
      return pix ? { kind: 'pix', endToEndId: pix.pix.endToEndId } : undefined;
    },
    notOurs: () => undefined,
    foreign: (item, context) => foreignKey(pixItem(item)?.pix.chave, context),
    notificationId: (item) => pixItem(item)?.pix.endToEndId ?? wrongKind('pix'),
    async query(target, provider, context, deadline, hint) {
      const { endToEndId } = target as PixTarget;
      const queries = queriesOf(provider);
      const listed = listedAnswers(queries, endToEndId, context, hint);
      const answer = await tiedPix(queries, endToEndId, context, deadline, listed);
      return answer as unknown as Record<string, unknown>;
    },
    verify: (_previous, answer) => pixState(answer as unknown as PixAnswer),
    changes: (previous, now) =>
      now.state.statusClass === StatusClass.SETTLED && previous?.statusClass !== StatusClass.SETTLED
        ? [
            {
              detailType: BankEventDetailType.PIX_RECEIVED,
              key: now.key,
              state: now.state,
              ...(previous ? { previous } : {}),
            },
          ]
        : [],
    claim: (item, state, history) => {
      const pix = pixItem(item) ?? wrongKind('pix');
      return {
        claim: { status: PIX_RECEIVED_STATUS, statusClass: StatusClass.SETTLED, amount: pixAmount(pix.pix.valor) },
        check: pixClaimCheck(pix, state, history),
      };
    },
    datedAt: (state) => datedMs(state.paidAt),
    pendingUntilFinal: () => false,
    eventAccount,
    eventSubject: (id, target, sequence) => ({
      kind: SubjectKind.PIX,
      id,
      sequence,
      endToEndId: (target as PixTarget).endToEndId,
    }),
  };
}

/** The class of a refund's status (what its record's history holds it under). */
export function refundClass(status: RefundStatus): StatusClass {
  if (status === RefundStatus.RETURNED) return StatusClass.REVERSED;
  return status === RefundStatus.NOT_DONE ? StatusClass.CANCELLED : StatusClass.PENDING;
}

function refundState(endToEndId: string, refund: PixRefundRead): KeyedState {
  const amount = pixAmount(refund.valor);
  const shown: PixRefund = {
    endToEndId,
    id: refund.id,
    amount,
    status: refund.status,
    ...(refund.rtrId ? { rtrId: refund.rtrId } : {}),
    ...(refund.settledAt ? { settledAt: refund.settledAt } : {}),
    ...(refund.motivo ? { motivo: refund.motivo.slice(0, 140) } : {}),
    ...(refund.natureza ? { natureza: refund.natureza } : {}),
    ...(refund.naturezaAsWritten ? { naturezaAsWritten: refund.naturezaAsWritten } : {}),
    ...(refund.descricao ? { descricao: refund.descricao.slice(0, 140) } : {}),
  };
  return {
    key: `${refundClass(refund.status)}:${refund.status}`,
    state: {
      status: refund.status,
      statusClass: refundClass(refund.status),
      amount,
      ...(refund.settledAt ? { paidAt: refund.settledAt } : {}),
      refund: shown,
    },
  };
}

/** The rules of a refund of a Pix received. */
export function pixRefundRules(): SubjectRules {
  return {
    kind: SubjectKind.PIX_REFUND,
    owns: (target) => target.kind === 'pix-refund',
    idOf: (target) => `pix-refund:${(target as RefundTarget).endToEndId}:${(target as RefundTarget).refundId}`,
    // A refund's own id names it only beside its Pix's end-to-end id: the journal's index is listed for it.
    journalSearch: (arg) =>
      REFUND_ID.test(arg)
        ? { prefix: 'pix-refund:', matches: (subjectId) => subjectId.endsWith(`:${arg}`) }
        : undefined,
    targetFrom: (subject, what) => {
      const endToEndId = endToEndIdFrom(subject, what);
      if (typeof subject.refundId !== 'string' || !REFUND_ID.test(subject.refundId)) {
        throw new Error(
          `${what} names refundId ${JSON.stringify(subject.refundId)?.slice(0, 120)}; it must be a refund's id (1 to 35 letters and digits)`,
        );
      }
      return { kind: 'pix-refund', endToEndId, refundId: subject.refundId };
    },
    targetOf: (item) => {
      const refund = refundItem(item);
      return refund ? { kind: 'pix-refund', endToEndId: refund.endToEndId, refundId: refund.refund.id } : undefined;
    },
    notOurs: () => undefined,
    foreign: (item, context) => foreignKey(refundItem(item)?.chave, context),
    notificationId: (item) => {
      const refund = refundItem(item) ?? wrongKind('pix-refund');
      return `${refund.refund.id}:${refund.refund.status}`;
    },
    async query(target, provider, context, deadline) {
      const { endToEndId, refundId } = target as RefundTarget;
      const queries = queriesOf(provider);
      const refund = await queries.getRefund(endToEndId, refundId, deadline);
      if (!refund)
        throw new Foreign(
          "the provider holds no such refund under our credentials (another customer's, or none)",
          mayBeLag(context),
        );
      if (refund.id !== refundId) throw new Error(`the provider answered for another refund than ${refundId}`);
      // A refund is this receiver's only when the Pix it returns is: whatever the callback said or left out.
      await tiedPix(queries, endToEndId, context, deadline);
      return { endToEndId, devolucao: refund };
    },
    verify: (_previous, answer) => {
      const { endToEndId, devolucao } = answer as unknown as { endToEndId: string; devolucao: PixRefundRead };
      return refundState(endToEndId, devolucao);
    },
    // Published at its final status only: in process is no event.
    changes: (previous, now) =>
      now.state.statusClass !== StatusClass.PENDING && previous?.status !== now.state.status
        ? [
            {
              detailType: BankEventDetailType.PIX_REFUND,
              key: now.key,
              state: now.state,
              ...(previous ? { previous } : {}),
            },
          ]
        : [],
    claim: (item, state, history) => {
      const { refund } = refundItem(item) ?? wrongKind('pix-refund');
      const claimed = pixAmount(refund.valor);
      const claim = { status: refund.status, statusClass: refundClass(refund.status), amount: claimed };
      const mismatches: string[] = [];
      if (state.status !== String(refund.status))
        mismatches.push(`the callback says the refund is ${refund.status}; the provider shows ${state.status}`);
      if (state.amount && state.amount.cents !== claimed.cents)
        mismatches.push(`the callback says ${claimed.decimal}; the provider shows ${state.amount.decimal}`);
      const matches = mismatches.length === 0;
      return {
        claim,
        check: { matches, holds: matches || history.includes(`${claim.statusClass}:${refund.status}`), mismatches },
      };
    },
    // The refund's own date: it can come after the Pix's record expired.
    datedAt: (state) => datedMs(state.refund?.settledAt ?? state.paidAt),
    pendingUntilFinal: () => false,
    eventAccount,
    eventSubject: (id, target, sequence) => {
      const { endToEndId, refundId } = target as RefundTarget;
      return { kind: SubjectKind.PIX_REFUND, id, sequence, endToEndId, refundId };
    },
  };
}
