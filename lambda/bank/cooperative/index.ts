/**
 * This bank's collection and payments APIs as one API family (BANK-NOTES.md): its routes
 * (`/boleto`, `/payments`), how it reads their bodies, its subjects (boletos and payments), and
 * what the handlers wire from it (the client, the connection, the registrations and the listing's
 * readers). A handler imports this file, never the folder's others (the guard test says so).
 */
import type { ApiFamily } from '../family';
import { parseNotification } from './notification';
import { boletoRules, paymentRules } from './subjects';

/** The family, made by a function: a handler that only reads the connection (the sandbox) bundles none of it. */
export function cooperativeFamily(): ApiFamily {
  return {
    name: 'cooperative',
    routes: ['boleto', 'payments'],
    parse: (route, body, settings) => parseNotification(route, body, settings.boletoMovements),
    subjects: [boletoRules(), paymentRules()],
  };
}

export { BankClient, type BankCall, type RetryInfo } from './client';
export { credentialsFromSecret, parseBankConnection, readBankConnection } from './connection';
export { nossoNumeroOf } from './answers';
export { settledBoletoListing } from './listing';
export { cooperativeRegistrations } from './registration/kinds';
