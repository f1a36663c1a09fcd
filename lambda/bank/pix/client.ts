/**
 * The standard Pix API's client (cdk-bank-webhooks/docs/pix.md): a token by client_credentials with HTTP Basic over
 * mutual TLS (the Pix application's certificate), `grant_type` in the form body unless the
 * connection says the query string, one token per scope set kept under its lifetime; every call
 * paced by the bank's shared budget, retried and bounded as the bank client's are
 * (base/paced-sender.ts), its errors the provider's own message with every secret masked. What a
 * query does not find (404) is `undefined`: for a Pix, not ours.
 */
import {
  PixBasicCredentials,
  type PixConnectionSettings,
  PixConnectionDefaults,
  type PixCredentials,
  PixGrantTypePlacement,
  PixOperation,
  pixPath,
  pixScope,
} from '../../../contracts/pix-connection';
import { PixChargeKind } from '../../../contracts/events';
import { apiAnswer, tokenAnswer } from '../base/answers';
import { type ClientCallOptions, clientSender, newTransport, type PacedSender } from '../base/paced-sender';
import { TokenCache } from '../base/token-cache';
import { BankApiError } from '../errors';
import type { BankTransport } from '../http';
import { CallKind } from '../pacing';
import { secrets } from '../../shared/redaction';
import { CHARGE_TXID, END_TO_END_ID, MAX_PIX_KEY_LENGTH, PIX_TXID, REFUND_ID } from '../../../contracts/pix';
import {
  type ChargePageRead,
  type ChargeRead,
  type PixPageRead,
  type PixRead,
  type PixRefundRead,
  readCharge,
  readChargePage,
  readPix,
  readPixPage,
  readRefund,
} from './answers';
import {
  readRecurrence,
  readRecurrencePage,
  readRecurringCharge,
  readRecurringChargePage,
  type RecurrenceRead,
  type RecurringChargeRead,
  type RecurringPageRead,
} from './recurring-answers';
import { REC_ID, RecurringWebhookKind } from '../../../contracts/pix-recurring';
import { ACCOUNT_WEBHOOK_OPERATIONS, CHARGE_OPERATIONS, formEncode, type ListingWindow, webhookOf } from './operations';

export interface PixClientOptions extends ClientCallOptions {
  readonly settings: PixConnectionSettings;
  /** Loads the Pix credentials (cached by the caller). */
  readonly credentials: () => Promise<PixCredentials>;
}

export class PixClient {
  private readonly now: () => number;
  private readonly sender: PacedSender;
  private readonly tokens: TokenCache;
  private transportState?: { key: string; transport: BankTransport };

  constructor(private readonly options: PixClientOptions) {
    this.now = options.now ?? Date.now;
    this.tokens = new TokenCache(this.now);
    this.sender = clientSender(options, {
      callTimeoutMs: options.settings.callTimeoutMs ?? PixConnectionDefaults.callTimeoutMs,
      ratePerSecond: 10,
      name: 'Pix API calls',
    });
  }

  /** `GET /pix/{e2eid}`: the Pix as the provider holds it under our credentials, or undefined (404: not ours). */
  async getPix(endToEndId: string, deadline: number): Promise<PixRead | undefined> {
    const operation = `Pix query (endToEndId ${endToEndId.slice(0, 64)})`;
    if (!END_TO_END_ID.test(endToEndId))
      throw new BankApiError(operation, undefined, 'not sent: an end-to-end id is 1 to 64 letters and digits', false);
    const answer = await this.get(operation, PixOperation.PIX_QUERY, { e2eid: endToEndId }, deadline);
    return answer && readPix(answer.body, operation, answer.status);
  }

  /** `GET /cob/{txid}`, `GET /cobv/{txid}` or `GET /cobr/{txid}`: the charge with the Pix that paid it, or undefined (404). */
  async getCharge(kind: PixChargeKind, txid: string, deadline: number): Promise<ChargeRead | undefined> {
    const operation = `${kind} query (txid ${txid.slice(0, 35)})`;
    if (!CHARGE_TXID.test(txid))
      throw new BankApiError(operation, undefined, "not sent: a charge's txid is 26 to 35 letters and digits", false);
    const answer = await this.get(operation, CHARGE_OPERATIONS[kind], { txid }, deadline);
    return answer && readCharge(answer.body, operation, answer.status);
  }

