/**
 * Pix Automático's routes in the simulator (the standard's API Pix 2.9.0): the account's
 * `webhookrec` and `webhookcobr` (`PUT`, `GET`, `DELETE`), and the reads that verify a callback,
 * `GET /rec/{idRec}` and `GET /cobr/{txid}`, with their listings by creation time, each needing
 * the scope the standard gives it. Errors are the standard's RFC 7807 problems.
 */
import { type Call, header, QueryOperation, type Route } from '../routes';
import type { TokenIssuer } from '../tokens';
import type { PixBehaviour } from './pix-behaviour';
import type { PixReceived } from './pix-model';
import { bodyOf, decoded, listQuery, under } from './pix-routes';
import type { RecurringBook } from './recurring-book';
import { RecurringWebhookKind } from './recurring-model';
import { cobrView, recView } from './recurring-views';

export interface RecurringRouteParts {
  readonly book: RecurringBook;
  readonly tokens: TokenIssuer;
  readonly pixOf: (endToEndId: string) => PixReceived;
  readonly behaviour: () => PixBehaviour;
}

export function recurringRoutes(p: RecurringRouteParts): Route[] {
  const auth = (scope: string) => (call: Call) => p.tokens.authenticate(header(call, 'authorization'), 'pix', [scope]);
  const cobr = (txid: string) => cobrView(p.book.getCobr(txid), p.pixOf, p.behaviour());
  const webhookRoutes = Object.values(RecurringWebhookKind).flatMap((kind): Route[] => {
    const path = under(`/webhook${kind}`);
    return [
      {
        method: 'PUT',
        path,
        group: 'registration',
        authenticate: auth(`webhook${kind}.write`),
        handle: (call) => (p.book.webhooks.put(kind, bodyOf(call)), { status: p.behaviour().pixWebhookPutStatus }),
      },
      {
        method: 'GET',
        path,
        group: 'registration',
        authenticate: auth(`webhook${kind}.read`),
        handle: () => ({ status: 200, body: p.book.webhooks.get(kind) }),
      },
      {
        method: 'DELETE',
        path,
        group: 'registration',
        authenticate: auth(`webhook${kind}.write`),
        handle: () => (p.book.webhooks.delete(kind), { status: 204 }),
      },
    ];
  });
  return [
    ...webhookRoutes,
    {
      method: 'GET',
      path: under('/rec/([^/]+)'),
      group: 'query',
      counted: QueryOperation.REC_QUERY,
      authenticate: auth('rec.read'),
      handle: (call) => ({
        status: 200,
        body: recView(p.book.getRec(decoded(call.params[0], 'idRec')), p.behaviour()),
      }),
    },
    {
      method: 'GET',
      path: under('/rec'),
      group: 'query',
      counted: QueryOperation.RECURRING_LISTING,
      authenticate: auth('rec.read'),
      handle: (call) => {
        const { parametros, recs } = p.book.listRecs(listQuery(call.url.searchParams));
        return { status: 200, body: { parametros, recs: recs.map((rec) => recView(rec, p.behaviour())) } };
      },
    },
    {
      method: 'GET',
      path: under('/cobr/([^/]+)'),
      group: 'query',
      counted: QueryOperation.RECURRING_CHARGE_QUERY,
      authenticate: auth('cobr.read'),
      handle: (call) => ({ status: 200, body: cobr(decoded(call.params[0], 'txid')) }),
    },
    {
      method: 'GET',
      path: under('/cobr'),
      group: 'query',
      counted: QueryOperation.RECURRING_LISTING,
      authenticate: auth('cobr.read'),
      handle: (call) => {
        const { parametros, cobsr } = p.book.listCobrs(listQuery(call.url.searchParams));
        return { status: 200, body: { parametros, cobsr: cobsr.map((c) => cobr(c.txid)) } };
      },
    },
  ];
}
