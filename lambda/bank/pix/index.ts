/**
 * The standard Pix API as an API family: its routes (`/pix`; Pix Automático's `/rec` and `/cobr`),
 * how it reads a callback, its subjects (a Pix received, a refund of one, a recurrence, a recurring
 * charge), and its binding: the client, the connection, the
 * key webhooks' registrations and the Pix listings, wired for a handler. A handler reaches it
 * through families.ts (the receiver, its receiving.ts through the routes' intake), never by name.
 */
import { PixConnectionDefaults, type PixConnectionSettings } from '../../../contracts/pix-connection';
import { ProcessorDefaults } from '../../../contracts/processor';
import { SWEEP_SETTINGS_ENV } from '../../../contracts/reconciliation';
import { memoized } from '../base/memo';
import type { FamilyBinding } from '../binding';
import type { ApiFamily } from '../family';
import { MemorySlotSchedule, RatePacer, type BankPacer } from '../pacing';
import { PixClient } from './client';
import { pixCredentialsFromSecret, readPixConnection } from './connection';
import { pixDayListing, pixRefundListing } from './listing';
import { recurrenceListing, recurringChargeListing } from './recurring-listing';
import { parsePixNotification } from './notification';
import { pixRegistrations } from './registration';
import { pixRefundRules, pixRules } from './subjects';
import { isRecurringRoute, parseRecurringNotification } from './recurring-notification';
import { recurrenceRules, recurringChargeRules } from './recurring-subjects';

/** The family, made by a function: a handler that does not verify bundles none of it. */
export function pixFamily(): ApiFamily {
  return {
    name: 'pix',
    routes: ['pix', 'rec', 'cobr'],
    parse: (route, body) =>
      isRecurringRoute(route) ? parseRecurringNotification(route, body) : parsePixNotification(body),
    subjects: [pixRules(), pixRefundRules(), recurrenceRules(), recurringChargeRules()],
    subjectsPerNotification: ProcessorDefaults.subjectsPerNotification,
  };
}

/** Calls a second to the Pix API when registering a key's webhook (one custom resource at a time). */
const REGISTRATION_CALLS_PER_SECOND = 5;

/**
 * The family bound to a handler: the Pix connection its constructs put in the environment (none
 * without a Pix route), and a client per pacer sharing the credentials' cache.
 */
export const pixBinding: FamilyBinding = (wiring) => {
  const connection = readPixConnection(wiring.env, wiring.setBy);
  const credentialsOf = (settings: PixConnectionSettings) =>
    pixCredentialsFromSecret(wiring.secretsManager, settings.credentialsSecretArn, wiring.credentialsTtlMs);
  // One cache of the credentials for the clients of every pacer.
  const credentials = connection && credentialsOf(connection);
  const clientOf = (settings: PixConnectionSettings, pacer: BankPacer, loaded = credentialsOf(settings)) =>
    new PixClient({
      settings,
      pacer,
      credentials: loaded,
      onRetry: (info) => wiring.onRetry?.('Retrying a Pix API call', info),
      onThrottled: () => wiring.onThrottled?.(),
    });
  // Made once per pacer: a Pix client keeps its token and its mutual-TLS connection between invocations.
  const perPacer = memoized((pacer: BankPacer) => clientOf(connection!, pacer, credentials));
  const client = (pacer: BankPacer): PixClient | undefined => connection && perPacer(pacer);
  /** One client per connection a custom resource names, at the registration rate. */
  const registrationClient = memoized(
    (settings: PixConnectionSettings) =>
      clientOf(
        settings,
        new RatePacer(new MemorySlotSchedule(), {
          ratePerSecond: REGISTRATION_CALLS_PER_SECOND,
          name: 'Pix registration calls',
        }),
      ),
    JSON.stringify,
  );
  return {
    family: pixFamily(),
    connected: connection !== undefined,
    client,
    listings(pacer, settings) {
      const p = settings.pix;
      if (!p) return [];
      const lister = client(pacer);
      if (!lister)
        throw new Error(
          `${SWEEP_SETTINGS_ENV} asks for the Pix sweep but the function has no Pix connection (set by ${wiring.setBy} from its processor's pix)`,
        );
      const options = {
        keyHashes: p.keyHashes,
        publishWithoutTxid: p.publishWithoutTxid,
        pageSize: PixConnectionDefaults.listingPageSize,
      };
      const recurring = p.recurring;
      const older = recurring ? recurring.chargeCreationDays - settings.lookbackDays : 0;
      return [
        { listing: pixDayListing(lister, options), days: { lookbackDays: settings.lookbackDays } },
        // Pix Automático's, by creation: the recurrences of the days the sweep covers; the charges back to their creation window.
        ...(recurring
          ? [
              {
                listing: recurrenceListing(lister, PixConnectionDefaults.listingPageSize),
                days: { lookbackDays: settings.lookbackDays },
              },
              {
                listing: recurringChargeListing(lister, PixConnectionDefaults.listingPageSize),
                days: { lookbackDays: settings.lookbackDays },
              },
              ...(older > 0
                ? [
                    {
                      listing: recurringChargeListing(lister, PixConnectionDefaults.listingPageSize, true),
                      days: {
                        lookbackDays: recurring.chargeCreationDays,
                        rotation: {
                          from: settings.lookbackDays + 1,
                          perSweep: recurring.chargeDaysPerSweep,
                          intervalMinutes: p.intervalMinutes,
                        },
                      },
                    },
                  ]
                : []),
            ]
          : []),
        {
          listing: pixRefundListing(lister, options),
          days: {
            lookbackDays: p.refundLookbackDays,
            rotation: {
              from: settings.lookbackDays + 1,
              perSweep: p.refundDaysPerSweep,
              intervalMinutes: p.intervalMinutes,
            },
          },
        },
      ];
    },
    deployed(pacer) {
      const caller = client(pacer);
      return caller && pixRegistrations(() => caller, connection);
    },
    registrations: () => pixRegistrations(registrationClient),
  };
};

export { pixAudit } from './audit';
export { PixClient, type PixClientOptions } from './client';
export {
  ChargeState,
  type ChargeRead,
  type PixPageRead,
  type PixRead,
  type PixRefundRead,
  readCharge,
  readPix,
  readPixPage,
  readRefund,
} from './answers';
export { type PixQueries, pixQueries } from './queries';
export { parsePixCredentials, pixCredentialsFromSecret, readPixConnection } from './connection';
export { pixRegistrations, type PixWebhookCaller } from './registration';
export { RefundStatus } from '../../../contracts/pix';
export {
  pixDay,
  pixDayListing,
  pixDayWindow,
  type PixLister,
  type PixListingOptions,
  pixRefundListing,
} from './listing';