  /** `GET /pix/{e2eid}/devolucao/{id}`: one refund, or undefined (404). */
  async getRefund(endToEndId: string, id: string, deadline: number): Promise<PixRefundRead | undefined> {
    const operation = `refund query (endToEndId ${endToEndId.slice(0, 64)}, id ${id.slice(0, 35)})`;
    if (!END_TO_END_ID.test(endToEndId) || !REFUND_ID.test(id))
      throw new BankApiError(
        operation,
        undefined,
        "not sent: the end-to-end id or the refund id is not letters and digits of the standard's length",
        false,
      );
    const answer = await this.get(operation, PixOperation.REFUND_QUERY, { e2eid: endToEndId, id }, deadline);
    return answer && readRefund(answer.body, operation, answer.status);
  }

  /** One page (from 0) of `GET /pix?inicio&fim` (of one txid, or only Pix with refunds, when asked), at most 1000 Pix unless asked for fewer. */
  async listPix(
    window: ListingWindow,
    page: number,
    deadline: number,
    options: { itensPorPagina?: number; txid?: string; devolucaoPresente?: boolean } = {},
  ): Promise<PixPageRead> {
    const operation = `Pix listing (${window.inicio} to ${window.fim}, page ${page})`;
    if (options.txid !== undefined && !PIX_TXID.test(options.txid))
      throw new BankApiError(operation, undefined, 'not sent: a txid is 1 to 35 letters and digits', false);
    const filters: Record<string, string> = {};
    if (options.txid) filters.txid = options.txid;
    if (options.devolucaoPresente !== undefined) filters.devolucaoPresente = String(options.devolucaoPresente);
    const op = PixOperation.PIX_LISTING;
    const answer = await this.listing(operation, op, window, page, deadline, options.itensPorPagina, filters);
    return readPixPage(answer.body, operation, answer.status);
  }

  /**
   * One page (from 0) of `GET /cob` or `GET /cobv` over a window of creation time (of one status,
   * when asked): the charges created in it, each as its query answers it.
   */
  async listCharges(
    kind: PixChargeKind.COB | PixChargeKind.COBV,
    window: ListingWindow,
    page: number,
    deadline: number,
    options: { itensPorPagina?: number; status?: string } = {},
  ): Promise<ChargePageRead> {
    const operation = `${kind} listing (${window.inicio} to ${window.fim}, page ${page})`;
    const op = kind === PixChargeKind.COB ? PixOperation.COB_LISTING : PixOperation.COBV_LISTING;
    const filters: Record<string, string> = options.status === undefined ? {} : { status: options.status };
    const answer = await this.listing(operation, op, window, page, deadline, options.itensPorPagina, filters);
    return readChargePage(answer.body, operation, answer.status);
  }

  /**
   * One page (from 0) of `GET /rec` or `GET /cobr` over a window of creation time: the account's
   * recurrences or recurring charges created in it, each as its query answers it.
   */
  async listRecurring<K extends RecurringWebhookKind>(
    kind: K,
    window: ListingWindow,
    page: number,
    deadline: number,
    itensPorPagina: number = PixConnectionDefaults.listingPageSize,
  ): Promise<RecurringPageRead<K extends RecurringWebhookKind.REC ? RecurrenceRead : RecurringChargeRead>> {
    const operation = `${kind} listing (${window.inicio} to ${window.fim}, page ${page})`;
    const op = kind === RecurringWebhookKind.REC ? PixOperation.REC_LISTING : PixOperation.COBR_LISTING;
    const answer = await this.listing(operation, op, window, page, deadline, itensPorPagina);
    const read = kind === RecurringWebhookKind.REC ? readRecurrencePage : readRecurringChargePage;
    return read(answer.body, operation, answer.status) as RecurringPageRead<
      K extends RecurringWebhookKind.REC ? RecurrenceRead : RecurringChargeRead
    >;
  }

  /** `PUT /webhook/{chave}` with our URL (any 2xx is success: the standard says 200, one provider 201). */
  async putWebhook(chave: string, webhookUrl: string, deadline: number): Promise<void> {
    await this.call(
      `webhook registration (key ${this.keyLabel(chave)})`,
      PixOperation.WEBHOOK_PUT,
      'PUT',
      this.url(PixOperation.WEBHOOK_PUT, { chave: this.key(chave) }),
      deadline,
      { webhookUrl },
    );
  }

