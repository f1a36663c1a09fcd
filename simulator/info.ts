import type { SimulatorAccount } from './model';
import type { BankCredentials } from './tokens';

/** What GET /control/info answers: every URL and credential a client needs. */
export interface SimulatorInfo {
  readonly baseUrl: string;
  readonly registrationBaseUrl: string;
  readonly collectionTokenUrl: string;
  readonly paymentsTokenUrl: string;
  readonly controlUrl: string;
  readonly caFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  readonly accounts: readonly SimulatorAccount[];
  readonly credentials: BankCredentials;
  /** Scopes: the collection token's, the payments ones the callback registration takes, and those payment queries take (one per kind). */
  readonly scopes: { readonly collection: string; readonly payments: readonly string[]; readonly paymentQueries: readonly string[] };
}

