/**
 * How the handlers reach the bank: the settings the `CooperativeConnectionProps` of the constructs
 * resolve to (every default filled by the construct), passed to a handler as one JSON
 * environment variable or custom resource property. The construct (lib/) and the handlers
 * (lambda/) both import this module, so the compiler holds the two sides together. Nothing here
 * is secret: the credentials travel as a Secrets Manager ARN.
 */

/** Environment variable holding the JSON of {@link BankConnectionSettings}. */
export const BANK_CONNECTION_ENV = 'BANK_WEBHOOKS_BANK_CONNECTION';

/** The payment kinds of the payments API, as in its query paths (`/v1/pagamentos/<kind>/{id}`). */
export const PAYMENT_TYPES = ['pix', 'boleto', 'tributos'] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];

/** How the payments token request presents the client id and secret. */
export enum ClientCredentialsAuth {
  /** `client_id` and `client_secret` in the form body. */
  REQUEST_BODY = 'body',
  /** HTTP Basic authentication. */
  BASIC = 'basic',
}

/**
 * How to read a bank timestamp written with a `Z` (the boleto query's `dadosLiquidacao.data`,
 * `YYYY-MM-DDTHH:mm:ss.SSSZ`): the manual does not say whether the Z is true. A settlement's bank
 * day (its id, and the sweep's match against the listing's day) follows this reading.
 */
export enum ZuluTimestamps {
  /** A true UTC instant: `2026-03-04T01:30:00.000Z` is 22:30 of 3 March at the bank (UTC−3). */
  UTC = 'utc',
  /** The bank's local time written with a Z: `2026-03-04T01:30:00.000Z` is 01:30 of 4 March at the bank. */
  BANK_LOCAL_TIME = 'bank-local',
}

/** The account the library acts for at the bank: the headers of 5.1 and the collection API. */
export interface BankAccount {
  /** Cooperative code (the `x-cooperativa` and `cooperativa` headers), such as `0101`. */
  readonly cooperativa: string;
  /** Branch code (the collection API's `posto` header), such as `02`. */
  readonly posto: string;
  /** Account number (`x-conta`). */
  readonly conta: string;
  /** The account holder's CPF or CNPJ, digits only (`x-documento`). */
  readonly documento: string;
  /** Beneficiary code of boleto collection (`codigoBeneficiario`). */
  readonly codigoBeneficiario: string;
}

/** The fields of {@link BankAccount}. */
export const ACCOUNT_FIELDS = ['cooperativa', 'posto', 'conta', 'documento', 'codigoBeneficiario'] as const;

/**
 * The bank's pattern of a payment's transaction id (`idTransacao`, cdk-bank-webhooks/docs/bank-api.md): the one rule
 * for a payment id everywhere (notifications, look requests, Track Payment, the query's path).
 */
export const PAYMENT_ID_PATTERN = /^[a-zA-Z0-9:-]{1,100}$/;
/** {@link PAYMENT_ID_PATTERN} as the bank's documentation writes it, for errors. */
export const PAYMENT_ID_RULE = '[a-zA-Z0-9:-]{1,100}';

/** What each account field may hold: it goes into a header or a query as is. */
export const ACCOUNT_FIELD_PATTERN = /^[0-9A-Za-z-]{1,20}$/;

export interface BankConnectionSettings {
  /** Collection API base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** Payments API base URL (`registration_base_url`), without a trailing slash. */
  readonly registrationBaseUrl: string;
  readonly collectionTokenUrl: string;
  readonly paymentsTokenUrl: string;
  readonly collectionScope: string;
  /** Space-separated scopes of the payments token the callback registration uses (the `pagar` scopes). */
  readonly paymentsScope: string;
  /** Space-separated scopes of the token each kind's payment query uses (one token per distinct set). */
  readonly paymentQueryScopes: Readonly<Record<PaymentType, string>>;
  /** How a timestamp written with a Z is read. */
  readonly zuluTimestamps: ZuluTimestamps;
  readonly paymentsClientAuth: ClientCredentialsAuth;
  readonly account: BankAccount;
  /** ARN of the secret holding the credentials (JSON, see {@link BankCredentials}). */
  readonly credentialsSecretArn: string;
  /** Boleto query path under `baseUrl`. */
  readonly boletoQueryPath: string;
  /** Settled boletos by day (`liquidados/dia`) under `baseUrl`, read by the reconciliation sweep. */
  readonly settledBoletosPath: string;
  /** Items of a full page of that listing: a page this full whose `hasNext` is missing may have more after it. */
  readonly listingPageSize: number;
  /** Payment query paths under `registrationBaseUrl`, with `{id}` for the transaction id. */
  readonly paymentQueryPaths: Readonly<Record<PaymentType, string>>;
  /** Deadline of one HTTP call, in milliseconds. */
  readonly callTimeoutMs: number;
  /** Calls per second the bank allows these credentials on its query APIs, shared by every function that queries. */
  readonly queriesPerSecond: number;
  /** Creations (POST) per second the registration handler makes; its other calls go at queriesPerSecond. */
  readonly registrationCallsPerSecond: number;
}

