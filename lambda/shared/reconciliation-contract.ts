/**
 * The contract between the reconciliation sweep's construct, its function and the processor:
 * the sweep's settings and their defaults, the look request it puts in the processor's queue,
 * the items it keeps in the processor's table, and the metrics it emits. Every side imports this
 * module.
 */
import { EventTrigger } from './event-contract';
import type { PaymentType } from './bank-connection';
import type { BoletoContractSpec, PaymentWebhookSpec } from './registration-contract';

/** The sweep's `service` (logs and metric dimension). */
export const RECONCILIATION_SERVICE_NAME = 'bank-webhook-reconciliation';

/** Environment variable holding the JSON of {@link SweepSettings}. */
export const SWEEP_SETTINGS_ENV = 'BANK_WEBHOOKS_SWEEP_SETTINGS';

export const SweepDefaults = {
  /** Minutes between two sweeps. */
  intervalMinutes: 15,
  /** Days before the bank's today whose settlements are read again (today and the last N). */
  lookbackDays: 3,
  /** Days a payment seen in a non-final status is queried again before it is given up. */
  paymentMaxAgeDays: 7,
  /** The sweep's function timeout, in seconds: a sweep cut short resumes from its cursors. */
  timeoutSeconds: 300,
  /** Time kept free at the end of a sweep to save its cursors and report, in milliseconds. */
  safetyMarginMs: 10_000,
} as const;

/** The sweep's settings, as the construct writes them in the function's environment. */
export interface SweepSettings {
  readonly idempotencyTableName: string;
  /** The processor's queue: look requests go there. */
  readonly queueUrl: string;
  readonly lookbackDays: number;
  readonly paymentMaxAgeDays: number;
  readonly safetyMarginMs: number;
  /** The registration watch, when the stack registers with the bank. */
  readonly watch?: WatchSettings;
}

/** The registrations the watch compares with the bank's, and whether it repairs them. */
export interface WatchSettings {
  readonly payment?: PaymentWebhookSpec;
  readonly contracts: readonly BoletoContractSpec[];
  /** Put ours back when the bank's differs (never over another party's URL without the spec's takeOverExisting). */
  readonly repair: boolean;
  /** The sweep's schedule rule: a repair is made only while it exists and is enabled. */
  readonly scheduleRuleName: string;
}

/** How the bank's registration differs from this stack's. */
export enum RegistrationDrift {
  /** The bank holds none. */
  MISSING = 'missing',
  /** The bank holds another URL. */
  OTHER_URL = 'other-url',
  /** Our URL with another token (every notification would be refused with 401). */
  TOKEN = 'token',
  /** INATIVO (the bank deactivated it, for example after failed deliveries). */
  INACTIVE = 'inactive',
  /** BLOQUEADO. */
  BLOCKED = 'blocked',
}

/** Reads and checks the sweep settings the construct put in the environment. */
export function readSweepSettings(env: NodeJS.ProcessEnv): SweepSettings {
  const raw = env[SWEEP_SETTINGS_ENV];
  const fix = '(the construct sets it; redeploy rather than editing it)';
  if (!raw) throw new Error(`${SWEEP_SETTINGS_ENV} is not set ${fix}`);
  let parsed: Partial<SweepSettings>;
  try {
    parsed = JSON.parse(raw) as Partial<SweepSettings>;
  } catch {
    throw new Error(`${SWEEP_SETTINGS_ENV} is not JSON ${fix}`);
  }
  const missing = (['idempotencyTableName', 'queueUrl'] as const).filter((key) => !parsed[key]);
  if (missing.length) throw new Error(`${SWEEP_SETTINGS_ENV} lacks ${missing.join(', ')} ${fix}`);
  return {
    idempotencyTableName: parsed.idempotencyTableName!,
    queueUrl: parsed.queueUrl!,
    lookbackDays: parsed.lookbackDays ?? SweepDefaults.lookbackDays,
    paymentMaxAgeDays: parsed.paymentMaxAgeDays ?? SweepDefaults.paymentMaxAgeDays,
    safetyMarginMs: parsed.safetyMarginMs ?? SweepDefaults.safetyMarginMs,
    ...(parsed.watch ? { watch: parsed.watch } : {}),
  };
}

