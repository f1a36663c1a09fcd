import type { SimulatorAccount } from './model';
import type { BankCredentials } from './tokens';

/** What GET /control/info answers: every URL and credential a client needs. */
export interface SimulatorInfo {
  readonly baseUrl: string;
  readonly registrationBaseUrl: string;
  readonly collectionTokenUrl: string;
  readonly paymentsTokenUrl: string;
  readonly controlUrl: string;
  /** The standard Pix API's base (`…/api/v2`; charges are read under `…/api/v3` too). */
  readonly pixBaseUrl: string;
  readonly pixTokenUrl: string;
  /** The Pix application's client certificate and key (mutual TLS at the Pix token endpoint). */
  readonly pixClientCertFile: string;
  readonly pixClientKeyFile: string;
  /** The certificate the provider presents on its Pix callbacks: what a receiver pins. */
  readonly pixWebhookCertFile: string;
  /** The Pix keys the provider holds for the accounts. */
  readonly pixKeys: readonly string[];
  readonly caFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  readonly accounts: readonly SimulatorAccount[];
  readonly credentials: BankCredentials;
  /** Scopes: the collection token's, the payments ones the callback registration takes, and those payment queries take (one per kind). */
  readonly scopes: {
    readonly collection: string;
    readonly payments: readonly string[];
    readonly paymentQueries: readonly string[];
    readonly pix: readonly string[];
  };
}