/** Defaults of cdk-bank-webhooks/docs/bank-api.md, relative to the base URLs. */
export const BankConnectionDefaults = {
  collectionTokenPath: '/auth/openapi/token',
  /** Resolved against the payments host (`{host}/thirdparty/auth/token`). */
  paymentsTokenPath: '/thirdparty/auth/token',
  collectionScope: 'cobranca',
  /** Scopes of the payments token of the callback registration (sent space-separated). */
  paymentsScopes: ['payments.pix.pagar', 'payments.boleto.pagar', 'payments.tributos.pagar'],
  /** Scopes of each payment query's token: its kind's `consultar` scope, as public payment clients ask (cdk-bank-webhooks/docs/bank-api.md). */
  paymentQueryScopes: {
    pix: ['payments.pix.consultar'],
    boleto: ['payments.boleto.consultar'],
    tributos: ['payments.tributos.consultar'],
  },
  /** A Z means UTC, as ISO 8601 says (the manual is silent; see docs/bank-api.md). */
  zuluTimestamps: ZuluTimestamps.UTC,
  paymentsClientAuth: ClientCredentialsAuth.REQUEST_BODY,
  boletoQueryPath: '/cobranca/boleto/v1/boletos',
  settledBoletosPath: '/cobranca/boleto/v1/boletos/liquidados/dia',
  /** The manual's page of the settled-by-day listing (cdk-bank-webhooks/docs/bank-api.md). */
  listingPageSize: 500,
  paymentQueryPaths: {
    pix: '/v1/pagamentos/pix/{id}',
    boleto: '/v1/pagamentos/boleto/{id}',
    tributos: '/v1/pagamentos/tributos/{id}',
  },
  callTimeoutMs: 5_000,
  /** The bank's known query limit (cdk-bank-webhooks/docs/bank-api.md: 10/s for queries on a sibling API). */
  queriesPerSecond: 10,
  /** The bank's known limit for creations (2/s): registrations create and change webhooks. */
  registrationCallsPerSecond: 2,
} as const;

/** The payment queries' scopes as the settings carry them (space-separated), each kind not given its default. */
export function scopeSettings(
  scopes: Readonly<Partial<Record<PaymentType, readonly string[]>>> = {},
): Record<PaymentType, string> {
  const d = BankConnectionDefaults.paymentQueryScopes;
  return {
    pix: (scopes.pix ?? d.pix).join(' '),
    boleto: (scopes.boleto ?? d.boleto).join(' '),
    tributos: (scopes.tributos ?? d.tributos).join(' '),
  };
}

/** The settings a connection with only its base URLs given would have: every default, derived where it depends on them. */
function defaultsFor(baseUrl: string, registrationBaseUrl: string): Partial<BankConnectionSettings> {
  const d = BankConnectionDefaults;
  let paymentsTokenUrl: string | undefined;
  try {
    paymentsTokenUrl = new URL(d.paymentsTokenPath, registrationBaseUrl).toString();
  } catch {
    // A base URL only known at deploy time: the token URL stays written out.
  }
  return {
    collectionTokenUrl: baseUrl + d.collectionTokenPath,
    ...(paymentsTokenUrl ? { paymentsTokenUrl } : {}),
    collectionScope: d.collectionScope,
    paymentsScope: d.paymentsScopes.join(' '),
    paymentQueryScopes: scopeSettings(),
    zuluTimestamps: d.zuluTimestamps,
    paymentsClientAuth: d.paymentsClientAuth,
    boletoQueryPath: d.boletoQueryPath,
    settledBoletosPath: d.settledBoletosPath,
    listingPageSize: d.listingPageSize,
    paymentQueryPaths: { ...d.paymentQueryPaths },
    callTimeoutMs: d.callTimeoutMs,
    queriesPerSecond: d.queriesPerSecond,
    registrationCallsPerSecond: d.registrationCallsPerSecond,
  };
}

/**
 * The settings without what equals its default: what a function's environment carries (Lambda
 * takes 4 KB for all of them). {@link expandBankConnection} fills them back. Custom resource
 * properties keep every field: a change to them would register again at the bank.
 */
export function compactBankConnection(settings: BankConnectionSettings): Partial<BankConnectionSettings> {
  const defaults = defaultsFor(settings.baseUrl, settings.registrationBaseUrl) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(settings).filter(
      ([key, value]) => !(key in defaults) || JSON.stringify(value) !== JSON.stringify(defaults[key]),
    ),
  );
}

/** The settings {@link compactBankConnection} left defaults out of, every field filled (settings with every field stay as they are). */
export function expandBankConnection(settings: Partial<BankConnectionSettings>): Partial<BankConnectionSettings> {
  if (typeof settings.baseUrl !== 'string' || typeof settings.registrationBaseUrl !== 'string') return settings;
  return { ...defaultsFor(settings.baseUrl, settings.registrationBaseUrl), ...settings };
}

/**
 * The bank credentials secret's JSON. Collection calls need `apiKey` and `password`; payments
 * calls need `clientId` and `clientSecret`, and usually `clientCertificate` and `clientKey`.
 */
export interface BankCredentials {
  /** `x-api-key` of the collection API. */
  readonly apiKey?: string;
  /** Password-grant username. Defaults to the beneficiary code followed by the cooperative code. */
  readonly username?: string;
  /** The access code the account holder generates in internet banking. */
  readonly password?: string;
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** PEM client certificate for the payments API's mutual TLS. */
  readonly clientCertificate?: string;
  /** PEM private key of `clientCertificate`. */
  readonly clientKey?: string;
  /** Extra PEM CA certificates to trust for the bank's server certificate (a simulator, a proxy). */
  readonly caCertificates?: string;
}

/** The fields of {@link BankCredentials}. */
export const CREDENTIAL_FIELDS = [
  'apiKey',
  'username',
  'password',
  'clientId',
  'clientSecret',
  'clientCertificate',
  'clientKey',
  'caCertificates',
] as const;
