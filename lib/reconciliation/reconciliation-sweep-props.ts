/**
 * The reconciliation sweep's props and their checks (what a BankWebhookReceiver's
 * `reconciliation` and a ReconciliationSweep take), beside the construct that reads them.
 */
import { Duration, Token } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { ProcessorDefaults } from '../../contracts/processor';
import { SweepDefaults } from '../../contracts/reconciliation';
import type { FunctionNetworkProps } from '../core/function-network';
import type { ObservabilityProps } from '../core/observability-props';
import { isWholeNumberIn, type PropsValidation } from '../core/props-validation';
import { checkIdempotencyTtl, minIdempotencyTtlSeconds } from '../core/timing';
import type { SettlementProcessor } from '../processor/settlement-processor';
import type { BoletoWebhookContract } from '../registration/boleto-webhook-contract';
import type { PaymentWebhookRegistration } from '../registration/payment-webhook-registration';
import type { PixKeyWebhook } from '../registration/pix-key-webhook';
import type { PixAccountWebhook } from '../registration/pix-account-webhook';

/** How the reconciliation sweep runs. */
export interface ReconciliationSweepOptions {
  /**
   * Time between two sweeps: how late a lost settlement is found at most (plus the processor's
   * verification). From 10 minutes to 24 hours, whole minutes.
   * @default Duration.minutes(15)
   */
  readonly interval?: Duration;
  /**
   * Days before the bank's today whose settled boletos each sweep reads again (today and the last
   * N days, in the bank's time zone). From 0 to 30.
   * @default 3
   */
  readonly lookbackDays?: number;
  /**
   * How long a payment seen in a non-final status (RECEBIDO, AGENDADO, EM_PROCESSAMENTO) is
   * queried again by each sweep before it is given up. From 1 to 60 days.
   * @default Duration.days(7)
   */
  readonly paymentMaxAge?: Duration;
  /**
   * Put back what the stack deployed when the bank's registration differs (deactivated, blocked,
   * reactivated, lost, or another token). Never over another party's URL unless the
   * registration's own `takeOverExisting` is set, never while the stack is not in a completed
   * status, never while its deploy record is missing or disagrees with the stack, never a token
   * but the registered version of its own token secret, and not again once contested (changed
   * back within a day of a repair). Off, a drift raises the alarm and nothing more;
   * `takeOverExisting` alone does not turn it on.
   * @default false
   */
  readonly repairRegistrations?: boolean;
  /**
   * The event sources whose Track Payment events are followed (the company's own code that starts
   * payments, such as `acme.payables`). Only these: a Track Payment costs the bank's query budget,
   * so it is taken from producers you name. Never the receiver's own `eventSource`.
   * @default - none: no Track Payment rule (`trackPaymentRule` is undefined)
   */
  readonly trackPaymentSources?: string[];
  /**
   * Who may put Track Payment events of each source on the receiver's bus: each source named here
   * gets a bus policy statement that denies its Track Payment events to every other principal
   * (the source's other events are left alone). A source of `trackPaymentSources` not named here
   * gets a synth warning: anyone allowed `events:PutEvents` on the bus could drive looks with it.
   * @default - none named (a warning per source)
   */
  readonly trackPaymentProducers?: TrackPaymentProducer[];
  /**
   * Pending payments one sweep sends a look for at most, the oldest first; the rest wait for the
   * next sweep (`PaymentLooksCapped` counts them). From 1 to 10,000.
   * @default 1000
   */
  readonly maxPaymentLooksPerSweep?: number;
}

/** The code allowed to put Track Payment events of one source on the receiver's bus. */
export interface TrackPaymentProducer {
  /** The event source it puts Track Payment events under (one of `trackPaymentSources`). */
  readonly source: string;
  /** The roles of that code (a function's role, a container task's role). */
  readonly roles: iam.IRole[];
}

/** The reconciliation sweep of a BankWebhookReceiver: it finds what the bank never delivered. */
export interface ReconciliationOptions extends ReconciliationSweepOptions {
  /**
   * Run the sweep. Without it, a notification the bank fails to deliver (it never resends one) is
   * a settlement nobody learns about.
   * @default true
   */
  readonly enabled?: boolean;
}

/** Properties of {@link ReconciliationSweep}. */
export interface ReconciliationSweepProps extends ReconciliationSweepOptions, FunctionNetworkProps, ObservabilityProps {
  /** The processor whose bank connection, table, queue and bus the sweep works with. */
  readonly processor: SettlementProcessor;
  /**
   * The payment callback registration the watch compares with the bank's.
   * @default - none watched
   */
  readonly paymentRegistration?: PaymentWebhookRegistration;
  /**
   * The boleto webhook contracts the watch compares with the bank's.
   * @default - none watched
   */
  readonly boletoContracts?: BoletoWebhookContract[];
  /**
   * Each Pix key's webhook the watch compares with the provider's (all at one Pix API).
   * @default - none watched
   */
  readonly pixKeyWebhooks?: PixKeyWebhook[];
  /**
   * The account's Pix Automático webhooks the watch compares with the provider's (at the keys' Pix API).
   * @default - none watched
   */
  readonly pixAccountWebhooks?: PixAccountWebhook[];
}

