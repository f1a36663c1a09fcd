import { Duration, Token } from 'aws-cdk-lib';
import { SubjectKind } from '../../../contracts/events';
import { MAX_PIX_KEY_LENGTH, normalizePixKey, pixKeyHash } from '../../../contracts/pix';
import { type ProcessorSettings, RecordLifetime } from '../../../contracts/processor';
import { PixRecurringDefaults } from '../../../contracts/pix-recurring';
import type { PixSweepSettings } from '../../../contracts/reconciliation';
import { type PixConnectionProps, validatePixConnection } from './connection';
import type { PropsValidation } from '../../core/props-validation';
import { type PixDomainProps, validatePixDomain } from './domain';

export {
  normalizedFingerprint,
  type PixDomainProps,
  type PixPinnedCertificates,
  type PixTruststoreProps,
} from './domain';

/** Days before the provider's client certificate expires that its alarm goes off (a month ahead). */
export const PIX_CERTIFICATE_WARNING_DAYS = 30;

/** The most keys one receiver verifies Pix for (each also becomes a registration at the provider). */
export const MAX_PIX_KEYS = 20;

/**
 * How far back a refund can come: the standard lets the receiver refund a Pix for 90 days, and a
 * MED claim can concern a Pix up to 80 days old, its refund landing some days after the claim.
 */
export const MAX_PIX_REFUND_LOOKBACK_DAYS = 100;

/** How long a Pix's and a refund's record lives by default: the refund look-back's 100 days and the records' one-day margin. */
export const DEFAULT_PIX_RECORD_LIFETIME_DAYS = 101;

/**
 * How the reconciliation sweep reads the provider's Pix listing (`GET /pix?inicio&fim`, which
 * filters on each Pix's own time): the Pix of today and the sweep's `lookbackDays` before it,
 * and the refunds of older Pix back to `refundLookback`.
 */
export interface PixSweepProps {
  /**
   * How far back the sweep reads Pix for their refunds (a refund whose callback was lost is found
   * only while its Pix is this recent): whole days, at least the sweep's `lookbackDays`, at most
   * 100 (the standard's 90-day refund window; a MED claim up to 80 days after the Pix, its refund
   * days later) and at most `pix.recordLifetime` less a day (what Pix records remember). The days
   * older than `lookbackDays` are read a few a sweep, each once a day.
   * @default - `pix.recordLifetime` less a day, at most 100 days (100 days by default)
   */
  readonly refundLookback?: Duration;
  /**
   * Publish the Pix paid to the receiver's keys without a txid (a key typed in, a static code
   * without one) that the sweep finds in the listing. The standard notifies none of them, so they
   * come only through the sweep, as late as its interval; their refunds with them.
   * @default false - only Pix with a txid, what the provider notifies
   */
  readonly publishWithoutTxid?: boolean;
}

/**
 * Verification by listing at a peak: once a Pix callback has waited longer than `after` since it
 * was stored (more Pix wait than the query budget verifies one by one), the processor verifies
 * Pix for a minute by the provider's listing of the ten seconds each was paid in, and the charges
 * they pay by the listing of charges concluded within `chargeReach` (one by one where that costs
 * fewer calls). What a listing does not show is read one by one.
 */
export interface PixBulkVerificationProps {
  /** Set false to verify every Pix one by one, whatever waits. @default true */
  readonly enabled?: boolean;
  /** How long a callback waits before the processor verifies by listing: whole seconds, 0 (every callback) to 900. @default Duration.seconds(10) */
  readonly after?: Duration;
  /**
   * How long before a Pix the charges it pays are created (their expiry, for immediate charges):
   * whole minutes, 0 to 1 day. A charge created earlier is read one by one.
   * @default Duration.hours(1)
   */
  readonly chargeReach?: Duration;
}

/** The processor's settings of verification by listing, or undefined when it is off (no `domain`, or turned off). */
export function pixBulkSettings(
  props: PixReceiverProps,
): { afterSeconds: number; chargeReachMinutes: number } | undefined {
  const bulk = props.bulkVerification;
  if (!props.domain || bulk?.enabled === false) return undefined;
  return {
    afterSeconds: bulk?.after?.toSeconds() ?? 10,
    chargeReachMinutes: bulk?.chargeReach?.toMinutes() ?? 60,
  };
}

