/**
 * This bank's collection and payments APIs as one API family: its routes (`/boleto`, `/payments`),
 * how it reads their bodies, its subjects (boletos and payments), and its binding: the client,
 * the connection, the registrations and the listing, wired for a handler. A handler reaches it
 * through families.ts, never by name (the guard test says so); only tests and the simulator's host
 * import its files.
 */
import type { BankConnectionSettings } from '../../../contracts/bank-connection';
import { ProcessorDefaults } from '../../../contracts/processor';
import { memoized } from '../base/memo';
import type { FamilyBinding } from '../binding';
import type { ApiFamily } from '../family';
import { CallKind, MemorySlotSchedule, PacerByKind, RatePacer, type BankPacer } from '../pacing';
import { CooperativeClient } from './client';
import { credentialsFromSecret, readBankConnection } from './connection';
import { settledBoletoListing } from './listing';
import { parseNotification } from './notification';
import { cooperativeRegistrations } from './registration/kinds';
import { boletoRules, paymentRules } from './subjects';

/** The family, made by a function: a handler that only reads the connection (the sandbox) bundles none of it. */
export function cooperativeFamily(): ApiFamily {
  return {
    name: 'cooperative',
    routes: ['boleto', 'payments'],
    parse: (route, body, settings) =>
      parseNotification(route, body, settings.boletoMovements ?? ProcessorDefaults.boletoMovements),
    subjects: [boletoRules(), paymentRules()],
  };
}

/**
 * The family bound to a handler: the connection its constructs put in the environment (read when
 * first needed: the deploy-time provider has none, its custom resources name theirs), one client
 * whose copies per pacer share their tokens and connections.
 */
export const cooperativeBinding: FamilyBinding = (wiring) => {
  let connection: BankConnectionSettings | undefined;
  let base: CooperativeClient | undefined;
  const ttl = wiring.credentialsTtlMs;
  const clientOf = (settings: BankConnectionSettings, pacer: BankPacer) =>
    new CooperativeClient({
      settings,
      pacer,
      credentials: credentialsFromSecret(wiring.secretsManager, settings.credentialsSecretArn, ttl),
      onRetry: (info) => wiring.onRetry?.('Retrying a bank call', info),
      onThrottled: () => wiring.onThrottled?.(),
    });
  const connected = () => (connection ??= readBankConnection(wiring.env, wiring.setBy));
  const client = (pacer: BankPacer) => (base ??= clientOf(connected(), pacer)).withPacer(pacer);
  /** One client per connection a custom resource names, at that connection's registration rates. */
  const registrationClient = memoized(
    (settings: BankConnectionSettings) =>
      clientOf(
        settings,
        new PacerByKind(
          {
            [CallKind.CREATION]: new RatePacer(new MemorySlotSchedule(), {
              ratePerSecond: settings.registrationCallsPerSecond,
              name: 'bank registration creations',
            }),
          },
          new RatePacer(new MemorySlotSchedule(), {
            ratePerSecond: settings.queriesPerSecond,
            name: 'bank registration calls',
          }),
        ),
      ),
    JSON.stringify,
  );
  return {
    family: cooperativeFamily(),
    connected: true,
    client,
    listings: (pacer, settings) => [
      {
        listing: settledBoletoListing(
          client(pacer),
          connected().account.codigoBeneficiario,
          connected().listingPageSize,
        ),
        days: { lookbackDays: settings.lookbackDays },
      },
    ],
    deployed: (pacer) => cooperativeRegistrations(() => client(pacer), connected()),
    registrations: () => cooperativeRegistrations(registrationClient),
  };
};

export { cooperativeAudit } from './audit';
export { CooperativeClient, type BankCall, type RetryInfo } from './client';
export { credentialsFromSecret, parseBankConnection, readBankConnection } from './connection';
export { nossoNumeroOf } from './answers';
export { settledBoletoListing } from './listing';
export { cooperativeRegistrations } from './registration/kinds';
