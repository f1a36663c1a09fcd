/**
 * How the handlers reach the bank: the settings the `BankConnectionProps` of the constructs
 * resolve to, passed to a handler as one JSON environment variable. The construct (lib/) and
 * the handlers (lambda/) both import this module, so the compiler holds the two sides together.
 * Nothing here is secret: the credentials travel as a Secrets Manager ARN.
 */

/** Environment variable holding the JSON of {@link BankConnectionSettings}. */
export const BANK_CONNECTION_ENV = 'BANK_WEBHOOKS_BANK_CONNECTION';

/** The payment kinds of the payments API, as in its query paths (`/v1/pagamentos/<kind>/{id}`). */
export const PAYMENT_TYPES = ['pix', 'boleto', 'tributos'] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];

/** How the payments token request presents `client_id` and `client_secret`. */
export type ClientAuthMethod = 'body' | 'basic';

/** The account the calls act for: the headers of 5.1 and the collection API. */
export interface BankAccountSettings {
  /** Cooperative code: `x-cooperativa` and the collection API's `cooperativa` header. */
  readonly cooperativa: string;
  /** Branch code: the collection API's `posto` header. */
  readonly posto: string;
  /** Account number: `x-conta`. */
  readonly conta: string;
  /** Account holder's CPF/CNPJ: `x-documento`. */
  readonly documento: string;
  /** Beneficiary code of boleto collection (`codigoBeneficiario`). */
  readonly codigoBeneficiario: string;
}

export interface BankConnectionSettings {
  /** Collection API base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** Payments API base URL (`registration_base_url`), without a trailing slash. */
  readonly registrationBaseUrl: string;
  readonly collectionTokenUrl: string;
  readonly paymentsTokenUrl: string;
  readonly collectionScope: string;
  /** Space-separated scopes requested for the payments token. */
  readonly paymentsScope: string;
  readonly paymentsClientAuth: ClientAuthMethod;
  readonly account: BankAccountSettings;
  /** ARN of the secret holding the credentials (JSON, see {@link BankCredentials}). */
  readonly credentialsSecretArn: string;
  /** Boleto query path under `baseUrl`. */
  readonly boletoQueryPath: string;
  /** Settled boletos by day (`liquidados/dia`) under `baseUrl`, read by the reconciliation sweep. */
  readonly settledBoletosPath: string;
  /** Payment query paths under `registrationBaseUrl`, with `{id}` for the transaction id. */
  readonly paymentQueryPaths: Readonly<Record<PaymentType, string>>;
  /** Deadline of one HTTP call, in milliseconds. */
  readonly callTimeoutMs: number;
  /** Calls per second the bank allows these credentials on its query APIs, shared by every function that queries. */
  readonly queriesPerSecond: number;
  /** Creations (POST) per second the registration handler makes; its other calls go at queriesPerSecond. */
  readonly registrationCallsPerSecond: number;
}

/** The fields of {@link BankAccountSettings}. */
const ACCOUNT_FIELDS = ['cooperativa', 'posto', 'conta', 'documento', 'codigoBeneficiario'] as const;

/** Defaults of BANK-NOTES.md, relative to the base URLs. */
export const BankConnectionDefaults = {
  collectionTokenPath: '/auth/openapi/token',
  /** Resolved against the payments host (`{host}/thirdparty/auth/token`). */
  paymentsTokenPath: '/thirdparty/auth/token',
  collectionScope: 'cobranca',
  paymentsScope: 'payments.pix.pagar payments.boleto.pagar payments.tributos.pagar',
  boletoQueryPath: '/cobranca/boleto/v1/boletos',
  settledBoletosPath: '/cobranca/boleto/v1/boletos/liquidados/dia',
  paymentQueryPaths: {
    pix: '/v1/pagamentos/pix/{id}',
    boleto: '/v1/pagamentos/boleto/{id}',
    tributos: '/v1/pagamentos/tributos/{id}',
  },
  callTimeoutMs: 5_000,
  /** The bank's known query limit (BANK-NOTES.md: 10/s for queries on a sibling API). */
  queriesPerSecond: 10,
  /** The bank's known limit for creations (2/s): registrations create and change webhooks. */
  registrationCallsPerSecond: 2,
} as const;

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

const CREDENTIAL_FIELDS = ['apiKey', 'username', 'password', 'clientId', 'clientSecret', 'clientCertificate', 'clientKey', 'caCertificates'] as const;