/** The options with every default filled. */
export interface ResolvedReconciliation {
  readonly enabled: boolean;
  readonly interval: Duration;
  readonly lookbackDays: number;
  readonly paymentMaxAge: Duration;
  readonly repairRegistrations: boolean;
}

export function resolveReconciliation(options: ReconciliationOptions = {}): ResolvedReconciliation {
  return {
    enabled: options.enabled ?? true,
    interval: options.interval ?? Duration.minutes(SweepDefaults.intervalMinutes),
    lookbackDays: options.lookbackDays ?? SweepDefaults.lookbackDays,
    paymentMaxAge: options.paymentMaxAge ?? Duration.days(SweepDefaults.paymentMaxAgeDays),
    repairRegistrations: options.repairRegistrations ?? false,
  };
}

/**
 * Checks the sweep's options under `prefix` (such as `reconciliation.`), and that the processor's
 * records outlive what the sweep reads again (`idempotencyTtl`, when it is at least the
 * processor's own minimum, which the processor checks).
 */
export function checkReconciliationSweep(
  v: PropsValidation,
  options: ReconciliationSweepOptions,
  prefix: string,
  idempotencyTtl?: Duration,
  eventSource?: string,
): void {
  if (
    idempotencyTtl &&
    !Token.isUnresolved(idempotencyTtl.toSeconds()) &&
    idempotencyTtl.toSeconds() >= minIdempotencyTtlSeconds(0, 0)
  ) {
    const r = resolveReconciliation(options);
    const lookback = Token.isUnresolved(r.lookbackDays) ? 30 : r.lookbackDays;
    checkIdempotencyTtl(v, idempotencyTtl, lookback, Math.ceil(r.paymentMaxAge.toDays({ integral: false })));
  }
  if (options.interval) {
    v.checkNumber(
      options.interval.toSeconds(),
      `${prefix}interval`,
      (s) => s % 60 === 0 && s >= 600 && s <= 86_400,
      'must be whole minutes from 10 minutes (longer than one sweep may run) to 24 hours (seconds)',
    );
  }
  v.checkNumber(
    options.lookbackDays,
    `${prefix}lookbackDays`,
    isWholeNumberIn(0, 30),
    'must be a whole number of days from 0 to 30',
  );
  v.checkNumber(
    options.maxPaymentLooksPerSweep,
    `${prefix}maxPaymentLooksPerSweep`,
    isWholeNumberIn(1, 10_000),
    'must be a whole number from 1 to 10000',
  );
  checkTrackPaymentSources(v, options.trackPaymentSources, `${prefix}trackPaymentSources`, eventSource);
  checkTrackPaymentProducers(v, options, `${prefix}trackPaymentProducers`);
  if (options.paymentMaxAge) {
    v.checkNumber(
      options.paymentMaxAge.toSeconds(),
      `${prefix}paymentMaxAge`,
      (s) => s % 86_400 === 0 && s >= 86_400 && s <= 60 * 86_400,
      'must be whole days from 1 to 60 (seconds)',
    );
  }
}

/** The Track Payment producers: each of a source the sweep follows, once, with at least one role. */
function checkTrackPaymentProducers(v: PropsValidation, options: ReconciliationSweepOptions, name: string): void {
  const producers = options.trackPaymentProducers;
  if (producers === undefined) return;
  const sources = options.trackPaymentSources ?? [];
  producers.forEach((producer, i) => {
    if (Token.isUnresolved(producer.source)) return;
    v.check(
      sources.includes(producer.source),
      `${name}[${i}].source`,
      `is "${producer.source}", which is not one of trackPaymentSources (${sources.map((s) => `"${s}"`).join(', ') || 'none'}): name the producers of a source the sweep follows`,
    );
    v.check(
      producers.findIndex((p) => p.source === producer.source) === i,
      `${name}[${i}].source`,
      `names "${producer.source}" again: list every role of a source in one entry`,
    );
    v.check((producer.roles ?? []).length > 0, `${name}[${i}].roles`, 'must name at least one role');
  });
}

/** The Track Payment sources: named, each an event source EventBridge takes, none the receiver's own. */
function checkTrackPaymentSources(
  v: PropsValidation,
  sources: string[] | undefined,
  name: string,
  eventSource: string | undefined,
): void {
  if (sources === undefined) return;
  v.check(sources.length > 0, name, 'must name at least one source (leave it out to read no Track Payment events)');
  sources.forEach((source, i) => {
    if (Token.isUnresolved(source)) return;
    v.check(
      /^[A-Za-z0-9._\-/]{1,256}$/.test(source),
      `${name}[${i}]`,
      `must be an event source of 1 to 256 letters, digits, dots, hyphens, underscores or slashes, got "${source}"`,
    );
    v.check(
      source !== (eventSource ?? ProcessorDefaults.eventSource),
      `${name}[${i}]`,
      `is the receiver's own eventSource "${source}": Track Payment events come from the company's code, under a source of its own`,
    );
    v.check(sources.indexOf(source) === i, `${name}[${i}]`, `names "${source}" twice`);
  });
}
