/**
 * Pix Automático's two kinds of subject: a recurrence (`rec`), read with `GET /rec/{idRec}`, and a
 * recurring charge (`cobr`), read with `GET /cobr/{txid}`, each under our credentials (a 404: another
 * customer's, {@link Foreign}). They belong to the account, not to a key: only the receiver that
 * takes the account's Pix Automático (its receiver for keyless Pix) publishes them, and a charge the
 * provider shows paying into another account is {@link NotAttributed}. A callback's item names a
 * subject and claims nothing: what is published is what the provider shows. No event here carries
 * money: the Pix that pays a charge is published as Pix Received (tied.ts).
 */
import {
  BankEventDetailType,
  type PixRecurrence,
  type PixRecurringAttempt,
  type PixRecurringCharge,
  type PixRecurringEnding,
  StatusClass,
  SubjectKind,
} from '../../../contracts/events';
import { CHARGE_TXID } from '../../../contracts/pix';
import {
  isFinalRecStatus,
  isFinalRecurringChargeStatus,
  PixRecurringDefaults,
  REC_ID,
  RecStatus,
  RecurringChargeStatus,
} from '../../../contracts/pix-recurring';
import type { LookSubject } from '../../../contracts/reconciliation';
import { Foreign, NotAttributed, type RulesContext, type SubjectRules, wrongKind } from '../family';
import type { Change, KeyedState, SubjectState } from '../verified-state';
import { type EndingRead, type RecurrenceRead, type RecurringChargeRead, some } from './recurring-answers';
import type { RecurrenceItem, RecurringChargeItem } from './recurring-notification';
import { mayBeLag, otherAccount, queriesOf } from './tied';

type RecurrenceTarget = Extract<LookSubject, { kind: 'pix-recurrence' }>;
type ChargeTarget = Extract<LookSubject, { kind: 'pix-recurring-charge' }>;

const REC_CLASS: Readonly<Record<RecStatus, StatusClass>> = {
  [RecStatus.CREATED]: StatusClass.PENDING,
  [RecStatus.APPROVED]: StatusClass.OPEN,
  [RecStatus.REJECTED]: StatusClass.REJECTED,
  [RecStatus.EXPIRED]: StatusClass.CANCELLED,
  [RecStatus.CANCELLED]: StatusClass.CANCELLED,
};

const CHARGE_CLASS: Readonly<Record<RecurringChargeStatus, StatusClass>> = {
  [RecurringChargeStatus.CREATED]: StatusClass.PENDING,
  [RecurringChargeStatus.ACTIVE]: StatusClass.OPEN,
  [RecurringChargeStatus.CONCLUDED]: StatusClass.SETTLED,
  [RecurringChargeStatus.EXPIRED]: StatusClass.CANCELLED,
  [RecurringChargeStatus.REJECTED]: StatusClass.REJECTED,
  [RecurringChargeStatus.CANCELLED]: StatusClass.CANCELLED,
};

/** Why this receiver does not publish the account's Pix Automático, or undefined when it does. */
function notTaken(context: RulesContext): string | undefined {
  return context.settings.pixRecurring
    ? undefined
    : "this receiver does not take the account's Pix Automático (pix.recurring, on its receiver for keyless Pix)";
}

function endingOf(ending: EndingRead | undefined): PixRecurringEnding | undefined {
  return (
    ending && {
      kind: ending.kind,
      ...some('codigo', ending.codigo),
      ...some('solicitante', ending.by as string | undefined),
      ...some('descricao', ending.descricao?.slice(0, 140)),
    }
  );
}

/** A recurrence's verified state, keyed by its status. */
export function recurrenceStateOf(rec: RecurrenceRead): KeyedState {
  const recurrence: PixRecurrence = {
    idRec: rec.idRec,
    status: rec.status,
    ...some('ending', endingOf(rec.ending)),
    ...some('tipoJornada', rec.journey),
    ...some('politicaRetentativa', rec.retryPolicy),
  };
  return { key: `rec:${rec.status}`, state: { status: rec.status, statusClass: REC_CLASS[rec.status], recurrence } };
}

