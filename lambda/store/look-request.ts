/**
 * Look requests (contracts/reconciliation.ts) written and read, and the subject ids they name:
 * the sweep's and Track Payment's ways of asking the processor to look at a subject.
 */
import { PAYMENT_ID_PATTERN, PAYMENT_TYPES, type PaymentType } from '../../contracts/bank-connection';
import { EventTrigger } from '../../contracts/events';
import {
  type ListedSettlement,
  type LookRequest,
  type LookSubject,
  TRACK_PAYMENT_DETAIL_TYPE,
} from '../../contracts/reconciliation';
import { rulesOf, SUBJECT_RULES } from '../bank/families';
import { UNNOTIFIED_LIMIT } from './subject-store';

/**
 * A subject's id (the events' `subject.id`), as its kind's rules name it:
 * `boleto:<codigoBeneficiario>:<nossoNumero>`, `payment:<kind>:<idTransacao>`, `pix:<endToEndId>`,
 * `pix-refund:<endToEndId>:<refundId>`.
 */
export function subjectIdOf(target: LookSubject, codigoBeneficiario: string): string {
  return rulesOf(target).idOf(target, codigoBeneficiario);
}

/** The payment a payment subject's id names, or undefined for any other id (or an id not of the bank's pattern). */
export function paymentOfSubjectId(subjectId: string): Extract<LookSubject, { kind: 'payment' }> | undefined {
  const match = /^payment:([a-z]+):(.+)$/.exec(subjectId);
  if (!match || !(PAYMENT_TYPES as readonly string[]).includes(match[1]) || !PAYMENT_ID_PATTERN.test(match[2]))
    return undefined;
  return { kind: 'payment', paymentKind: match[1] as PaymentType, idTransacao: match[2] };
}

export function encodeLookRequest(request: Omit<LookRequest, 'look'>): string {
  return JSON.stringify({ look: 1, ...request } satisfies LookRequest);
}

/**
 * A look request from a queue message: one the sweep sent, or a Track Payment event as an
 * EventBridge rule delivers it to SQS. Undefined when the message is neither (a stored
 * notification); throws a readable error when it is one of them but malformed.
 */
export function decodeLookRequest(messageBody: string): LookRequest | undefined {
  // Told apart by their first bytes, so a stored notification is not parsed twice.
  const lookRequest = messageBody.startsWith('{"look":');
  const event =
    !lookRequest && messageBody.startsWith('{"version":') && messageBody.slice(0, 300).includes('"detail-type":');
  if (!lookRequest && !event) return undefined;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(messageBody) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (parsed['detail-type'] === TRACK_PAYMENT_DETAIL_TYPE) {
    const detail = (parsed.detail ?? {}) as Record<string, unknown>;
    const subject = checkSubject(
      { kind: 'payment', paymentKind: detail.paymentKind, idTransacao: detail.idTransacao },
      TRACK_PAYMENT_DETAIL_TYPE,
    );
    const source = typeof parsed.source === 'string' ? parsed.source.slice(0, 256) : 'an unnamed source';
    return {
      look: 1,
      trigger: EventTrigger.RECONCILIATION,
      subject,
      track: true,
      requestedAt: typeof parsed.time === 'string' ? parsed.time : new Date().toISOString(),
      reason: `a ${TRACK_PAYMENT_DETAIL_TYPE} event from ${source}`,
      trackSource: source,
      // The event's id holds the payment's look marker: a redelivery of the same event holds it still.
      ...textField('lookId', parsed.id),
    };
  }
  if (parsed.look !== 1) return undefined;
  const trigger = Object.values(EventTrigger).includes(parsed.trigger as EventTrigger)
    ? (parsed.trigger as EventTrigger)
    : undefined;
  if (!trigger)
    throw new Error(
      `a look request with trigger ${JSON.stringify(parsed.trigger)}, not one of ${Object.values(EventTrigger).join(', ')}`,
    );
  return {
    look: 1,
    trigger,
    subject: checkSubject((parsed.subject ?? {}) as Record<string, unknown>, 'a look request'),
    requestedAt: typeof parsed.requestedAt === 'string' ? parsed.requestedAt : new Date().toISOString(),
    reason: typeof parsed.reason === 'string' ? parsed.reason.slice(0, 200) : '',
    ...(parsed.track === true ? { track: true } : {}),
    ...listedOf(parsed.listed),
    ...textField('lookId', parsed.lookId),
    ...textField('trackSource', parsed.trackSource),
    ...recoveryCheckOf(parsed.recoveryCheck),
    ...(Number.isSafeInteger(parsed.admittedAt) ? { admittedAt: parsed.admittedAt as number } : {}),
  };
}

/** The change keys of a recovery check, when well formed (at most a record's bound of them). */
function recoveryCheckOf(value: unknown): { recoveryCheck?: string[] } {
  if (!Array.isArray(value) || !value.length || value.length > UNNOTIFIED_LIMIT) return {};
  const keys = value.filter((key): key is string => typeof key === 'string' && key.length > 0 && key.length <= 200);
  return keys.length === value.length ? { recoveryCheck: keys } : {};
}

/** `{ [name]: value }` when `value` is a string of 1 to 256 characters, else nothing. */
function textField<K extends 'lookId' | 'trackSource'>(name: K, value: unknown): Partial<Record<K, string>> {
  return typeof value === 'string' && value.length > 0 && value.length <= 256
    ? ({ [name]: value } as Partial<Record<K, string>>)
    : {};
}

/** The listing's settlement a look request carries, when it is well formed (it only feeds a comparison). */
function listedOf(value: unknown): { listed?: ListedSettlement } {
  const v = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  const ok =
    typeof v.day === 'string' &&
    /^\d{4}-\d{2}-\d{2}$/.test(v.day) &&
    Number.isSafeInteger(v.cents) &&
    (v.cents as number) >= 0;
  return ok ? { listed: { day: v.day as string, cents: v.cents as number } } : {};
}

/** The subject a look request names, checked by its kind's rules. */
function checkSubject(subject: Record<string, unknown>, what: string): LookSubject {
  const rules = SUBJECT_RULES.find((r) => r.kind === subject.kind);
  if (!rules)
    throw new Error(
      `${what} names no subject the processor knows (a boleto's nossoNumero, a payment's paymentKind and idTransacao, or a Pix's endToEndId)`,
    );
  return rules.targetFrom(subject, what);
}