/**
 * Reads the credentials secret's value. The error names fields, never values, so it can be
 * logged and shown.
 */
export function parseBankCredentials(secretString: string | undefined, secretArn: string): BankCredentials {
  let parsed: unknown;
  try {
    parsed = JSON.parse(secretString ?? '');
  } catch {
    throw new Error(`Bank credentials secret ${secretArn} is not JSON: store an object such as {"apiKey": "...", "password": "...", "clientId": "...", "clientSecret": "..."} (see the README)`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`Bank credentials secret ${secretArn} must hold a JSON object (see the README for its fields)`);
  }
  const record = parsed as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => !(CREDENTIAL_FIELDS as readonly string[]).includes(key));
  const notStrings = CREDENTIAL_FIELDS.filter((key) => record[key] !== undefined && typeof record[key] !== 'string');
  const problems = [
    ...(unknown.length ? [`unknown field(s) ${unknown.join(', ')} (known: ${CREDENTIAL_FIELDS.join(', ')})`] : []),
    ...(notStrings.length ? [`field(s) ${notStrings.join(', ')} must be strings`] : []),
    ...(!!record.clientCertificate !== !!record.clientKey ? ['clientCertificate and clientKey go together: set both or neither'] : []),
  ];
  if (problems.length) throw new Error(`Bank credentials secret ${secretArn} is invalid: ${problems.join('; ')}`);
  return record;
}

/** Reads and checks the connection settings a construct put in the environment. */
export function readBankConnection(env: NodeJS.ProcessEnv): BankConnectionSettings {
  return parseBankConnection(env[BANK_CONNECTION_ENV], BANK_CONNECTION_ENV);
}

/**
 * Reads and checks the JSON of {@link BankConnectionSettings} a construct wrote, filling the
 * defaults of optional settings. `where` names its place (an environment variable, a custom
 * resource property) in errors.
 */
export function parseBankConnection(raw: string | undefined, where: string): BankConnectionSettings {
  const fix = '(the construct sets it; redeploy rather than editing it)';
  if (!raw) throw new Error(`${where} is not set ${fix}`);
  let settings: BankConnectionSettings;
  try {
    settings = JSON.parse(raw) as BankConnectionSettings;
  } catch {
    throw new Error(`${where} is not JSON ${fix}`);
  }
  if (!settings || typeof settings !== 'object') throw new Error(`${where} is not a JSON object ${fix}`);
  const strings = ['baseUrl', 'registrationBaseUrl', 'collectionTokenUrl', 'paymentsTokenUrl', 'credentialsSecretArn', 'boletoQueryPath'] as const;
  const objects = ['account', 'paymentQueryPaths'] as const;
  const missing = [
    ...strings.filter((key) => typeof settings[key] !== 'string' || !settings[key]),
    ...objects.filter((key) => !settings[key] || typeof settings[key] !== 'object'),
  ];
  if (missing.length) throw new Error(`${where} lacks ${missing.join(', ')} ${fix}`);
  // Each account field goes into a header or a query: a malformed one would be retried at the bank forever.
  const badAccount = ACCOUNT_FIELDS.filter((key) => { const value: unknown = settings.account[key]; return typeof value !== 'string' || !/^[0-9A-Za-z-]{1,20}$/.test(value); });
  if (badAccount.length) {
    throw new Error(`${where}: ${badAccount.map((key) => `account.${key} ${JSON.stringify(settings.account[key]) ?? 'undefined'}`).join(', ')} must be 1 to 20 letters, digits or hyphens ${fix}`);
  }
  return {
    ...settings,
    collectionScope: settings.collectionScope ?? BankConnectionDefaults.collectionScope,
    settledBoletosPath: settings.settledBoletosPath || BankConnectionDefaults.settledBoletosPath,
    paymentsScope: settings.paymentsScope ?? BankConnectionDefaults.paymentsScope,
    paymentsClientAuth: settings.paymentsClientAuth === 'basic' ? 'basic' : 'body',
    callTimeoutMs: settings.callTimeoutMs > 0 ? settings.callTimeoutMs : BankConnectionDefaults.callTimeoutMs,
    queriesPerSecond: settings.queriesPerSecond > 0 ? settings.queriesPerSecond : BankConnectionDefaults.queriesPerSecond,
    registrationCallsPerSecond: settings.registrationCallsPerSecond > 0 ? settings.registrationCallsPerSecond : BankConnectionDefaults.registrationCallsPerSecond,
  };
}