/** The key of a charge's state: its status and its latest attempt's (a retry is a change). */
const chargeKey = (charge: PixRecurringCharge): string =>
  `cobr:${charge.status}${charge.attempt ? `:${charge.attempt.endToEndId}:${charge.attempt.status}` : ''}`;

/** A recurring charge's verified state, keyed by its status and its latest attempt's. */
export function chargeStateOf(read: RecurringChargeRead): KeyedState {
  const last = read.attempts[read.attempts.length - 1];
  const attempt: PixRecurringAttempt | undefined = last && {
    endToEndId: last.endToEndId,
    status: last.status,
    ...some('tipo', last.kind),
    ...some('dataLiquidacao', last.settlementDate),
    ...some('rejectionCode', last.rejection?.codigo),
    ...some('rejectionDescription', last.rejection?.descricao?.slice(0, 140)),
  };
  const recurringCharge: PixRecurringCharge = {
    txid: read.txid,
    idRec: read.idRec,
    status: read.status,
    ...some('dueDate', read.dueDate),
    ...some('attempt', attempt),
    ...some('paidBy', read.paidBy && [...read.paidBy]),
    ...some('ending', endingOf(read.ending)),
  };
  return {
    key: chargeKey(recurringCharge),
    state: { status: read.status, statusClass: CHARGE_CLASS[read.status], recurringCharge },
  };
}

/** One change when the state's key is not the previous state's (each status, each attempt's status, published once). */
function changed(
  detailType: BankEventDetailType,
  previousKey: string | undefined,
  previous: SubjectState | undefined,
  now: KeyedState,
): Change[] {
  return previousKey === now.key ? [] : [{ detailType, key: now.key, state: now.state, ...some('previous', previous) }];
}

/** A look request's id field, checked. */
function idFrom(
  subject: Readonly<Record<string, unknown>>,
  what: string,
  field: string,
  pattern: RegExp,
  rule: string,
) {
  const id = subject[field];
  if (typeof id !== 'string' || !pattern.test(id))
    throw new Error(`${what} names ${field} ${JSON.stringify(id)?.slice(0, 120)}; it must be ${rule}`);
  return id;
}

/** What a callback's item claims: only that the subject changed, so the verified state is its claim, and it holds. */
const lookedAt: SubjectRules['claim'] = (_item, state) => ({
  claim: { status: state.status, statusClass: state.statusClass },
  check: { matches: true, holds: true, mismatches: [] },
});

/** What recurrences and recurring charges share. */
const shared = {
  notOurs: () => undefined,
  claim: lookedAt,
  // Statuses have no date the records-lifetime rule could read: records live their kind's lifetime.
  datedAt: () => undefined,
  // Followed until final (each kind's pendingUntilFinal): re-read once a day (a recurrence may stay approved for years: never given up for age).
  followUpMinutes: PixRecurringDefaults.followUpMinutes,
  alwaysLook: true,
  eventAccount: (account) => ({ cooperativa: account.cooperativa, posto: account.posto, conta: account.conta }),
} satisfies Partial<SubjectRules>;

/** The rules of a Pix Automático recurrence. */
export function recurrenceRules(): SubjectRules {
  return {
    ...shared,
    kind: SubjectKind.PIX_RECURRENCE,
    pendingUntilFinal: (state) => state !== undefined && !isFinalRecStatus(state.status),
    owns: (target) => target.kind === 'pix-recurrence',
    idOf: (target) => `pix-recurrence:${(target as RecurrenceTarget).idRec}`,
    targetOfId: (id) => {
      const idRec = /^pix-recurrence:(.*)$/.exec(id)?.[1];
      return idRec && REC_ID.test(idRec) ? { kind: 'pix-recurrence', idRec } : undefined;
    },
    guessIds: (arg, _codigoBeneficiario, paymentKind) =>
      paymentKind === undefined && REC_ID.test(arg) ? { ids: [`pix-recurrence:${arg}`], rank: 1 } : undefined,
    targetFrom: (subject, what) => ({
      kind: 'pix-recurrence',
      idRec: idFrom(subject, what, 'idRec', REC_ID, "a recurrence's id (29 letters and digits)"),
    }),
    targetOf: (item) =>
      item.kind === 'pix-recurrence' ? { kind: 'pix-recurrence', idRec: (item as RecurrenceItem).idRec } : undefined,
    notificationId: (item) => (item.kind === 'pix-recurrence' ? (item as RecurrenceItem).idRec : wrongKind('rec')),
    async query(target, provider, context, deadline) {
      const why = notTaken(context);
      if (why) throw new NotAttributed(why);
      const { idRec } = target as RecurrenceTarget;
      const rec = await queriesOf(provider).getRecurrence(idRec, deadline);
      if (!rec)
        throw new Foreign(
          "the provider holds no such recurrence under our credentials (another customer's, or none)",
          mayBeLag(context),
        );
      if (rec.idRec !== idRec) throw new Error(`the provider answered for another recurrence than ${idRec}`);
      return { rec };
    },
    verify: (_previous, answer) => recurrenceStateOf((answer as { rec: RecurrenceRead }).rec),
    changes: (previous, now) =>
      changed(
        BankEventDetailType.PIX_RECURRENCE_CHANGED,
        previous?.recurrence && `rec:${previous.recurrence.status}`,
        previous,
        now,
      ),
    eventSubject: (id, target, sequence) => ({
      kind: SubjectKind.PIX_RECURRENCE,
      id,
      sequence,
      idRec: (target as RecurrenceTarget).idRec,
    }),
  };
}