  /** `GET /webhook/{chave}`: the registered URL (the key under `chave` or `cnpj`), or undefined (404: none). */
  async getWebhook(chave: string, deadline: number): Promise<{ webhookUrl: string } | undefined> {
    const operation = `webhook query (key ${this.keyLabel(chave)})`;
    const answer = await this.get(operation, PixOperation.WEBHOOK_GET, { chave: this.key(chave) }, deadline);
    return answer && webhookOf(operation, answer);
  }

  /** `DELETE /webhook/{chave}`: true when removed, false when there was none (404). */
  async deleteWebhook(chave: string, deadline: number): Promise<boolean> {
    return this.removed(
      `webhook removal (key ${this.keyLabel(chave)})`,
      PixOperation.WEBHOOK_DELETE,
      { chave: this.key(chave) },
      deadline,
    );
  }

  /** `GET /rec/{idRec}`: the recurrence as the provider holds it under our credentials, or undefined (404: not ours). */
  async getRecurrence(idRec: string, deadline: number): Promise<RecurrenceRead | undefined> {
    const operation = `recurrence query (idRec ${idRec.slice(0, 29)})`;
    if (!REC_ID.test(idRec))
      throw new BankApiError(operation, undefined, 'not sent: an idRec is 29 letters and digits', false);
    const answer = await this.get(operation, PixOperation.REC_QUERY, { idRec }, deadline);
    return answer && readRecurrence(answer.body, operation, answer.status);
  }

  /** `GET /cobr/{txid}` read in full (its history, ending and attempts), or undefined (404: not ours). */
  async getRecurringCharge(txid: string, deadline: number): Promise<RecurringChargeRead | undefined> {
    const operation = `recurring charge query (txid ${txid.slice(0, 35)})`;
    if (!CHARGE_TXID.test(txid))
      throw new BankApiError(operation, undefined, "not sent: a charge's txid is 26 to 35 letters and digits", false);
    const answer = await this.get(operation, PixOperation.COBR_QUERY, { txid }, deadline);
    return answer && readRecurringCharge(answer.body, operation, answer.status);
  }

  /** `PUT /webhookrec` or `PUT /webhookcobr` with our URL (any 2xx is success). */
  async putAccountWebhook(kind: RecurringWebhookKind, webhookUrl: string, deadline: number): Promise<void> {
    const op = ACCOUNT_WEBHOOK_OPERATIONS[kind].put;
    await this.call(`webhook${kind} registration`, op, 'PUT', this.url(op, {}), deadline, { webhookUrl });
  }

  /** `GET /webhookrec` or `GET /webhookcobr`: the registered URL, or undefined (404: none). */
  async getAccountWebhook(kind: RecurringWebhookKind, deadline: number): Promise<{ webhookUrl: string } | undefined> {
    const operation = `webhook${kind} query`;
    const answer = await this.get(operation, ACCOUNT_WEBHOOK_OPERATIONS[kind].get, {}, deadline);
    return answer && webhookOf(operation, answer);
  }

  /** `DELETE /webhookrec` or `DELETE /webhookcobr`: true when removed, false when there was none (404). */
  async deleteAccountWebhook(kind: RecurringWebhookKind, deadline: number): Promise<boolean> {
    return this.removed(`webhook${kind} removal`, ACCOUNT_WEBHOOK_OPERATIONS[kind].delete, {}, deadline);
  }

  close(): void {
    this.transportState?.transport.close();
    this.transportState = undefined;
  }

  private key(chave: string): string {
    if (!chave || chave.length > MAX_PIX_KEY_LENGTH)
      throw new BankApiError(
        `Pix key ${this.keyLabel(chave)}`,
        undefined,
        `not sent: a Pix key is 1 to ${MAX_PIX_KEY_LENGTH} characters`,
        false,
      );
    return chave;
  }

  /** A key as errors and logs show it: an email's or phone's middle masked (a key is the holder's personal data). */
  private keyLabel(chave: string): string {
    return chave.length <= 6 ? chave : `${chave.slice(0, 3)}…${chave.slice(-3)}`;
  }

  private url(operation: PixOperation, values: Record<string, string>): string {
    const path = pixPath(this.options.settings, operation).replace(/\{(\w+)\}/g, (_: string, name: string) =>
      encodeURIComponent(values[name] ?? ''),
    );
    return this.options.settings.baseUrl + path;
  }