/** What the processor's settings hold of the receiver's Pix props. */
export function pixProcessorSettings(props: PixReceiverProps, idempotencyTtl: Duration): Partial<ProcessorSettings> {
  const recordTtlSecondsByKind = pixRecordTtlSecondsByKind(props, idempotencyTtl);
  const pixBulk = pixBulkSettings(props);
  return {
    pixKeys: normalizedPixKeys(props),
    ...(props.keylessPix ? { pixKeyless: true } : {}),
    ...(props.recurring ? { pixRecurring: true } : {}),
    ...(props.domain ? { pixCallbacksAuthenticated: true } : {}),
    ...(pixBulk ? { pixBulk } : {}),
    ...(recordTtlSecondsByKind ? { recordTtlSecondsByKind } : {}),
  };
}

/** Checks `bulkVerification` under `prefix`. */
function validatePixBulk(v: PropsValidation, props: PixReceiverProps, prefix: string): void {
  const bulk = props.bulkVerification;
  if (!bulk) return;
  const after = bulk.after?.toSeconds({ integral: false });
  if (after !== undefined && !Token.isUnresolved(after))
    v.check(
      Number.isInteger(after) && after >= 0 && after <= 900,
      `${prefix}.bulkVerification.after`,
      `must be whole seconds from 0 to 900, got ${after}`,
    );
  const reach = bulk.chargeReach?.toMinutes({ integral: false });
  if (reach !== undefined && !Token.isUnresolved(reach))
    v.check(
      Number.isInteger(reach) && reach >= 0 && reach <= 1440,
      `${prefix}.bulkVerification.chargeReach`,
      `must be whole minutes from 0 to 1440 (a day), got ${reach}`,
    );
  v.check(
    props.domain !== undefined || bulk.enabled === false,
    `${prefix}.bulkVerification`,
    'needs pix.domain (mutual TLS with a pin): without it anyone can post a callback, and its time would choose what is listed. Set pix.domain, or remove bulkVerification',
  );
}

/**
 * What a receiver verifies Pix received with (the Central Bank's standard Pix API; cdk-bank-webhooks/docs/pix.md):
 * the provider's Pix API, reached under this receiver's own credentials, and the keys whose Pix
 * are this receiver's.
 */
export interface PixReceiverProps {
  /** How to reach the provider's standard Pix API: every Pix is confirmed there before it is published. */
  readonly connection: PixConnectionProps;
  /**
   * The receiver's Pix keys (DICT keys: an EVP, an email, a phone as `+55...`, a CPF or a CNPJ),
   * 1 to 20. A callback naming any other key is another customer's: dropped, never published.
   * Written in any usual form; compared in the DICT's (an EVP or email in lower case, a phone's `+55`, digits only).
   */
  readonly keys: string[];
  /**
   * Mutual TLS: the Pix API on a domain of its own, the provider's certificate pinned. Required by
   * a PRODUCTION receiver.
   * @default - none: the Pix route checks no client certificate (NON_PRODUCTION only)
   */
  readonly domain?: PixDomainProps;
  /**
   * Replace another party's webhook the provider holds for one of the keys, at deploy (each key's
   * webhook is registered by `cdk deploy` when the receiver acts against its bank: PRODUCTION, or a
   * BankSandbox; a NON_PRODUCTION stack against the real provider registers none).
   * @default false
   */
  readonly takeOverExisting?: boolean;
  /**
   * Whether `cdk deploy` registers each key's webhook (when the receiver acts against its bank).
   * `false` defers it: a first deploy makes the domain and the Pix API, you point the domain's DNS
   * at it, and a later deploy with this left out registers the keys, once the provider can reach
   * the URL it checks at registration (cdk-bank-webhooks/docs/pix.md, "A first deploy"). Turning it
   * back to false removes the registrations at the provider.
   * @default true
   */
  readonly registerKeyWebhooks?: boolean;
  /**
   * How long the record of a Pix, and of a refund of one, lives after its last change: what the
   * refund look-back may reach, and what tells a refund found late from one published. Whole
   * days; never shorter than the processor's `idempotencyTtl` (the longer of the two is used).
   * Boleto and payment records keep `idempotencyTtl`.
   * @default Duration.days(101)
   */
  readonly recordLifetime?: Duration;
  /**
   * This receiver is its account's receiver for keyless Pix: those the provider ties to no key (no
   * `chave` in its answer, and no charge with one: a transfer by account details, a static code
   * without a key, a Pix Automático payment). One per account: synth refuses a second in the app;
   * every other receiver of the account records such a Pix in its trail and never publishes it.
   * @default false
   */
  readonly keylessPix?: boolean;
  /**
   * Receive the account's Pix Automático: its recurrences and recurring charges, each verified
   * with the provider (`GET /rec/{idRec}`, `GET /cobr/{txid}`) and published as Pix Recurrence
   * Changed and Pix Recurring Charge Changed; their Pix as Pix Received. Its webhooks belong to the
   * account, not to a key (`webhookrec`, `webhookcobr`, registered at deploy on the Pix API's URL,
   * which gains `/rec` and `/cobr`), so only the account's receiver for keyless Pix (`keylessPix`)
   * may take it. The credentials need the scopes `rec.read`, `cobr.read`, `webhookrec.read`,
   * `webhookrec.write`, `webhookcobr.read` and `webhookcobr.write`.
   * @default false
   */
  readonly recurring?: boolean;
  /**
   * Verification by the provider's listings at a peak (behind `domain` only: a callback's time
   * chooses the window listed). cdk-bank-webhooks/docs/pix.md says when it runs and what it costs.
   * @default - on behind `domain`: after 10 seconds, charges reached back one hour
   */
  readonly bulkVerification?: PixBulkVerificationProps;
  /**
   * How the reconciliation sweep reads the Pix listing, when the receiver has one.
   * @default - Pix with a txid; refunds of Pix back to the records' lifetime
   */
  readonly sweep?: PixSweepProps;
}

