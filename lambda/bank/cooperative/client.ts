import {
  type BankConnectionSettings,
  type BankCredentials,
  ClientCredentialsAuth,
  PAYMENT_ID_PATTERN,
  PAYMENT_ID_RULE,
  type PaymentType,
} from '../../../contracts/bank-connection';
import { answerObject, nossoNumeroOf, type SettledBoletosPage, settledPage } from './answers';
import { apiAnswer, tokenAnswer } from '../base/answers';
import {
  type ClientCallOptions,
  clientSender,
  newTransport,
  type OutgoingRequest,
  type PacedSender,
} from '../base/paced-sender';
import { type CachedToken, TokenCache } from '../base/token-cache';
import { BankApiError } from '../errors';
import { type BankTransport, type HttpResponse, parseAnswer, type TlsMaterial } from '../http';
import { type BankPacer, CallKind } from '../pacing';
import { secrets } from '../../shared/redaction';

export type { RetryInfo } from '../base/paced-sender';

/** The bank's two APIs, each with its own token flow (cdk-bank-webhooks/docs/bank-api.md). */
export type BankApi = 'collection' | 'payments';

export interface CooperativeClientOptions extends ClientCallOptions {
  readonly settings: BankConnectionSettings;
  /** Loads the bank credentials (cached by the caller, see {@link credentialsFromSecret}). */
  readonly credentials: () => Promise<BankCredentials>;
}

export interface BankCall {
  /** Names the call in errors and logs, such as "boleto query". */
  readonly operation: string;
  readonly api: BankApi;
  readonly method: string;
  readonly url: string;
  readonly body?: unknown;
  /** Epoch milliseconds by which the call, retries included, must be over. */
  readonly deadline: number;
  /**
   * Scopes of the payments token to call with (space-separated); each set has its own token.
   * @default the connection's paymentsScope (the registration's)
   */
  readonly scope?: string;
}

export interface BankAnswer {
  readonly status: number;
  /** The parsed JSON answer, or null for an empty one. */
  readonly body: unknown;
}

/** What clients made by {@link CooperativeClient.withPacer} share: tokens, token requests in flight, connections. */
interface SharedClientState {
  readonly tokens: TokenCache;
  readonly transports: Map<BankApi, { key: string; transport: BankTransport }>;
}

