/** The control API's Pix part, typed (`simulator.control.pix`): what pix-control-routes.ts serves. */
import type { PixState } from './pix-book';
import type { ChargeKind, PixCharge, PixReceived, PixRefund, RefundNature, RefundStatus } from './pix-model';
import type { ActivationJourney, CancelledBy } from '../../contracts/pix-recurring';
import type {
  NewRecurrence,
  Recurrence,
  RecurringCharge,
  RecurringState,
  RecurringWebhookKind,
} from './recurring-model';

/** A Pix Automático change made through the control API: the record, and its callback (or why none). */
export type RecurringChanged<T> = T & { readonly notificationId: string; readonly skipped: string | null };

/** How a recurrence or a charge ends when rejected or cancelled: the catalog's code, and who (for a cancellation). */
export interface RecurringEnding {
  readonly codigo?: string;
  readonly descricao?: string;
  readonly solicitante?: CancelledBy;
}

/** How the control client sends one call: method, path under /control, JSON body. */
export type ControlCaller = <T>(method: string, path: string, body?: unknown) => Promise<T>;

/** What a payment made through the control API came to: the Pix, and the callbacks it made (or why none). */
export interface PixPaid {
  readonly pix: PixReceived[];
  readonly notificationIds: string[];
  /** Why a Pix was not announced: no txid, or no webhook for its key. */
  readonly skipped: string[];
}

/** One payment of {@link PixControlClient.payMany}: a charge by its txid, or a key. */
export type PixPayment =
  | { readonly txid: string; readonly valor?: string }
  | { readonly chave: string; readonly valor: string; readonly txid?: string };

const enc = encodeURIComponent;

export class PixControlClient {
  constructor(private readonly call: ControlCaller) {}

  /** The provider's Pix book: keys, webhooks, charges and Pix received. */
  state(): Promise<PixState & { keys: string[] }> {
    return this.call('GET', '/pix');
  }

  /** A charge: immediate (`cob`) or with a due date (`cobv`); txid, key and amount chosen unless given. */
  createCharge(
    input: { kind?: ChargeKind; txid?: string; chave?: string; valor?: string; dataDeVencimento?: string } = {},
  ): Promise<PixCharge> {
    return this.call('POST', '/pix/charges', input);
  }

  /** A payer pays the charge (its amount unless another is given): announced to its key's webhook. */
  payCharge(txid: string, input: { valor?: string; infoPagador?: string } = {}): Promise<PixPaid> {
    return this.call('POST', `/pix/charges/${enc(txid)}/pay`, input);
  }

  /** A payer pays a key: with a static code's txid (1 to 25 characters) it is announced; without one it is not. */
  payKey(chave: string, input: { valor: string; txid?: string; infoPagador?: string }): Promise<PixPaid> {
    return this.call('POST', `/pix/keys/${enc(chave)}/pay`, input);
  }

  /** A payer pays the account by its details (no key): a Pix the provider ties to no key. */
  payAccount(input: { valor: string; txid?: string; infoPagador?: string }): Promise<PixPaid> {
    return this.call('POST', '/pix/account/pay', input);
  }

  /** Several Pix at once: one callback per key, carrying all of that key's Pix. */
  payMany(payments: readonly PixPayment[]): Promise<PixPaid> {
    return this.call('POST', '/pix/batch', { payments });
  }

  /**
   * A refund of a Pix, in process (nothing announced until it is settled): one the receiver asked
   * for (`ORIGINAL` unless said), or one the provider makes unasked under MED (`MED_*`).
   */
  refund(endToEndId: string, input: { valor: string; id?: string; natureza?: RefundNature }): Promise<PixRefund> {
    return this.call('POST', `/pix/${enc(endToEndId)}/refunds`, input);
  }

  /** The refund reaches its final status: its Pix is announced again with it. */
  settleRefund(
    endToEndId: string,
    id: string,
    status: RefundStatus.RETURNED | RefundStatus.NOT_DONE,
    motivo?: string,
  ): Promise<{ pix: PixReceived; notificationId: string; skipped: string | null }> {
    return this.call('POST', `/pix/${enc(endToEndId)}/refunds/${enc(id)}/settle`, {
      status,
      ...(motivo ? { motivo } : {}),
    });
  }

