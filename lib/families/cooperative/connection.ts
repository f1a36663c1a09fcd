import { Duration, Stack, Token } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import {
  ACCOUNT_FIELD_PATTERN,
  ACCOUNT_FIELDS,
  BANK_CONNECTION_ENV,
  type BankAccount,
  type BankConnectionSettings,
  BankConnectionDefaults,
  ClientCredentialsAuth,
  compactBankConnection,
  PAYMENT_TYPES,
  scopeSettings,
  ZuluTimestamps,
} from '../../../contracts/bank-connection';
import { checkSecretNamed, isHttpsUrl, isWholeNumberIn, type PropsValidation } from '../../core/props-validation';
import { functionUrlProps } from '../../core/function-url';

/**
 * The scopes of the token each kind of payment query uses. A kind left out keeps its default; kinds
 * with the same scopes share one token.
 */
export interface PaymentQueryScopes {
  /**
   * Scopes of the Pix payment query's token.
   * @default ['payments.pix.consultar']
   */
  readonly pix?: string[];
  /**
   * Scopes of the paid-boleto query's token.
   * @default ['payments.boleto.consultar']
   */
  readonly boleto?: string[];
  /**
   * Scopes of the tax payment query's token.
   * @default ['payments.tributos.consultar']
   */
  readonly tributos?: string[];
}

/**
 * How to reach the cooperative bank's collection and payments APIs (the first API family): base
 * URLs, token endpoints and scopes, the account, and the Secrets Manager secret with the
 * credentials. Shared by every construct of the library that calls the bank. There is no sandbox,
 * so the URLs are required and there is no default host.
 */
