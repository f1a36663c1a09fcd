/**
 * How the handlers reach a provider's standard Pix API (cdk-bank-webhooks/docs/pix.md): the settings a Pix
 * connection resolves to, and the credentials secret's format. Shared by the construct (lib/) and
 * the handlers (lambda/), as bank-connection.ts is. Paths and scopes are carried only where they
 * differ from the defaults here, so a function's environment holds little for them. Nothing here
 * is secret: the credentials travel as a Secrets Manager ARN.
 */

/** Environment variable holding the JSON of {@link PixConnectionSettings}. */
export const PIX_CONNECTION_ENV = 'BANK_WEBHOOKS_PIX_CONNECTION';

/** The Pix API's operations the library calls, each with its own path (and version) and scope. */
export enum PixOperation {
  /** `GET /pix/{e2eid}`: a Pix received, confirmed under our credentials. */
  PIX_QUERY = 'pixQuery',
  /** `GET /pix?inicio&fim`: the Pix received in a window (the daily sweep). */
  PIX_LISTING = 'pixListing',
  /** `GET /pix/{e2eid}/devolucao/{id}`: one refund. */
  REFUND_QUERY = 'refundQuery',
  /** `GET /cob/{txid}`: an immediate charge. */
  COB_QUERY = 'cobQuery',
  /** `GET /cobv/{txid}`: a charge with a due date. */
  COBV_QUERY = 'cobvQuery',
  /** `GET /cobr/{txid}`: a recurring charge (Pix Automático). */
  COBR_QUERY = 'cobrQuery',
  /** `GET /cob?inicio&fim&status`: the immediate charges created in a window (bulk verification at a peak). */
  COB_LISTING = 'cobListing',
  /** `GET /cobv?inicio&fim&status`: the charges with a due date created in a window. */
  COBV_LISTING = 'cobvListing',
  /** `PUT /webhook/{chave}`. */
  WEBHOOK_PUT = 'webhookPut',
  /** `GET /webhook/{chave}`. */
  WEBHOOK_GET = 'webhookGet',
  /** `DELETE /webhook/{chave}`. */
  WEBHOOK_DELETE = 'webhookDelete',
  /** `GET /rec/{idRec}`: a recurrence (Pix Automático). */
  REC_QUERY = 'recQuery',
  /** `GET /rec?inicio&fim`: the recurrences created in a window. */
  REC_LISTING = 'recListing',
  /** `GET /cobr?inicio&fim`: the recurring charges created in a window. */
  COBR_LISTING = 'cobrListing',
  /** `PUT /webhookrec`: the account's webhook of recurrences. */
  WEBHOOKREC_PUT = 'webhookRecPut',
  /** `GET /webhookrec`. */
  WEBHOOKREC_GET = 'webhookRecGet',
  /** `DELETE /webhookrec`. */
  WEBHOOKREC_DELETE = 'webhookRecDelete',
  /** `PUT /webhookcobr`: the account's webhook of recurring charges. */
  WEBHOOKCOBR_PUT = 'webhookCobrPut',
  /** `GET /webhookcobr`. */
  WEBHOOKCOBR_GET = 'webhookCobrGet',
  /** `DELETE /webhookcobr`. */
  WEBHOOKCOBR_DELETE = 'webhookCobrDelete',
}

/** Where the token request carries `grant_type` (and `scope`). */
export enum PixGrantTypePlacement {
  /** The form body (the standard; this bank refuses it in the query string since 2026-06). */
  BODY = 'body',
  /** The query string (what one public client of this bank still does). */
  QUERY = 'query',
}

/** How the token request's HTTP Basic header writes the client id and secret. */
export enum PixBasicCredentials {
  /** Form-encoded, then joined by a colon (RFC 6749 section 2.3.1). */
  FORM_ENCODED = 'formEncoded',
  /** As they are, joined by a colon (what several providers' public clients send). */
  RAW = 'raw',
}

/** Each operation's path under the Pix API's base URL, with its version: `{e2eid}`, `{id}`, `{txid}`, `{chave}`, `{idRec}` are filled in. */
export const DEFAULT_PIX_PATHS: Readonly<Record<PixOperation, string>> = {
  [PixOperation.PIX_QUERY]: '/api/v2/pix/{e2eid}',
  [PixOperation.PIX_LISTING]: '/api/v2/pix',
  [PixOperation.REFUND_QUERY]: '/api/v2/pix/{e2eid}/devolucao/{id}',
  // This bank reads charges under v3 (cdk-bank-webhooks/docs/pix.md).
  [PixOperation.COB_QUERY]: '/api/v3/cob/{txid}',
  [PixOperation.COBV_QUERY]: '/api/v2/cobv/{txid}',
  [PixOperation.COBR_QUERY]: '/api/v2/cobr/{txid}',
  [PixOperation.COB_LISTING]: '/api/v3/cob',
  [PixOperation.COBV_LISTING]: '/api/v2/cobv',
  [PixOperation.WEBHOOK_PUT]: '/api/v2/webhook/{chave}',
  [PixOperation.WEBHOOK_GET]: '/api/v2/webhook/{chave}',
  [PixOperation.WEBHOOK_DELETE]: '/api/v2/webhook/{chave}',
  [PixOperation.REC_QUERY]: '/api/v2/rec/{idRec}',
  [PixOperation.REC_LISTING]: '/api/v2/rec',
  [PixOperation.COBR_LISTING]: '/api/v2/cobr',
  [PixOperation.WEBHOOKREC_PUT]: '/api/v2/webhookrec',
  [PixOperation.WEBHOOKREC_GET]: '/api/v2/webhookrec',
  [PixOperation.WEBHOOKREC_DELETE]: '/api/v2/webhookrec',
  [PixOperation.WEBHOOKCOBR_PUT]: '/api/v2/webhookcobr',
  [PixOperation.WEBHOOKCOBR_GET]: '/api/v2/webhookcobr',
  [PixOperation.WEBHOOKCOBR_DELETE]: '/api/v2/webhookcobr',
};