  /** Another customer's Pix, delivered to `url` (default: the first registered webhook) with the provider's certificate. */
  deliverForeign(
    input: { url?: string; chave?: string; valor?: string; txid?: string } = {},
  ): Promise<{ pix: PixReceived; notificationId: string }> {
    return this.call('POST', '/pix/foreign', input);
  }

  /** The validation call: a POST to the bare URL (default: the first registered webhook) with no `pix` array. */
  sendValidation(input: { url?: string; body?: unknown } = {}): Promise<{ notificationId: string }> {
    return this.call('POST', '/pix/validation', input);
  }

  // ---- Pix Automático ----

  /** The recurring webhooks, recurrences and recurring charges. */
  recurringState(): Promise<RecurringState> {
    return this.call('GET', '/pix/recurring');
  }

  /** The receiver creates a recurrence (a fixed amount, monthly, no retries unless said), waiting for the payer. */
  createRecurrence(input: NewRecurrence = {}): Promise<RecurringChanged<Recurrence>> {
    return this.call('POST', '/pix/recs', input);
  }

  /** The payer authorizes it (by the recurrence's QR code unless another journey is given). */
  approveRecurrence(idRec: string, tipoJornada?: ActivationJourney): Promise<RecurringChanged<Recurrence>> {
    return this.call('POST', `/pix/recs/${enc(idRec)}/approve`, tipoJornada ? { tipoJornada } : {});
  }

  /** The payer's provider rejects it (`AP13` unless said). */
  rejectRecurrence(idRec: string, ending: RecurringEnding = {}): Promise<RecurringChanged<Recurrence>> {
    return this.call('POST', `/pix/recs/${enc(idRec)}/reject`, ending);
  }

  /** Nobody answered in time. */
  expireRecurrence(idRec: string): Promise<RecurringChanged<Recurrence>> {
    return this.call('POST', `/pix/recs/${enc(idRec)}/expire`);
  }

  /** Either side cancels it (the payer, `SLCR`, unless said). */
  cancelRecurrence(idRec: string, ending: RecurringEnding = {}): Promise<RecurringChanged<Recurrence>> {
    return this.call('POST', `/pix/recs/${enc(idRec)}/cancel`, ending);
  }

  /** The receiver issues a charge of an approved recurrence; the payer's provider schedules it (`ATIVA`). */
  issueRecurringCharge(
    idRec: string,
    input: { valor?: string; dataDeVencimento?: string; txid?: string } = {},
  ): Promise<RecurringChanged<RecurringCharge>> {
    return this.call('POST', `/pix/recs/${enc(idRec)}/charges`, input);
  }

  /** The scheduled attempt is settled: a Pix the account receives (announced at `/pix` too); the charge is concluded. */
  payRecurringCharge(
    txid: string,
    input: { valor?: string } = {},
  ): Promise<RecurringCharge & { paidPix: PixReceived; notificationIds: string[]; skipped: string[] }> {
    return this.call('POST', `/pix/cobrs/${enc(txid)}/pay`, input);
  }

  /** The attempt fails (`AM02` unless said): a retry, or the charge rejected or expired, as its policy says. */
  failRecurringAttempt(txid: string, ending: RecurringEnding = {}): Promise<RecurringChanged<RecurringCharge>> {
    return this.call('POST', `/pix/cobrs/${enc(txid)}/fail`, ending);
  }

  /** Either side cancels the charge (the receiver, `SLCR`, unless said). */
  cancelRecurringCharge(txid: string, ending: RecurringEnding = {}): Promise<RecurringChanged<RecurringCharge>> {
    return this.call('POST', `/pix/cobrs/${enc(txid)}/cancel`, ending);
  }

  /** The provider drops the account's `webhookrec` or `webhookcobr` on its own. */
  dropRecurringWebhook(kind: RecurringWebhookKind): Promise<void> {
    return this.call('DELETE', `/pix/recurring-webhooks/${enc(kind)}`);
  }

  /** The provider drops the key's webhook on its own. */
  dropWebhook(chave: string): Promise<void> {
    return this.call('DELETE', `/pix/webhooks/${enc(chave)}`);
  }
}