  /** A listing's page: its window, its page (from 0) and size, and its filters, in the standard's query parameters. */
  private listing(
    operation: string,
    op: PixOperation,
    window: ListingWindow,
    page: number,
    deadline: number,
    itensPorPagina: number = PixConnectionDefaults.listingPageSize,
    filters: Readonly<Record<string, string>> = {},
  ): Promise<{ status: number; body: unknown }> {
    const query = new URLSearchParams({
      inicio: window.inicio,
      fim: window.fim,
      'paginacao.paginaAtual': String(page),
      'paginacao.itensPorPagina': String(itensPorPagina),
      ...filters,
    });
    return this.call(operation, op, 'GET', `${this.url(op, {})}?${query.toString()}`, deadline);
  }

  /** A DELETE: true when removed, false when there was none (404). */
  private async removed(operation: string, op: PixOperation, values: Record<string, string>, deadline: number) {
    try {
      await this.call(operation, op, 'DELETE', this.url(op, values), deadline);
      return true;
    } catch (error) {
      if (error instanceof BankApiError && error.status === 404) return false;
      throw error;
    }
  }

  /** A GET whose 404 means "not there": undefined. */
  private async get(operation: string, op: PixOperation, values: Record<string, string>, deadline: number) {
    try {
      return await this.call(operation, op, 'GET', this.url(op, values), deadline);
    } catch (error) {
      if (error instanceof BankApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  private async call(
    operation: string,
    op: PixOperation,
    method: string,
    url: string,
    deadline: number,
    body?: unknown,
  ): Promise<{ status: number; body: unknown }> {
    const scope = pixScope(this.options.settings, op);
    const key = scope.split(/\s+/).filter(Boolean).sort().join(' ');
    for (let renewed = false; ; renewed = true) {
      const token = await this.tokens.obtain(key, () => this.token(key, deadline));
      const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${token}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await this.sender.send(
        operation,
        await this.transport(),
        deadline,
        { url, method, headers, body: body === undefined ? undefined : JSON.stringify(body) },
        CallKind.OTHER,
      );
      if (response.status === 401 && !renewed) {
        this.tokens.expire(key);
        continue;
      }
      const hint =
        response.status === 403
          ? `; the token asked the scope "${scope}": if the provider wants another for this operation, set the Pix connection's scopes.${op}`
          : '';
      return apiAnswer(operation, response, hint);
    }
  }

  private async token(key: string, deadline: number): Promise<string> {
    const operation = `Pix token request (scopes ${key})`;
    const credentials = await this.options.credentials();
    // A sandbox's function URL asks for no client certificate; a real provider's token endpoint always does.
    const required = this.options.settings.simulated
      ? (['clientId', 'clientSecret'] as const)
      : (['clientId', 'clientSecret', 'clientCertificate', 'clientKey'] as const);
    const missing = required.filter((field) => !credentials[field]);
    if (missing.length)
      throw new BankApiError(
        operation,
        undefined,
        `the Pix credentials secret lacks ${missing.join(', ')}, which the Pix API's token (HTTP Basic over mutual TLS) needs`,
        false,
      );
    const raw = this.options.settings.basicCredentials === PixBasicCredentials.RAW;
    const part = (text: string) => (raw ? text : formEncode(text));
    const basic = Buffer.from(`${part(credentials.clientId!)}:${part(credentials.clientSecret!)}`).toString('base64');
    secrets.remember(basic, credentials.clientSecret);
    const fields = new URLSearchParams({ grant_type: 'client_credentials', scope: key });
    const inQuery = this.options.settings.grantType === PixGrantTypePlacement.QUERY;
    const url = inQuery ? `${this.options.settings.tokenUrl}?${fields.toString()}` : this.options.settings.tokenUrl;
    const response = await this.sender.send(operation, await this.transport(), deadline, {
      url,
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        authorization: `Basic ${basic}`,
      },
      body: inQuery ? '' : fields.toString(),
    });
    return this.tokens.remember(key, tokenAnswer(operation, response), operation);
  }

  /** The connection over the Pix application's certificate, rebuilt when the secret's certificates change. */
  private async transport(): Promise<BankTransport> {
    const c = await this.options.credentials();
    const key = [c.caCertificates, c.clientCertificate, c.clientKey].join('\u0000');
    if (this.transportState?.key === key) return this.transportState.transport;
    this.transportState?.transport.close();
    const transport = newTransport(this.options, {
      caCertificates: c.caCertificates,
      clientCertificate: c.clientCertificate,
      clientKey: c.clientKey,
    });
    this.transportState = { key, transport };
    return transport;
  }
}