export interface CooperativeConnectionProps {
  /** Base URL of the collection API (`base_url`), such as `https://api.bank.example`. HTTPS only. */
  readonly baseUrl: string;
  /**
   * Base URL of the payments API (the bank's `registration_base_url`), such as
   * `https://api.bank.example/pagamentos`: the callback's registration and every payment query
   * (Pix, boleto, tax) hang off it, whatever its name says. HTTPS only.
   */
  readonly registrationBaseUrl: string;
  /**
   * Secret with the bank credentials as JSON: `apiKey`, `password` (and optionally `username`)
   * for the collection API; `clientId`, `clientSecret`, `clientCertificate` and `clientKey` (PEM)
   * for the payments API; optionally `caCertificates` (PEM). See cdk-bank-webhooks/docs/usage.md.
   */
  readonly credentials: secretsmanager.ISecret;
  /** The account calls are made for. */
  readonly account: BankAccount;
  /**
   * Whether this bank is a simulator deployed beside the stack (`BankSandbox.connection` sets it).
   * A NON_PRODUCTION receiver then registers, sweeps, watches and follows Track Payment against
   * it as production does against the real bank; a PRODUCTION receiver refuses a simulated bank.
   * @default false
   */
  readonly simulated?: boolean;
  /**
   * Collection API token endpoint (password grant).
   * @default `${baseUrl}/auth/openapi/token`
   */
  readonly collectionTokenUrl?: string;
  /**
   * Payments API token endpoint (client_credentials over mutual TLS).
   * @default `/thirdparty/auth/token` on the host of registrationBaseUrl
   */
  readonly paymentsTokenUrl?: string;
  /**
   * Scope of the collection token.
   * @default 'cobranca'
   */
  readonly collectionScope?: string;
  /**
   * Scopes of the payments token the callback registration (and its drift check) uses.
   * @default ['payments.pix.pagar', 'payments.boleto.pagar', 'payments.tributos.pagar']
   */
  readonly paymentsScopes?: string[];
  /**
   * Scopes of the payment queries' tokens, per kind: public payment clients ask each kind's
   * `consultar` scope for queries (the `pagar` ones are for paying). To query with the
   * registration's `pagar` scopes, as earlier releases did, give every kind the `paymentsScopes` (cdk-bank-webhooks/docs/changes.md).
   * @default each kind its `consultar` scope (`payments.<kind>.consultar`), one token per kind
   */
  readonly paymentQueryScopes?: PaymentQueryScopes;
  /**
   * How to read a timestamp the bank writes with a Z (the boleto query's settlement date): a true
   * UTC instant, or the bank's local time with a Z. The manual does not say; a settlement's bank
   * day follows this reading, and the SettlementDayMismatches metric counts settlements the
   * bank's listing puts on another day (cdk-bank-webhooks/docs/bank-api.md).
   * @default ZuluTimestamps.UTC
   */
  readonly zuluTimestamps?: ZuluTimestamps;
  /**
   * How the payments token request presents the client id and secret.
   * @default ClientCredentialsAuth.REQUEST_BODY
   */
  readonly clientCredentialsAuth?: ClientCredentialsAuth;
  /**
   * Boleto query path under baseUrl.
   * @default '/cobranca/boleto/v1/boletos'
   */
  readonly boletoQueryPath?: string;
  /**
   * Settled boletos by day (the reconciliation sweep's listing) under baseUrl.
   * @default '/cobranca/boleto/v1/boletos/liquidados/dia'
   */
  readonly settledBoletosPath?: string;
  /**
   * Items in a full page of the settled-boletos listing. When the bank leaves `hasNext` out, a page
   * this full is read as "maybe more" and the next page is asked for. From 1 to 10,000.
   * @default 500 (the manual's)
   */
  readonly listingPageSize?: number;
  /**
   * Pix payment query path under registrationBaseUrl; `{id}` stands for the transaction id.
   * @default '/v1/pagamentos/pix/{id}'
   */
  readonly pixQueryPath?: string;
  /**
   * Paid-boleto query path under registrationBaseUrl, with `{id}`.
   * @default '/v1/pagamentos/boleto/{id}'
   */
  readonly boletoPaymentQueryPath?: string;
  /**
   * Tax payment query path under registrationBaseUrl, with `{id}`.
   * @default '/v1/pagamentos/tributos/{id}'
   */
  readonly taxPaymentQueryPath?: string;
  /**
   * Deadline of one HTTP call to the bank (retries make further calls within the function's time).
   * @default Duration.seconds(5)
   */
  readonly callTimeout?: Duration;
  /**
   * Queries per second the bank allows these credentials (boleto and payment queries, and the
   * reconciliation sweep's listings). Every processor environment takes its calls from one
   * schedule shared through the table, so together they keep this rate whatever their number.
   * Lower it when other systems use the same credentials.
   * @default 10 (the bank's known query limit)
   */
  readonly queriesPerSecond?: number;
  /**
   * Creations (POST, such as a new boleto webhook contract) per second the registration custom
   * resources make; their other calls (reads, updates, tokens) go at `queriesPerSecond`.
   * @default 2 (the bank's known limit for creations)
   */
  readonly registrationCallsPerSecond?: number;
}