/** Each operation's scope, as the standard gives them (space-separated when several). */
export const DEFAULT_PIX_SCOPES: Readonly<Record<PixOperation, string>> = {
  [PixOperation.PIX_QUERY]: 'pix.read',
  [PixOperation.PIX_LISTING]: 'pix.read',
  [PixOperation.REFUND_QUERY]: 'pix.read',
  [PixOperation.COB_QUERY]: 'cob.read',
  [PixOperation.COBV_QUERY]: 'cobv.read',
  [PixOperation.COBR_QUERY]: 'cobr.read',
  [PixOperation.COB_LISTING]: 'cob.read',
  [PixOperation.COBV_LISTING]: 'cobv.read',
  [PixOperation.WEBHOOK_PUT]: 'webhook.write',
  [PixOperation.WEBHOOK_GET]: 'webhook.read',
  [PixOperation.WEBHOOK_DELETE]: 'webhook.write',
  [PixOperation.REC_QUERY]: 'rec.read',
  [PixOperation.REC_LISTING]: 'rec.read',
  [PixOperation.COBR_LISTING]: 'cobr.read',
  [PixOperation.WEBHOOKREC_PUT]: 'webhookrec.write',
  [PixOperation.WEBHOOKREC_GET]: 'webhookrec.read',
  [PixOperation.WEBHOOKREC_DELETE]: 'webhookrec.write',
  [PixOperation.WEBHOOKCOBR_PUT]: 'webhookcobr.write',
  [PixOperation.WEBHOOKCOBR_GET]: 'webhookcobr.read',
  [PixOperation.WEBHOOKCOBR_DELETE]: 'webhookcobr.write',
};

/** The defaults of a Pix connection (cdk-bank-webhooks/docs/pix.md). */
export const PixConnectionDefaults = {
  grantType: PixGrantTypePlacement.BODY,
  basicCredentials: PixBasicCredentials.FORM_ENCODED,
  callTimeoutMs: 5_000,
  /** Items a page of `GET /pix` is asked for: the standard's most. */
  listingPageSize: 1000,
} as const;

export interface PixConnectionSettings {
  /** The Pix API's origin, without a trailing slash (such as `https://api-pix.sicredi.com.br`). */
  readonly baseUrl: string;
  readonly tokenUrl: string;
  /** ARN of the secret holding the Pix credentials (JSON, see {@link PixCredentials}). */
  readonly credentialsSecretArn: string;
  /** @default PixGrantTypePlacement.BODY */
  readonly grantType?: PixGrantTypePlacement;
  /** @default PixBasicCredentials.FORM_ENCODED */
  readonly basicCredentials?: PixBasicCredentials;
  /** Paths that differ from {@link DEFAULT_PIX_PATHS}. @default none */
  readonly paths?: Readonly<Partial<Record<PixOperation, string>>>;
  /** Scopes that differ from {@link DEFAULT_PIX_SCOPES}. @default none */
  readonly scopes?: Readonly<Partial<Record<PixOperation, string>>>;
  /** @default 5000 */
  readonly callTimeoutMs?: number;
  /**
   * A BankSandbox's Pix API: its function URL asks for no client certificate, so the credentials
   * may hold none (a real provider's always need one). @default false
   */
  readonly simulated?: boolean;
}

/**
 * The Pix credentials secret (JSON): the Pix application's client id and secret, its client
 * certificate and key (PEM: the token endpoint and every call are over mutual TLS), and extra CAs
 * to trust besides the public roots (PEM; this bank's homologation host serves a public CA's
 * certificate, so the roots stay).
 */
export interface PixCredentials {
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly clientCertificate?: string;
  readonly clientKey?: string;
  readonly caCertificates?: string;
}

/** The path of `operation` under the settings. */
export const pixPath = (settings: PixConnectionSettings, operation: PixOperation): string =>
  settings.paths?.[operation] ?? DEFAULT_PIX_PATHS[operation];
/** The scope of `operation` under the settings. */
export const pixScope = (settings: PixConnectionSettings, operation: PixOperation): string =>
  settings.scopes?.[operation] ?? DEFAULT_PIX_SCOPES[operation];