/** What a look request asks the processor to look at. */
export type LookSubject =
  | { readonly kind: 'boleto'; readonly nossoNumero: string }
  | { readonly kind: 'payment'; readonly paymentKind: PaymentType; readonly idTransacao: string };

/**
 * A message in the processor's queue that is not a notification: "ask the bank about this
 * subject and publish what changed". The sweep sends one for each settlement it finds unpublished
 * and for each payment still pending; the company sends one (through a Track Payment event) for a
 * payment it started.
 */
export interface LookRequest {
  readonly look: 1;
  readonly trigger: EventTrigger;
  readonly subject: LookSubject;
  /** When it was asked for (ISO 8601). */
  readonly requestedAt: string;
  /** Why, in words (logged with what it finds). */
  readonly reason: string;
  /** Keep the payment in the sweep's index while it is not final (a payment the company started). */
  readonly track?: boolean;
}

/** A subject's id (the events' `subject.id`): `boleto:<codigoBeneficiario>:<nossoNumero>` or `payment:<kind>:<idTransacao>`. */
export function subjectIdOf(target: LookSubject, codigoBeneficiario: string): string {
  return target.kind === 'boleto' ? `boleto:${codigoBeneficiario}:${target.nossoNumero}` : `payment:${target.paymentKind}:${target.idTransacao}`;
}

/** The payment a payment subject's id names, or undefined for any other id. */
export function paymentOfSubjectId(subjectId: string): Extract<LookSubject, { kind: 'payment' }> | undefined {
  const match = /^payment:([a-z]+):(.+)$/.exec(subjectId);
  if (!match || !(PAYMENT_KINDS as readonly string[]).includes(match[1])) return undefined;
  return { kind: 'payment', paymentKind: match[1] as PaymentType, idTransacao: match[2] };
}

const PAYMENT_KINDS: readonly PaymentType[] = ['pix', 'boleto', 'tributos'];
/** The identifiers the bank's paths and headers take: letters, digits and a few separators. */
const IDENTIFIER = /^[0-9A-Za-z._:-]{1,64}$/;

export function encodeLookRequest(request: Omit<LookRequest, 'look'>): string {
  return JSON.stringify({ look: 1, ...request } satisfies LookRequest);
}

/**
 * The detail type of the event the company puts on the receiver's bus to have a payment it
 * started followed until it is final, even when every notification of it is lost.
 */
export const TRACK_PAYMENT_DETAIL_TYPE = 'Track Payment';

/** The detail of a Track Payment event. */
export interface TrackPaymentDetail {
  /** `pix`, `boleto` (a boleto paid) or `tributos`. */
  readonly paymentKind: string;
  /** The payment's transaction id, as the payments API returned it. */
  readonly idTransacao: string;
  /** The account that made it (the receiver's `bank.account`): only that receiver follows it. */
  readonly account: { readonly cooperativa: string; readonly conta: string };
}

/**
 * A look request from a queue message: one the sweep sent, or a Track Payment event as an
 * EventBridge rule delivers it to SQS. Undefined when the message is neither (a stored
 * notification); throws a readable error when it is one of them but malformed.
 */
export function decodeLookRequest(messageBody: string): LookRequest | undefined {
  // Told apart by their first bytes, so a stored notification is not parsed twice.
  const lookRequest = messageBody.startsWith('{"look":');
  const event = !lookRequest && messageBody.startsWith('{"version":') && messageBody.slice(0, 300).includes('"detail-type":');
  if (!lookRequest && !event) return undefined;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(messageBody) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (parsed['detail-type'] === TRACK_PAYMENT_DETAIL_TYPE) {
    const detail = (parsed.detail ?? {}) as Record<string, unknown>;
    const subject = checkSubject({ kind: 'payment', paymentKind: detail.paymentKind, idTransacao: detail.idTransacao }, TRACK_PAYMENT_DETAIL_TYPE);
    return {
      look: 1, trigger: EventTrigger.RECONCILIATION, subject, track: true,
      requestedAt: typeof parsed.time === 'string' ? parsed.time : new Date().toISOString(),
      reason: `a ${TRACK_PAYMENT_DETAIL_TYPE} event from ${typeof parsed.source === 'string' ? parsed.source : 'an unnamed source'}`,
    };
  }
  if (parsed.look !== 1) return undefined;
  const trigger = Object.values(EventTrigger).includes(parsed.trigger as EventTrigger) ? parsed.trigger as EventTrigger : undefined;
  if (!trigger) throw new Error(`a look request with trigger ${JSON.stringify(parsed.trigger)}, not one of ${Object.values(EventTrigger).join(', ')}`);
  return {
    look: 1,
    trigger,
    subject: checkSubject((parsed.subject ?? {}) as Record<string, unknown>, 'a look request'),
    requestedAt: typeof parsed.requestedAt === 'string' ? parsed.requestedAt : new Date().toISOString(),
    reason: typeof parsed.reason === 'string' ? parsed.reason.slice(0, 200) : '',
    ...(parsed.track === true ? { track: true } : {}),
  };
}