/** The rules of a Pix Automático recurring charge. */
export function recurringChargeRules(): SubjectRules {
  return {
    ...shared,
    kind: SubjectKind.PIX_RECURRING_CHARGE,
    pendingUntilFinal: (state) => state !== undefined && !isFinalRecurringChargeStatus(state.status),
    owns: (target) => target.kind === 'pix-recurring-charge',
    idOf: (target) => `pix-recurring-charge:${(target as ChargeTarget).txid}`,
    targetOfId: (id) => {
      const txid = /^pix-recurring-charge:(.*)$/.exec(id)?.[1];
      return txid && CHARGE_TXID.test(txid) ? { kind: 'pix-recurring-charge', txid } : undefined;
    },
    // A txid that does not read as an end-to-end id (`E` or `D`, an ISPB, the minute...): those are Pix first.
    guessIds: (arg, _codigoBeneficiario, paymentKind) =>
      paymentKind === undefined && CHARGE_TXID.test(arg) && !/^[ED][0-9A-Z]{8}\d{12}/.test(arg)
        ? { ids: [`pix-recurring-charge:${arg}`], rank: 0 }
        : undefined,
    targetFrom: (subject, what) => ({
      kind: 'pix-recurring-charge',
      txid: idFrom(subject, what, 'txid', CHARGE_TXID, "a charge's txid (26 to 35 letters and digits)"),
    }),
    targetOf: (item) =>
      item.kind === 'pix-recurring-charge'
        ? { kind: 'pix-recurring-charge', txid: (item as RecurringChargeItem).txid }
        : undefined,
    notificationId: (item) =>
      item.kind === 'pix-recurring-charge' ? (item as RecurringChargeItem).txid : wrongKind('cobr'),
    async query(target, provider, context, deadline) {
      const why = notTaken(context);
      if (why) throw new NotAttributed(why);
      const { txid } = target as ChargeTarget;
      const charge = await queriesOf(provider).getRecurringCharge(txid, deadline);
      if (!charge)
        throw new Foreign(
          "the provider holds no such recurring charge under our credentials (another customer's, or none)",
          mayBeLag(context),
        );
      if (charge.txid !== txid) throw new Error(`the provider answered for another recurring charge than ${txid}`);
      const elsewhere = otherAccount(charge.receiver, context);
      if (elsewhere) throw new NotAttributed(elsewhere);
      return { cobr: charge };
    },
    verify: (_previous, answer) => chargeStateOf((answer as { cobr: RecurringChargeRead }).cobr),
    changes: (previous, now) =>
      changed(
        BankEventDetailType.PIX_RECURRING_CHARGE_CHANGED,
        previous?.recurringCharge && chargeKey(previous.recurringCharge),
        previous,
        now,
      ),
    eventSubject: (id, target, sequence) => ({
      kind: SubjectKind.PIX_RECURRING_CHARGE,
      id,
      sequence,
      txid: (target as ChargeTarget).txid,
    }),
  };
}
