/**
 * The control API's Pix part (`/control/pix/...`): make charges and pay them, pay keys (with a
 * static code's txid, or none) or the account by its details (no key), several Pix at once (one callback per key), refunds to their final
 * status, another customer's Pix delivered to a registered URL, the validation call, and the
 * provider dropping a key's webhook on its own. Not the provider's API.
 */
import { controlError } from '../errors';
import type { Call, Route, SimulatorReply } from '../routes';
import type { PixBook } from './pix-book';
import { randomTxid } from './pix-book';
import type { PixCallbacks } from './pix-callbacks';
import { type ChargeKind, type PixReceived, RefundStatus } from './pix-model';

export interface PixControlParts {
  readonly book: PixBook;
  readonly callbacks: PixCallbacks;
  /** The control API's JSON body reader (an object, `{}` when empty). */
  readonly json: (call: Call) => Record<string, unknown>;
  /** The simulated clock, in ms (a due date defaults to a week after it). */
  readonly now: () => number;
}

export const optionalString = (input: Record<string, unknown>, name: string): string | undefined => {
  const value = input[name];
  if (value !== undefined && typeof value !== 'string') throw controlError(400, `${name} must be a string.`);
  return value;
};

/** One payment of a batch: `{txid}` pays that charge, `{chave, valor, txid?}` pays a key, `{conta: true, valor, txid?}` the account by its details (no key). */
function payOne(book: PixBook, input: unknown): PixReceived {
  if (!input || typeof input !== 'object' || Array.isArray(input))
    throw controlError(
      400,
      'Each payment must be a JSON object: {"txid": ...} for a charge, {"chave": ..., "valor": ...} for a key.',
    );
  const payment = input as Record<string, unknown>;
  const chave = optionalString(payment, 'chave');
  const txid = optionalString(payment, 'txid');
  const valor = optionalString(payment, 'valor');
  const infoPagador = optionalString(payment, 'infoPagador');
  if (chave !== undefined) {
    if (valor === undefined) throw controlError(400, `valor is required to pay the key ${chave}.`);
    return book.payKey(chave, { valor, txid, infoPagador });
  }
  if (payment.conta === true) {
    if (valor === undefined) throw controlError(400, 'valor is required to pay the account by its details.');
    return book.payAccount({ valor, txid, infoPagador });
  }
  if (txid === undefined)
    throw controlError(
      400,
      'A payment needs txid (a charge), chave (a key) or conta: true (the account by its details).',
    );
  return book.payCharge(txid, { valor, infoPagador });
}

