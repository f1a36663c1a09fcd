/**
 * The control API's Pix Automático part (`/control/pix/recs`, `/control/pix/cobrs`): the receiver
 * creates a recurrence and issues its charges; the payer approves, rejects or cancels it; the
 * payer's provider settles an attempt (a Pix the account receives), fails it, or cancels; the
 * provider drops a webhook on its own. Each change is announced as the provider would. Not the
 * provider's API.
 */
import type { ActivationJourney, CancelledBy, Periodicity, RetryPolicy } from '../../contracts/pix-recurring';
import { controlError } from '../errors';
import type { Call, Route, SimulatorReply } from '../routes';
import type { PixCallbacks } from './pix-callbacks';
import { optionalString } from './pix-control-routes';
import type { RecurringBook } from './recurring-book';
import type { RecurringCallbacks } from './recurring-callbacks';
import { type Party, type Recurrence, type RecurringCharge, RecurringWebhookKind } from './recurring-model';

export interface RecurringControlParts {
  readonly book: RecurringBook;
  readonly callbacks: RecurringCallbacks;
  /** The Pix API's: a paid charge's Pix is announced at `/pix` too (a Pix no key ties). */
  readonly pixCallbacks: PixCallbacks;
  /** The control API's JSON body reader (an object, `{}` when empty). */
  readonly json: (call: Call) => Record<string, unknown>;
}

/** The answer to a change: the record, and the callback it made (or why none). */
const changed = (record: Recurrence | RecurringCharge, notification: { id: string; skipped?: string }, status = 200) =>
  ({
    status,
    body: { ...record, notificationId: notification.id, skipped: notification.skipped ?? null },
  }) satisfies SimulatorReply;

/** The ending's fields of a rejection or a cancellation, as given. */
const ending = (input: Record<string, unknown>) => ({
  solicitante: optionalString(input, 'solicitante') as CancelledBy | undefined,
  codigo: optionalString(input, 'codigo'),
  descricao: optionalString(input, 'descricao'),
});

export function recurringControlRoutes(p: RecurringControlParts): Route[] {
  const rec = (method: string, action: string, act: (idRec: string, input: Record<string, unknown>) => Recurrence) => ({
    method,
    path: new RegExp(`^/control/pix/recs/([^/]+)/${action}/?$`),
    handle: (call: Call) => {
      const moved = act(decodeURIComponent(call.params[0]), p.json(call));
      return changed(moved, p.callbacks.rec(moved));
    },
  });
  const cobr = (action: string, act: (txid: string, input: Record<string, unknown>) => RecurringCharge) => ({
    method: 'POST',
    path: new RegExp(`^/control/pix/cobrs/([^/]+)/${action}/?$`),
    handle: (call: Call) => {
      const moved = act(decodeURIComponent(call.params[0]), p.json(call));
      return changed(moved, p.callbacks.cobr(moved));
    },
  });
  return [
    {
      method: 'GET',
      path: /^\/control\/pix\/recurring\/?$/,
      handle: () => ({ status: 200, body: p.book.exportState() }),
    },
    {
      method: 'POST',
      path: /^\/control\/pix\/recs\/?$/,
      handle: (call) => {
        const input = p.json(call);
        const devedor = input.devedor;
        if (devedor !== undefined && (typeof devedor !== 'object' || devedor === null || Array.isArray(devedor)))
          throw controlError(
            400,
            'devedor must be an object: {"cpf": ..., "nome": ...} or {"cnpj": ..., "nome": ...}.',
          );
        const created = p.book.createRecurrence({
          valorRec: optionalString(input, 'valorRec'),
          periodicidade: optionalString(input, 'periodicidade') as Periodicity | undefined,
          politicaRetentativa: optionalString(input, 'politicaRetentativa') as RetryPolicy | undefined,
          contrato: optionalString(input, 'contrato'),
          objeto: optionalString(input, 'objeto'),
          devedor: devedor as Party | undefined,
        });
        return changed(created, p.callbacks.rec(created), 201);
      },
    },
    rec('POST', 'approve', (idRec, input) =>
      p.book.approve(idRec, optionalString(input, 'tipoJornada') as ActivationJourney | undefined),
    ),
    rec('POST', 'reject', (idRec, input) => p.book.reject(idRec, ending(input))),
    rec('POST', 'expire', (idRec) => p.book.expire(idRec)),
    rec('POST', 'cancel', (idRec, input) => p.book.cancel(idRec, ending(input))),
    {
      method: 'POST',
      path: /^\/control\/pix\/recs\/([^/]+)\/charges\/?$/,
      handle: (call) => {
        const input = p.json(call);
        const issued = p.book.issueCharge(decodeURIComponent(call.params[0]), {
          valor: optionalString(input, 'valor'),
          dataDeVencimento: optionalString(input, 'dataDeVencimento'),
          txid: optionalString(input, 'txid'),
        });
        return changed(issued, p.callbacks.cobr(issued), 201);
      },
    },
    {
      method: 'POST',
      path: /^\/control\/pix\/cobrs\/([^/]+)\/pay\/?$/,
      handle: (call) => {
        const { cobr: paid, pix } = p.book.payCharge(decodeURIComponent(call.params[0]), {
          valor: optionalString(p.json(call), 'valor'),
        });
        const notifications = [p.callbacks.cobr(paid), ...p.pixCallbacks.announce([pix])];
        return {
          status: 200,
          body: {
            ...paid,
            paidPix: pix,
            notificationIds: notifications.map((n) => n.id),
            skipped: notifications.flatMap((n) => (n.skipped ? [n.skipped] : [])),
          },
        };
      },
    },
    cobr('fail', (txid, input) => p.book.failAttempt(txid, ending(input))),
    cobr('cancel', (txid, input) => p.book.cancelCharge(txid, ending(input))),
    {
      method: 'DELETE',
      path: /^\/control\/pix\/recurring-webhooks\/([^/]+)\/?$/,
      handle: (call) => {
        const kind = decodeURIComponent(call.params[0]) as RecurringWebhookKind;
        if (!Object.values(RecurringWebhookKind).includes(kind))
          throw controlError(400, `The webhook is ${Object.values(RecurringWebhookKind).join(' or ')}.`);
        p.book.webhooks.delete(kind);
        return { status: 204 };
      },
    },
  ];
}