function checkSubject(subject: Record<string, unknown>, what: string): LookSubject {
  if (subject.kind === 'boleto' && typeof subject.nossoNumero === 'string' && IDENTIFIER.test(subject.nossoNumero)) {
    return { kind: 'boleto', nossoNumero: subject.nossoNumero };
  }
  if (subject.kind === 'payment') {
    const paymentKind = typeof subject.paymentKind === 'string' ? subject.paymentKind.toLowerCase() : '';
    if (!(PAYMENT_KINDS as readonly string[]).includes(paymentKind)) {
      throw new Error(`${what} names paymentKind ${JSON.stringify(subject.paymentKind)}; it must be one of ${PAYMENT_KINDS.join(', ')}`);
    }
    if (typeof subject.idTransacao !== 'string' || !IDENTIFIER.test(subject.idTransacao)) {
      throw new Error(`${what} names idTransacao ${JSON.stringify(subject.idTransacao)}; it must be 1 to 64 letters, digits, '.', '_', ':' or '-'`);
    }
    return { kind: 'payment', paymentKind: paymentKind as PaymentType, idTransacao: subject.idTransacao };
  }
  throw new Error(`${what} names no subject the processor knows (a boleto's nossoNumero, or a payment's paymentKind and idTransacao)`);
}

/**
 * Attributes of a payment's record while it is not final: a sparse global secondary index on
 * them lists exactly the payments the sweep must query again, without scanning the table.
 */
export const PendingPaymentIndex = {
  NAME: 'pending-payments',
  /** Partition key (string): always {@link PENDING_PAYMENTS_PARTITION}; absent when the payment is final. */
  PARTITION: 'pending',
  /** Sort key (number): when the payment was first seen not final (epoch ms). */
  SINCE: 'pendingSince',
} as const;

export const PENDING_PAYMENTS_PARTITION = 'payment';

/** The sweep's cursor of one day of settled boletos, an item of the processor's table. */
export function boletoDayCursorId(codigoBeneficiario: string, isoDay: string): string {
  return `sweep#boleto#${codigoBeneficiario}#${isoDay}`;
}

/** Metric names the sweep emits (namespace METRICS_NAMESPACE); NotificationsRecovered is the processor's (ProcessorMetric). */
export const SweepMetric = {
  /** Settlements the listing showed that no record held: sent to the processor to be verified. */
  LOOKS_REQUESTED: 'ReconciliationLooksRequested',
  /** Bank calls one sweep made (listing pages). */
  BANK_CALLS: 'SweepBankCalls',
  /** How long one sweep took, in milliseconds. */
  DURATION: 'SweepDuration',
  /** Sweeps that stopped before reading everything (their cursors resume it). */
  INCOMPLETE: 'SweepsIncomplete',
  /** Payments given up after the maximum age without reaching a final status. */
  PAYMENTS_GIVEN_UP: 'PendingPaymentsGivenUp',
  /** A registration at the bank that is not this stack's (missing, another URL or token, INATIVO, BLOQUEADO), per sweep. */
  REGISTRATION_DRIFT: 'RegistrationDrift',
  /** Registrations the watch put back. */
  REGISTRATIONS_REPAIRED: 'RegistrationsRepaired',
} as const;

/** The bank's local day (America/Sao_Paulo, UTC−3 all year) `daysBack` days before `now`: ISO and the listing's `DD/MM/YYYY`. */
export function bankDay(now: number, daysBack = 0): { iso: string; dia: string } {
  const local = new Date(now - 3 * 3600_000 - daysBack * 86_400_000);
  const iso = local.toISOString().slice(0, 10);
  return { iso, dia: `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}` };
}
