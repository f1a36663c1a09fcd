/**
 * The standard Pix API's routes in the simulator (cdk-bank-webhooks/docs/pix.md): the token endpoint (HTTP Basic
 * over mutual TLS), webhooks per key, charges (`cob`, `cobv`; read under `/api/v2` and, as this
 * bank does, `/api/v3`), the Pix received, their listing and refunds, each needing the scope the
 * standard gives it. Errors are the standard's RFC 7807 problems.
 */
import { SIMULATOR_PATHS as P } from '../../contracts/sandbox';
import { at, basicCredentials, type Call, header, parseForm, parseJson, QueryOperation, type Route } from '../routes';
import type { TokenIssuer } from '../tokens';
import { type PixBehaviour, PixGrantType } from './pix-behaviour';
import { type PixBook, type PixQuery, randomTxid } from './pix-book';
import { type ChargeKind, MAX_PIX_KEY_LENGTH, pixProblem } from './pix-model';
import { chargeView, pixView, PixViewPlace, webhookView } from './pix-views';

export interface PixRouteParts {
  readonly book: PixBook;
  readonly tokens: TokenIssuer;
  readonly behaviour: () => PixBehaviour;
}

/** A path under the Pix API's base, or under either version where this bank serves both. */
export const under = (rest: string, versions: readonly string[] = [P.pixApi]) =>
  new RegExp(`^(?:${versions.join('|')})${rest}/?$`);
const BOTH_VERSIONS = [P.pixApi, P.pixApiV3];

/** A path parameter decoded; a bad escape is the caller's error, not the simulator's. */
export function decoded(value: string, name: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw pixProblem(
      400,
      'RequisicaoInvalida',
      'Requisição inválida.',
      `${name} não está codificado corretamente na URL.`,
    );
  }
}

/** A key from the path: URL-decoded, 1 to 77 characters. */
function keyParam(value: string): string {
  const chave = decoded(value, 'chave');
  if (!chave || chave.length > MAX_PIX_KEY_LENGTH)
    throw pixProblem(
      400,
      'WebhookOperacaoInvalida',
      'Webhook inválido.',
      `A chave deve ter de 1 a ${MAX_PIX_KEY_LENGTH} caracteres.`,
    );
  return chave;
}

export const bodyOf = (call: Call) =>
  parseJson(call, (message) => pixProblem(400, 'RequisicaoInvalida', 'Requisição inválida.', message));

export function listQuery(params: URLSearchParams): PixQuery {
  const get = (name: string) => params.get(name) ?? undefined;
  return {
    inicio: get('inicio'),
    fim: get('fim'),
    txid: get('txid'),
    txIdPresente: get('txIdPresente'),
    devolucaoPresente: get('devolucaoPresente'),
    status: get('status'),
    paginaAtual: get('paginacao.paginaAtual'),
    itensPorPagina: get('paginacao.itensPorPagina'),
  };
}

export class PixRoutes {
  constructor(private readonly p: PixRouteParts) {}

  /** The bearer token of the Pix API, with `scope`. */
  private auth(scope: string) {
    return (call: Call) => this.p.tokens.authenticate(header(call, 'authorization'), 'pix', [scope]);
  }