/**
 * The name {@link CooperativeConnectionProps} had before the library held more than one API
 * family: the same props.
 *
 * @deprecated use `CooperativeConnectionProps`; this name goes in the next major version.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- jsii has no type aliases: a deprecated name is an empty sub-interface
export interface BankConnectionProps extends CooperativeConnectionProps {}

const trimSlash = (url: string): string => (Token.isUnresolved(url) ? url : url.replace(/\/+$/, ''));

/** Checks a CooperativeConnectionProps, recording problems under `prefix` (such as `bank`). */
export function validateBankConnection(
  v: PropsValidation,
  props: CooperativeConnectionProps | undefined,
  prefix: string,
): void {
  if (!props) {
    v.check(
      false,
      prefix,
      'is required: the bank connection (baseUrl, registrationBaseUrl, credentials, account) every notification is verified through',
    );
    return;
  }
  for (const key of ['baseUrl', 'registrationBaseUrl', 'collectionTokenUrl', 'paymentsTokenUrl'] as const) {
    const value = props[key];
    if (value === undefined || Token.isUnresolved(value)) continue;
    v.check(
      isHttpsUrl(value),
      `${prefix}.${key}`,
      `must be an https URL without query or fragment (the bank is only reached over HTTPS, and there is no sandbox default), got "${value}"`,
    );
  }
  if (props.paymentsTokenUrl === undefined && Token.isUnresolved(props.registrationBaseUrl)) {
    v.check(
      false,
      `${prefix}.paymentsTokenUrl`,
      'is required when registrationBaseUrl is a deploy-time value (its host cannot be read at synth)',
    );
  }
  if (!props.account) {
    v.check(false, `${prefix}.account`, `is required (${ACCOUNT_FIELDS.join(', ')})`);
  } else {
    for (const key of ACCOUNT_FIELDS) {
      const value = props.account[key];
      if (value !== undefined && Token.isUnresolved(value)) continue;
      v.check(
        typeof value === 'string' && ACCOUNT_FIELD_PATTERN.test(value),
        `${prefix}.account.${key}`,
        `must be 1 to 20 letters, digits or hyphens, got ${JSON.stringify(value)}`,
      );
    }
  }
  v.check(
    !!props.credentials,
    `${prefix}.credentials`,
    'is required: the Secrets Manager secret holding the bank credentials (JSON, see cdk-bank-webhooks/docs/usage.md)',
  );
  checkSecretNamed(v, props.credentials, `${prefix}.credentials`);
  for (const key of [
    'boletoQueryPath',
    'settledBoletosPath',
    'pixQueryPath',
    'boletoPaymentQueryPath',
    'taxPaymentQueryPath',
  ] as const) {
    const value = props[key];
    if (value === undefined || Token.isUnresolved(value)) continue;
    v.check(
      value.startsWith('/') && !/[?#\s]/.test(value),
      `${prefix}.${key}`,
      `must be a path starting with "/", got "${value}"`,
    );
    if (key !== 'boletoQueryPath' && key !== 'settledBoletosPath')
      v.check(
        value.includes('{id}'),
        `${prefix}.${key}`,
        `must contain {id} where the transaction id goes, got "${value}"`,
      );
  }
  const scopesValid = (scopes: string[]) =>
    scopes.length > 0 && scopes.every((s) => Token.isUnresolved(s) || /^\S+$/.test(s));
  if (props.paymentsScopes)
    v.check(scopesValid(props.paymentsScopes), `${prefix}.paymentsScopes`, 'must be one or more scopes without spaces');
  for (const kind of PAYMENT_TYPES) {
    const scopes = props.paymentQueryScopes?.[kind];
    if (scopes)
      v.check(scopesValid(scopes), `${prefix}.paymentQueryScopes.${kind}`, 'must be one or more scopes without spaces');
  }
  if (props.zuluTimestamps !== undefined) {
    v.check(
      Object.values(ZuluTimestamps).includes(props.zuluTimestamps),
      `${prefix}.zuluTimestamps`,
      `must be one of ${Object.values(ZuluTimestamps).join(', ')} (ZuluTimestamps), got ${JSON.stringify(props.zuluTimestamps)}`,
    );
  }
  if (props.callTimeout) {
    v.checkNumber(
      props.callTimeout.toMilliseconds(),
      `${prefix}.callTimeout`,
      isWholeNumberIn(500, 30_000),
      'must be from 500 ms to 30 seconds (milliseconds)',
    );
  }
  v.checkNumber(
    props.listingPageSize,
    `${prefix}.listingPageSize`,
    isWholeNumberIn(1, 10_000),
    'must be a whole number of items from 1 to 10000',
  );
  for (const key of ['queriesPerSecond', 'registrationCallsPerSecond'] as const) {
    v.checkNumber(
      props[key],
      `${prefix}.${key}`,
      (n) => n >= 0.1 && n <= 1000,
      'must be from 0.1 to 1000 calls per second (what the bank allows these credentials)',
    );
  }
}

/** The settings a handler gets, with every default filled in. */
export function bankConnectionSettings(props: CooperativeConnectionProps): BankConnectionSettings {
  const baseUrl = trimSlash(props.baseUrl);
  const registrationBaseUrl = trimSlash(props.registrationBaseUrl);
  const d = BankConnectionDefaults;
  return {
    baseUrl,
    registrationBaseUrl,
    collectionTokenUrl: props.collectionTokenUrl ?? baseUrl + d.collectionTokenPath,
    paymentsTokenUrl: props.paymentsTokenUrl ?? new URL(d.paymentsTokenPath, registrationBaseUrl).toString(),
    collectionScope: props.collectionScope ?? d.collectionScope,
    paymentsScope: (props.paymentsScopes ?? d.paymentsScopes).join(' '),
    paymentQueryScopes: scopeSettings(props.paymentQueryScopes),
    zuluTimestamps: props.zuluTimestamps ?? d.zuluTimestamps,
    paymentsClientAuth: props.clientCredentialsAuth ?? d.paymentsClientAuth,
    account: { ...props.account },
    credentialsSecretArn: props.credentials.secretArn,
    boletoQueryPath: props.boletoQueryPath ?? d.boletoQueryPath,
    settledBoletosPath: props.settledBoletosPath ?? d.settledBoletosPath,
    listingPageSize: props.listingPageSize ?? d.listingPageSize,
    paymentQueryPaths: {
      pix: props.pixQueryPath ?? d.paymentQueryPaths.pix,
      boleto: props.boletoPaymentQueryPath ?? d.paymentQueryPaths.boleto,
      tributos: props.taxPaymentQueryPath ?? d.paymentQueryPaths.tributos,
    },
    callTimeoutMs: (props.callTimeout ?? Duration.millis(d.callTimeoutMs)).toMilliseconds(),
    queriesPerSecond: props.queriesPerSecond ?? d.queriesPerSecond,
    registrationCallsPerSecond: props.registrationCallsPerSecond ?? d.registrationCallsPerSecond,
  };
}

/** A Lambda function URL's host (`<id>.lambda-url.<region>.on.aws`): a BankSandbox, never the real bank. */

/**
 * Checks that a PRODUCTION receiver's bank is the real one by what it is, whatever flag is spread
 * over it: a Lambda function URL is a BankSandbox, never the bank.
 */
export function checkRealBank(
  v: PropsValidation,
  scope: Construct,
  props: CooperativeConnectionProps,
  prefix: string,
): void {
  const urls = {
    baseUrl: props.baseUrl,
    registrationBaseUrl: props.registrationBaseUrl,
    collectionTokenUrl: props.collectionTokenUrl,
    paymentsTokenUrl: props.paymentsTokenUrl,
  };
  for (const prop of functionUrlProps(scope, urls)) {
    v.check(
      false,
      `${prefix}.${prop}`,
      "points at a Lambda function URL (a BankSandbox's, or a *.lambda-url.<region>.on.aws host), which is never the real bank: a PRODUCTION receiver registers, sweeps and publishes verified events against the real bank only. Use the sandbox (bank: sandbox.connection) from a NON_PRODUCTION stack, or give this receiver the real bank's URLs",
    );
  }
}

/** The environment variable that hands the connection settings to a handler, and read access to the credentials. */
export function bankConnectionEnvironment(
  scope: Construct,
  props: CooperativeConnectionProps,
  grantee: iam.IGrantable,
): Record<string, string> {
  props.credentials.grantRead(grantee);
  // Defaults left out: the handler fills them (Lambda takes 4 KB of environment in all).
  return { [BANK_CONNECTION_ENV]: Stack.of(scope).toJsonString(compactBankConnection(bankConnectionSettings(props))) };
}