/** Checks a receiver's Pix props, every problem at once, under `prefix`. */
export function validatePixReceiver(v: PropsValidation, props: PixReceiverProps | undefined, prefix: string): void {
  if (!props) return;
  validatePixConnection(v, props.connection, `${prefix}.connection`);
  validatePixDomain(v, props.domain, `${prefix}.domain`);
  validatePixBulk(v, props, prefix);
  v.check(
    !props.recurring || props.keylessPix === true,
    `${prefix}.recurring`,
    "is the account's, not a key's (Pix Automático's webhooks are one per account): set it on the account's receiver for keyless Pix, with pix.keylessPix: true, and leave it out on the others",
  );
  const keys = props.keys ?? [];
  v.check(
    keys.length >= 1 && keys.length <= MAX_PIX_KEYS,
    `${prefix}.keys`,
    `must list 1 to ${MAX_PIX_KEYS} Pix keys, got ${keys.length}`,
  );
  const seen = new Map<string, number>();
  keys.forEach((key, i) => {
    if (Token.isUnresolved(key)) {
      v.check(
        false,
        `${prefix}.keys[${i}]`,
        'must be known at synth (the processor compares callbacks with it): write the key, not a deploy-time value',
      );
      return;
    }
    const normal = normalizePixKey(key);
    v.check(
      normal !== undefined,
      `${prefix}.keys[${i}]`,
      `must be a Pix key (an EVP such as 0f9a3c52-7b1e-4e0a-9d7c-1c2b3a4d5e6f, an email, a phone as +55 and its digits, a CPF's 11 digits or a CNPJ's 14 letters and digits; at most ${MAX_PIX_KEY_LENGTH} characters), got "${key}"`,
    );
    if (!normal) return;
    const first = seen.get(normal.key);
    v.check(
      first === undefined,
      `${prefix}.keys[${i}]`,
      `is the key of ${prefix}.keys[${first}] written otherwise (${normal.key})`,
    );
    if (first === undefined) seen.set(normal.key, i);
  });
}

/** The keys in the DICT's form, once each (after {@link validatePixReceiver}). */
export function normalizedPixKeys(props: PixReceiverProps): string[] {
  return [
    ...new Set(props.keys.map((key) => normalizePixKey(key)?.key).filter((key): key is string => key !== undefined)),
  ];
}

/** Whole days records remember: their lifetime (`idempotencyTtl`) less its margin. */
const rememberedDays = (idempotencyTtl: Duration): number =>
  Math.floor((idempotencyTtl.toSeconds() - RecordLifetime.marginSeconds) / 86_400);

/** How long a Pix subject's record lives: `pix.recordLifetime` (101 days by default), never less than the processor's `idempotencyTtl`. */
export function pixRecordLifetime(props: PixReceiverProps, idempotencyTtl: Duration): Duration {
  const asked = props.recordLifetime ?? Duration.days(DEFAULT_PIX_RECORD_LIFETIME_DAYS);
  if (Token.isUnresolved(asked.toSeconds()) || Token.isUnresolved(idempotencyTtl.toSeconds())) return asked;
  return asked.toSeconds() >= idempotencyTtl.toSeconds() ? asked : idempotencyTtl;
}