function formBody(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/**
 * The bank API client shared by the handlers: both token flows (collection password grant with
 * `x-api-key`; payments `client_credentials` over mutual TLS), tokens cached until shortly before
 * they expire and renewed once on a 401, a timeout per call, and retries with exponential
 * backoff and jitter on network errors, 429 and 5xx, honouring `Retry-After`, inside the
 * caller's deadline. Every failure is a {@link BankApiError} with the bank's own message.
 * Credentials and tokens never appear in its errors.
 */
export class CooperativeClient {
  private readonly now: () => number;
  private readonly sender: PacedSender;
  /** Cached tokens: the collection token, and a payments token per scope set. */
  private readonly tokens: TokenCache;
  private readonly transports: Map<BankApi, { key: string; transport: BankTransport }>;

  constructor(
    private readonly options: CooperativeClientOptions,
    shared?: SharedClientState,
  ) {
    this.now = options.now ?? Date.now;
    this.tokens = shared?.tokens ?? new TokenCache(this.now);
    this.transports = shared?.transports ?? new Map<BankApi, { key: string; transport: BankTransport }>();
    this.sender = clientSender(options, {
      callTimeoutMs: options.settings.callTimeoutMs,
      ratePerSecond: options.settings.queriesPerSecond,
      name: 'bank calls',
    });
  }

  get settings(): BankConnectionSettings {
    return this.options.settings;
  }

  /** This client paced by `pacer` instead: its tokens and connections are shared (no token is asked twice). */
  withPacer(pacer: BankPacer): CooperativeClient {
    return new CooperativeClient({ ...this.options, pacer }, { tokens: this.tokens, transports: this.transports });
  }

  /**
   * The boleto query (the collection API): the manual's flat answer, or the answer's `resultado`
   * when it is wrapped. A nossoNumero of fewer than nine digits is asked zero-padded, as the bank
   * takes only nine.
   */
  async queryBoleto(
    codigoBeneficiario: string,
    nossoNumero: string,
    deadline: number,
  ): Promise<Record<string, unknown>> {
    const operation = `boleto query (nossoNumero ${nossoNumero})`;
    const nine = nossoNumeroOf(nossoNumero);
    if (!nine)
      throw new BankApiError(
        operation,
        undefined,
        "not sent: a nossoNumero is 1 to 9 digits (the bank's boleto id)",
        false,
      );
    const url = new URL(this.settings.baseUrl + this.settings.boletoQueryPath);
    url.searchParams.set('codigoBeneficiario', codigoBeneficiario);
    url.searchParams.set('nossoNumero', nine);
    const answer = await this.call({ operation, api: 'collection', method: 'GET', url: url.toString(), deadline });
    const body = answer.body as Record<string, unknown> | null;
    const result =
      body && typeof body === 'object' && body.resultado && typeof body.resultado === 'object' ? body.resultado : body;
    return answerObject(result, operation, answer.status);
  }

  /**
   * One page (from 1) of the boletos settled on a day (`dia` as `DD/MM/YYYY`, the bank's local
   * day), in the order the bank settled them. `hasNext` is read as a boolean or the string
   * "true"; a 404 is an empty page (one public client reads an empty day so).
   */
  async listSettledBoletos(
    codigoBeneficiario: string,
    dia: string,
    pagina: number,
    deadline: number,
  ): Promise<SettledBoletosPage> {
    const url = new URL(this.settings.baseUrl + this.settings.settledBoletosPath);
    url.searchParams.set('codigoBeneficiario', codigoBeneficiario);
    url.searchParams.set('dia', dia);
    url.searchParams.set('pagina', String(pagina));
    const operation = `settled boletos listing (dia ${dia}, pagina ${pagina})`;
    let answer: BankAnswer;
    try {
      answer = await this.call({ operation, api: 'collection', method: 'GET', url: url.toString(), deadline });
    } catch (error) {
      if (error instanceof BankApiError && error.status === 404) return { items: [], hasNext: false };
      throw error;
    }
    return settledPage(answer.body, operation, answer.status);
  }

  /**
   * A payment query (the payments API): Pix, paid boleto or tax payment by transaction id, with a
   * token of the kind's query scopes. A 403 says which scopes were asked and what to set.
   */
  async queryPayment(type: PaymentType, idTransacao: string, deadline: number): Promise<Record<string, unknown>> {
    const operation = `${type} payment query (idTransacao ${idTransacao.slice(0, 120)})`;
    // Only the bank's pattern goes into a URL: ".." or "a/b" would make the call another path's.
    if (!PAYMENT_ID_PATTERN.test(idTransacao))
      throw new BankApiError(
        operation,
        undefined,
        `not sent: the id does not match the bank's pattern ${PAYMENT_ID_RULE}`,
        false,
      );
    const path = this.settings.paymentQueryPaths[type].replace('{id}', idTransacao);
    const scope = this.settings.paymentQueryScopes[type];
    try {
      const answer = await this.call({
        operation,
        api: 'payments',
        method: 'GET',
        url: this.settings.registrationBaseUrl + path,
        deadline,
        scope,
      });
      return answerObject(answer.body, operation, answer.status);
    } catch (error) {
      if (!(error instanceof BankApiError) || error.status !== 403) throw error;
      throw new BankApiError(
        operation,
        403,
        `${error.detail}; the token asked the scopes "${scope}": if the bank wants others for ${type} queries, set the bank connection's paymentQueryScopes.${type} (docs/bank-api.md)`,
        false,
        error.attempts,
      );
    }
  }

  /**
   * One API call with the API's token and account headers. A 401 renews the token once; network
   * errors, 429 and 5xx are retried inside the deadline. Resolves with any 2xx answer.
   */
  async call(call: BankCall): Promise<BankAnswer> {
    for (let renewed = false; ; renewed = true) {
      const scope = call.api === 'payments' ? (call.scope ?? this.settings.paymentsScope) : undefined;
      const key = this.tokenKey(call.api, scope);
      const token = await this.token(key, call.api, scope, call.deadline);
      const headers: Record<string, string> = {
        accept: 'application/json',
        authorization: `Bearer ${token}`,
        ...(await this.accountHeaders(call.api)),
      };
      let body: string | undefined;
      if (call.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(call.body);
      }
      const response = await this.send(
        call.operation,
        call.api,
        call.deadline,
        { url: call.url, method: call.method, headers, body },
        call.method === 'POST' ? CallKind.CREATION : CallKind.OTHER,
      );
      if (response.status === 401 && !renewed) {
        // Renew now, keeping the refresh token (a refresh costs the bank less than a password grant).
        this.tokens.expire(key);
        continue;
      }
      return apiAnswer(call.operation, response);
    }
  }

  /** Closes kept-alive connections. */
  close(): void {
    for (const { transport } of this.transports.values()) transport.close();
    this.transports.clear();
  }

  private async accountHeaders(api: BankApi): Promise<Record<string, string>> {
    const a = this.settings.account;
    if (api === 'payments') return { 'x-conta': a.conta, 'x-cooperativa': a.cooperativa, 'x-documento': a.documento };
    const credentials = await this.options.credentials();
    return { 'x-api-key': credentials.apiKey ?? '', cooperativa: a.cooperativa, posto: a.posto };
  }

  /** The cache key of a call's token: the collection token, or the payments token of a scope set (in any order). */
  private tokenKey(api: BankApi, scope = ''): string {
    return api === 'collection' ? api : `${api} ${scope.split(/\s+/).filter(Boolean).sort().join(' ')}`;
  }

  private token(key: string, api: BankApi, scope: string | undefined, deadline: number): Promise<string> {
    return this.tokens.obtain(key, (held) =>
      api === 'collection' ? this.collectionToken(held, deadline) : this.paymentsToken(key, scope ?? '', deadline),
    );
  }

  private async collectionToken(previous: CachedToken | undefined, deadline: number): Promise<string> {
    const operation = 'collection token request';
    const credentials = await this.options.credentials();
    const missing = (['apiKey', 'password'] as const).filter((field) => !credentials[field]);
    if (missing.length) {
      throw new BankApiError(
        operation,
        undefined,
        `the bank credentials secret lacks ${missing.join(' and ')}, which the collection API's password grant needs`,
        false,
      );
    }
    const headers = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
      'x-api-key': credentials.apiKey!,
      context: 'COBRANCA',
    };
    const url = this.settings.collectionTokenUrl;
    if (previous?.refreshToken && previous.refreshUntil !== undefined && this.now() < previous.refreshUntil) {
      const body = formBody({ grant_type: 'refresh_token', refresh_token: previous.refreshToken });
      const response = await this.send(operation, 'collection', deadline, { url, method: 'POST', headers, body });
      // A refused refresh token (used, expired, revoked) falls back to the password grant.
      if (response.status === 200)
        return this.tokens.remember(
          this.tokenKey('collection'),
          parseAnswer(response) as Record<string, unknown>,
          operation,
        );
    }
    const a = this.settings.account;
    const body = formBody({
      grant_type: 'password',
      username: credentials.username ?? a.codigoBeneficiario + a.cooperativa,
      password: credentials.password!,
      scope: this.settings.collectionScope,
    });
    const response = await this.send(operation, 'collection', deadline, { url, method: 'POST', headers, body });
    return this.rememberToken(this.tokenKey('collection'), operation, response);
  }

  private async paymentsToken(key: string, scope: string, deadline: number): Promise<string> {
    const operation = `payments token request (scopes ${scope})`;
    const credentials = await this.options.credentials();
    const missing = (['clientId', 'clientSecret'] as const).filter((field) => !credentials[field]);
    if (missing.length) {
      throw new BankApiError(
        operation,
        undefined,
        `the bank credentials secret lacks ${missing.join(' and ')}, which the payments API's client_credentials grant needs`,
        false,
      );
    }
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    const fields: Record<string, string> = { grant_type: 'client_credentials', scope };
    if (this.settings.paymentsClientAuth === ClientCredentialsAuth.BASIC) {
      const basic = Buffer.from(
        `${encodeURIComponent(credentials.clientId!)}:${encodeURIComponent(credentials.clientSecret!)}`,
      ).toString('base64');
      secrets.remember(basic);
      headers.authorization = `Basic ${basic}`;
    } else {
      fields.client_id = credentials.clientId!;
      fields.client_secret = credentials.clientSecret!;
    }
    const response = await this.send(operation, 'payments', deadline, {
      url: this.settings.paymentsTokenUrl,
      method: 'POST',
      headers,
      body: formBody(fields),
    });
    return this.rememberToken(key, operation, response);
  }

  private rememberToken(key: string, operation: string, response: HttpResponse): string {
    return this.tokens.remember(key, tokenAnswer(operation, response), operation);
  }

  private async transport(api: BankApi): Promise<BankTransport> {
    const credentials = await this.options.credentials();
    const tls: TlsMaterial =
      api === 'payments'
        ? {
            caCertificates: credentials.caCertificates,
            clientCertificate: credentials.clientCertificate,
            clientKey: credentials.clientKey,
          }
        : { caCertificates: credentials.caCertificates };
    // Rebuilt when the certificates in the secret change (a renewed client certificate).
    const key = [tls.caCertificates, tls.clientCertificate, tls.clientKey].join('\u0000');
    const existing = this.transports.get(api);
    if (existing?.key === key) return existing.transport;
    existing?.transport.close();
    const transport = newTransport(this.options, tls);
    this.transports.set(api, { key, transport });
    return transport;
  }

  /** Sends one request over the API's connection (paced and retried: base/paced-sender.ts). */
  private async send(
    operation: string,
    api: BankApi,
    deadline: number,
    req: OutgoingRequest,
    kind = CallKind.TOKEN,
  ): Promise<HttpResponse> {
    return this.sender.send(operation, await this.transport(api), deadline, req, kind);
  }
}
