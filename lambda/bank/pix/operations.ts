/** What the Pix client calls each operation it makes by kind, and how it reads a webhook's answer and writes a Basic header's part. */
import { PixChargeKind } from '../../../contracts/events';
import { PixOperation } from '../../../contracts/pix-connection';
import { RecurringWebhookKind } from '../../../contracts/pix-recurring';
import { BankApiError } from '../errors';

/** A listing's window of time, in RFC 3339. */
export interface ListingWindow {
  readonly inicio: string;
  readonly fim: string;
}

export const CHARGE_OPERATIONS: Readonly<Record<PixChargeKind, PixOperation>> = {
  [PixChargeKind.COB]: PixOperation.COB_QUERY,
  [PixChargeKind.COBV]: PixOperation.COBV_QUERY,
  [PixChargeKind.COBR]: PixOperation.COBR_QUERY,
};

/** The account's two Pix Automático webhooks' operations. */
export const ACCOUNT_WEBHOOK_OPERATIONS: Readonly<
  Record<
    RecurringWebhookKind,
    { readonly put: PixOperation; readonly get: PixOperation; readonly delete: PixOperation }
  >
> = {
  [RecurringWebhookKind.REC]: {
    put: PixOperation.WEBHOOKREC_PUT,
    get: PixOperation.WEBHOOKREC_GET,
    delete: PixOperation.WEBHOOKREC_DELETE,
  },
  [RecurringWebhookKind.COBR]: {
    put: PixOperation.WEBHOOKCOBR_PUT,
    get: PixOperation.WEBHOOKCOBR_GET,
    delete: PixOperation.WEBHOOKCOBR_DELETE,
  },
};

/** A webhook query's answer: its `webhookUrl` (the key under `chave` or `cnpj`, or none, is not read). */
export function webhookOf(operation: string, answer: { status: number; body: unknown }): { webhookUrl: string } {
  const url = (answer.body as { webhookUrl?: unknown } | null)?.webhookUrl;
  if (typeof url !== 'string' || !url)
    throw new BankApiError(operation, answer.status, 'the answer has no webhookUrl', false);
  return { webhookUrl: url };
}

/**
 * One part of the Basic header encoded as RFC 6749 section 2.3.1 asks (percent-encoding; a form
 * decoder reads it, and it is what every deployed receiver has sent).
 */
export const formEncode = (text: string): string => encodeURIComponent(text);