  routes(): Route[] {
    const b = () => this.p.behaviour();
    const charge = (kind: ChargeKind, txid: string) =>
      chargeView(this.p.book.getCharge(kind, txid), (id) => this.p.book.getPix(id), b());
    const chargeRoutes = (['cob', 'cobv'] as const).flatMap((kind): Route[] => [
      ...(kind === 'cob'
        ? [
            {
              // `POST /cob`: an immediate charge whose txid the provider makes (the standard's `cobGerada`).
              method: 'POST',
              path: under('/cob/?', BOTH_VERSIONS),
              group: 'registration',
              authenticate: this.auth('cob.write'),
              handle: (call: Call) => {
                const txid = randomTxid();
                this.p.book.putCharge('cob', txid, bodyOf(call));
                return { status: 201, body: charge('cob', txid) };
              },
            } satisfies Route,
          ]
        : []),
      {
        method: 'PUT',
        path: under(`/${kind}/([^/]+)`, BOTH_VERSIONS),
        group: 'registration',
        authenticate: this.auth(`${kind}.write`),
        handle: (call) => {
          const txid = decoded(call.params[0], 'txid');
          this.p.book.putCharge(kind, txid, bodyOf(call));
          return { status: 201, body: charge(kind, txid) };
        },
      },
      {
        method: 'GET',
        path: under(`/${kind}/([^/]+)`, BOTH_VERSIONS),
        group: 'query',
        counted: QueryOperation.CHARGE_QUERY,
        authenticate: this.auth(`${kind}.read`),
        handle: (call) => ({ status: 200, body: charge(kind, decoded(call.params[0], 'txid')) }),
      },
      {
        // `GET /cob?inicio&fim[&status]`, `GET /cobv?...`: the charges created in the window, each as its query answers it.
        method: 'GET',
        path: under(`/${kind}`, BOTH_VERSIONS),
        group: 'query',
        counted: QueryOperation.CHARGE_LISTING,
        authenticate: this.auth(`${kind}.read`),
        handle: (call) => {
          const { parametros, cobs } = this.p.book.listCharges(kind, listQuery(call.url.searchParams));
          return { status: 200, body: { parametros, cobs: cobs.map((c) => charge(kind, c.txid)) } };
        },
      },
    ]);
    return [
      {
        method: 'POST',
        path: at(P.pixToken),
        group: 'token',
        handle: (call) => ({
          status: 200,
          body: this.p.tokens.pixGrant(
            parseForm(call),
            call.url.searchParams,
            basicCredentials(call),
            call.certificate,
            b().pixGrantType === PixGrantType.BODY_OR_QUERY,
          ),
        }),
      },
      {
        method: 'PUT',
        path: under('/webhook/([^/]+)'),
        group: 'registration',
        authenticate: this.auth('webhook.write'),
        handle: (call) => {
          this.p.book.putWebhook(keyParam(call.params[0]), bodyOf(call));
          return { status: b().pixWebhookPutStatus };
        },
      },
      {
        method: 'GET',
        path: under('/webhook/([^/]+)'),
        group: 'registration',
        authenticate: this.auth('webhook.read'),
        handle: (call) => ({ status: 200, body: webhookView(this.p.book.getWebhook(keyParam(call.params[0])), b()) }),
      },
      {
        method: 'DELETE',
        path: under('/webhook/([^/]+)'),
        group: 'registration',
        authenticate: this.auth('webhook.write'),
        handle: (call) => (this.p.book.deleteWebhook(keyParam(call.params[0])), { status: 204 }),
      },
      {
        method: 'GET',
        path: under('/webhook'),
        group: 'registration',
        authenticate: this.auth('webhook.read'),
        handle: (call) => {
          const { parametros, webhooks } = this.p.book.listWebhooks(listQuery(call.url.searchParams));
          return { status: 200, body: { parametros, webhooks: webhooks.map((w) => webhookView(w, b())) } };
        },
      },
      ...chargeRoutes,
      {
        method: 'GET',
        path: under('/pix/([^/]+)'),
        group: 'query',
        counted: QueryOperation.PIX_QUERY,
        authenticate: this.auth('pix.read'),
        handle: (call) => ({
          status: 200,
          body: pixView(this.p.book.getPix(decoded(call.params[0], 'e2eid')), b(), PixViewPlace.QUERY),
        }),
      },
      {
        method: 'GET',
        path: under('/pix'),
        group: 'query',
        counted: QueryOperation.PIX_LISTING,
        authenticate: this.auth('pix.read'),
        handle: (call) => {
          const { parametros, pix } = this.p.book.listPix(listQuery(call.url.searchParams));
          return { status: 200, body: { parametros, pix: pix.map((p) => pixView(p, b(), PixViewPlace.QUERY)) } };
        },
      },
      {
        method: 'GET',
        path: under('/pix/([^/]+)/devolucao/([^/]+)'),
        group: 'query',
        counted: QueryOperation.PIX_QUERY,
        authenticate: this.auth('pix.read'),
        handle: (call) => ({
          status: 200,
          body: this.p.book.getRefund(decoded(call.params[0], 'e2eid'), decoded(call.params[1], 'id')),
        }),
      },
      {
        method: 'PUT',
        path: under('/pix/([^/]+)/devolucao/([^/]+)'),
        group: 'registration',
        authenticate: this.auth('pix.write'),
        handle: (call) => ({
          status: 201,
          body: this.p.book.requestRefund(
            decoded(call.params[0], 'e2eid'),
            decoded(call.params[1], 'id'),
            bodyOf(call),
          ),
        }),
      },
    ];
  }
}