export function pixControlRoutes(p: PixControlParts): Route[] {
  const ok = (body: unknown, status = 200): SimulatorReply => ({ status, body });
  const received = (pix: PixReceived[]) => {
    const notifications = p.callbacks.announce(pix);
    return ok(
      {
        pix,
        notificationIds: notifications.map((n) => n.id),
        skipped: notifications.flatMap((n) => (n.skipped ? [n.skipped] : [])),
      },
      201,
    );
  };
  /** The URL given, or the first key's webhook: where another customer's callbacks or the validation call go. */
  const targetUrl = (input: Record<string, unknown>) => {
    const url = optionalString(input, 'url') ?? p.book.keys.map((k) => p.book.webhookOf(k)?.webhookUrl).find(Boolean);
    if (!url)
      throw controlError(
        400,
        'No webhook is registered for any key: give url, or register one with PUT /webhook/{chave} first.',
      );
    return url;
  };
  return [
    { method: 'GET', path: /^\/control\/pix\/?$/, handle: () => ok({ keys: p.book.keys, ...p.book.exportState() }) },
    {
      method: 'POST',
      path: /^\/control\/pix\/charges\/?$/,
      handle: (call) => {
        const input = p.json(call);
        const kind = (optionalString(input, 'kind') ?? 'cob') as ChargeKind;
        if (kind !== 'cob' && kind !== 'cobv')
          throw controlError(400, 'kind is cob (immediate) or cobv (with a due date).');
        const txid = optionalString(input, 'txid') ?? randomTxid();
        const chave = optionalString(input, 'chave') ?? p.book.keys[0];
        const due =
          optionalString(input, 'dataDeVencimento') ??
          (kind === 'cobv' ? new Date(p.now() + 7 * 86_400_000).toISOString().slice(0, 10) : undefined);
        const charge = p.book.putCharge(kind, txid, {
          chave,
          valor: { original: optionalString(input, 'valor') ?? '10.00' },
          calendario: due ? { dataDeVencimento: due } : {},
        });
        return ok(charge, 201);
      },
    },
    {
      method: 'POST',
      path: /^\/control\/pix\/charges\/([^/]+)\/pay\/?$/,
      handle: (call) => received([payOne(p.book, { ...p.json(call), txid: decodeURIComponent(call.params[0]) })]),
    },
    {
      method: 'POST',
      path: /^\/control\/pix\/keys\/([^/]+)\/pay\/?$/,
      handle: (call) => received([payOne(p.book, { ...p.json(call), chave: decodeURIComponent(call.params[0]) })]),
    },
    {
      method: 'POST',
      path: /^\/control\/pix\/account\/pay\/?$/,
      handle: (call) => received([payOne(p.book, { ...p.json(call), conta: true })]),
    },
    {
      method: 'POST',
      path: /^\/control\/pix\/batch\/?$/,
      handle: (call) => {
        const payments = p.json(call).payments;
        if (!Array.isArray(payments) || payments.length === 0)
          throw controlError(400, 'payments must be a non-empty array.');
        return received(payments.map((payment) => payOne(p.book, payment)));
      },
    },
    {
      method: 'POST',
      path: /^\/control\/pix\/([^/]+)\/refunds\/?$/,
      handle: (call) => {
        const input = p.json(call);
        const id = optionalString(input, 'id') ?? `D${randomTxid().slice(0, 20)}`;
        const natureza = optionalString(input, 'natureza');
        return ok(
          p.book.requestRefund(
            decodeURIComponent(call.params[0]),
            id,
            { valor: optionalString(input, 'valor'), ...(natureza ? { natureza } : {}) },
            'provider',
          ),
          201,
        );
      },
    },
    {
      method: 'POST',
      path: /^\/control\/pix\/([^/]+)\/refunds\/([^/]+)\/settle\/?$/,
      handle: (call) => {
        const input = p.json(call);
        const status = input.status ?? RefundStatus.RETURNED;
        if (status !== RefundStatus.RETURNED && status !== RefundStatus.NOT_DONE)
          throw controlError(400, `status is ${RefundStatus.RETURNED} or ${RefundStatus.NOT_DONE}.`);
        const id = decodeURIComponent(call.params[1]);
        const pix = p.book.settleRefund(
          decodeURIComponent(call.params[0]),
          id,
          status,
          optionalString(input, 'motivo'),
        );
        const notification = p.callbacks.announceRefund(pix, id);
        return ok({ pix, notificationId: notification.id, skipped: notification.skipped ?? null });
      },
    },
    {
      method: 'POST',
      path: /^\/control\/pix\/foreign\/?$/,
      handle: (call) => {
        const input = p.json(call);
        const pix = p.book.foreignPix({
          chave: optionalString(input, 'chave'),
          valor: optionalString(input, 'valor'),
          txid: optionalString(input, 'txid'),
        });
        return ok({ pix, notificationId: p.callbacks.foreign(targetUrl(input), pix).id }, 201);
      },
    },
    {
      method: 'POST',
      path: /^\/control\/pix\/validation\/?$/,
      handle: (call) => {
        const input = p.json(call);
        return ok({ notificationId: p.callbacks.validation(targetUrl(input), input.body ?? {}).id }, 201);
      },
    },
    {
      method: 'DELETE',
      path: /^\/control\/pix\/webhooks\/([^/]+)\/?$/,
      handle: (call) => (p.book.deleteWebhook(decodeURIComponent(call.params[0])), { status: 204 }),
    },
  ];
}