/**
 * The lifetimes (seconds) of the kinds of subject whose records outlive `idempotencyTtl`: a Pix's
 * and a refund's, when `pix.recordLifetime` is longer. What the processor's settings and the
 * operator manifest carry; undefined without Pix, or when every record lives `idempotencyTtl`.
 */
export function pixRecordTtlSecondsByKind(
  props: PixReceiverProps | undefined,
  idempotencyTtl: Duration,
): Partial<Record<SubjectKind, number>> | undefined {
  if (!props) return undefined;
  const seconds = pixRecordLifetime(props, idempotencyTtl).toSeconds();
  return seconds > idempotencyTtl.toSeconds()
    ? { [SubjectKind.PIX]: seconds, [SubjectKind.PIX_REFUND]: seconds }
    : undefined;
}

/** The refund look-back with its default filled, in whole days. */
function refundLookbackDays(props: PixReceiverProps, idempotencyTtl: Duration): number {
  return (
    props.sweep?.refundLookback?.toDays() ??
    Math.min(MAX_PIX_REFUND_LOOKBACK_DAYS, rememberedDays(pixRecordLifetime(props, idempotencyTtl)))
  );
}

/** Checks the Pix sweep's props against the sweep's look-back and the processor's records' lifetime. */
export function checkPixSweep(
  v: PropsValidation,
  props: PixReceiverProps | undefined,
  prefix: string,
  lookbackDays: number,
  idempotencyTtl: Duration,
): void {
  const lifetime = props?.recordLifetime;
  if (lifetime && !Token.isUnresolved(lifetime.toSeconds())) {
    v.checkNumber(
      lifetime.toSeconds(),
      `${prefix}.recordLifetime`,
      (s) => s % 86_400 === 0 && s / 86_400 >= 2 && s / 86_400 <= 400,
      'must be whole days from 2 to 400 (seconds)',
    );
  }
  const lookback = props?.sweep?.refundLookback;
  if (!props || !lookback || Token.isUnresolved(lookback.toSeconds())) return;
  const seconds = lookback.toSeconds();
  const remembered = rememberedDays(pixRecordLifetime(props, idempotencyTtl));
  v.checkNumber(
    seconds,
    `${prefix}.sweep.refundLookback`,
    (s) => s % 86_400 === 0 && s / 86_400 >= lookbackDays && s / 86_400 <= MAX_PIX_REFUND_LOOKBACK_DAYS,
    `must be whole days from the sweep's lookbackDays (${lookbackDays}) to ${MAX_PIX_REFUND_LOOKBACK_DAYS} (seconds)`,
  );
  v.check(
    seconds / 86_400 <= remembered,
    `${prefix}.sweep.refundLookback`,
    `is ${seconds / 86_400} days, past what Pix records remember (pix.recordLifetime, or idempotencyTtl when longer, less a day: ${remembered} days): a refund found that old could not be told from one published before its record expired. Raise pix.recordLifetime or shorten refundLookback`,
  );
}

/** What the sweep function is told of the receiver's Pix (settings.pix). */
export function pixSweepSettings(
  props: PixReceiverProps,
  sweep: { readonly lookbackDays: number; readonly intervalMinutes: number; readonly idempotencyTtl: Duration },
): PixSweepSettings {
  const refundDays = refundLookbackDays(props, sweep.idempotencyTtl);
  const older = Math.max(0, refundDays - sweep.lookbackDays);
  return {
    keyHashes: normalizedPixKeys(props).map(pixKeyHash),
    publishWithoutTxid: props.sweep?.publishWithoutTxid ?? false,
    refundLookbackDays: Math.max(refundDays, sweep.lookbackDays),
    // Each older day read at least once a day: the sweeps of a day share them.
    refundDaysPerSweep: perSweep(older, sweep.intervalMinutes),
    intervalMinutes: sweep.intervalMinutes,
    ...(props.recurring
      ? {
          recurring: {
            chargeCreationDays: Math.max(PixRecurringDefaults.chargeCreationDays, sweep.lookbackDays),
            chargeDaysPerSweep: perSweep(
              Math.max(0, PixRecurringDefaults.chargeCreationDays - sweep.lookbackDays),
              sweep.intervalMinutes,
            ),
          },
        }
      : {}),
  };
}

/** Older days a sweep reads so that each is read at least once a day: the sweeps of a day share them. */
const perSweep = (days: number, intervalMinutes: number): number =>
  days === 0 ? 0 : Math.ceil((days * intervalMinutes) / 1440);
