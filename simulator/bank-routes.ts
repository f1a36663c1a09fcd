/**
 * The bank's own routes in the simulator: the two token endpoints, the payments API (the
 * callback registration, payment queries) and the collection API (webhook contracts, the boleto
 * query, the listing of settled boletos), each authenticated as the real bank does (cdk-bank-webhooks/docs/bank-api.md).
 */
import { SIMULATOR_PATHS as P } from '../contracts/sandbox';
import type { Bank } from './bank';
import { type BankBehaviour, BoletoQueryShape, PaymentScopeRule } from './behaviour';
import { collectionError, gatewayError, validationErrors } from './errors';
import type { FaultInjector } from './faults';
import {
  type CallbackRegistration,
  ALL_PAYMENT_SCOPES,
  boletoQueryBody,
  boletoQueryBodyFlat,
  COLLECTION_SCOPE,
  PAYMENT_KINDS,
  PAYMENT_SCOPES,
  paymentBody,
  paymentQueryScope,
} from './model';
import { at, basicCredentials, type Call, header, parseForm, parseJson, QueryOperation, type Route } from './routes';
import type { BankCredentials, TokenIssuer } from './tokens';

/** What the bank's routes work on: the engine's state. */
export interface BankRouteParts {
  readonly bank: Bank;
  readonly tokens: TokenIssuer;
  readonly credentials: BankCredentials;
  readonly faults: FaultInjector;
  /** Callback registrations whose GETs still answer the value from before a PATCH (the `staleRegistrationReads` fault), by account. */
  readonly staleRegistrations: Map<string, { before: CallbackRegistration; readsLeft: number }>;
  readonly behaviour: () => BankBehaviour;
}

/** The bank's routes over the engine's state. */
export class BankRoutes {
  constructor(private readonly p: BankRouteParts) {}

  /**
   * Collection API calls carry x-api-key, the bearer token, and the cooperativa and posto headers
   * (cdk-bank-webhooks/docs/bank-api.md), each refused with the manual's status and text.
   */
  private collectionAuth(call: Call) {
    const apiKey = header(call, 'x-api-key');
    if (!apiKey)
      throw gatewayError(401, 'Could not find a required Access Token in the request, identified by HEADER x-api-key');
    if (apiKey !== this.p.credentials.collection.apiKey) throw gatewayError(401, 'Invalid ApiKey for given resource');
    const token = this.p.tokens.authenticate(header(call, 'authorization'), 'collection', [COLLECTION_SCOPE]);
    const missing = ['cooperativa', 'posto'].filter((name) => !header(call, name));
    if (missing.length)
      throw collectionError(
        400,
        'CABECALHO_OBRIGATORIO',
        `Cabeçalho(s) obrigatório(s) ausente(s): ${missing.join(', ')}.`,
      );
    this.p.bank.checkOwner(token, undefined, header(call, 'cooperativa'));
    return token;
  }

  /**
   * Payments API calls: the bearer token with a scope the operation takes (a query of one kind
   * its `consultar` scope, the callback registration a `pagar` one; any payments scope when the
   * behaviour is the looser reading), and the account headers.
   */
  private paymentsAuth(call: Call, queryKind?: string) {
    const scopes =
      this.p.behaviour().paymentScopes === PaymentScopeRule.ANY
        ? ALL_PAYMENT_SCOPES
        : queryKind
          ? [paymentQueryScope(queryKind)]
          : PAYMENT_SCOPES;
    this.p.tokens.authenticate(header(call, 'authorization'), 'payments', scopes);
    return this.p.bank.accountFor({
      conta: header(call, 'x-conta'),
      cooperativa: header(call, 'x-cooperativa'),
      documento: header(call, 'x-documento'),
    });
  }

  routes(): Route[] {
    const contractJson = (call: Call) => parseJson(call, (message) => collectionError(400, 'CORPO_INVALIDO', message));
    return [
      {
        method: 'POST',
        path: at(P.collectionToken),
        group: 'token',
        handle: (call) => ({
          status: 200,
          body: this.p.tokens.collectionGrant(
            { apiKey: header(call, 'x-api-key'), context: header(call, 'context') },
            parseForm(call),
          ),
        }),
      },
      {
        method: 'POST',
        path: at(P.paymentsToken),
        group: 'token',
        handle: (call) => ({
          status: 200,
          body: this.p.tokens.paymentsGrant(parseForm(call), basicCredentials(call), call.certificate),
        }),
      },
      {
        method: 'GET',
        path: at(P.registrationBase, '/v1/associado/webhook'),
        group: 'registration',
        authenticate: (call) => this.paymentsAuth(call),
        handle: (call) => {
          const account = this.paymentsAuth(call);
          const key = `${account.cooperativa}/${account.conta}`;
          const stale = this.p.staleRegistrations.get(key);
          if (stale && stale.readsLeft > 0 && this.p.faults.current.staleRegistrationReads) {
            stale.readsLeft--;
            return { status: 200, body: { ...stale.before } };
          }
          return { status: 200, body: this.p.bank.getRegistration(account) };
        },
      },
      {
        method: 'PATCH',
        path: at(P.registrationBase, '/v1/associado/webhook'),
        group: 'registration',
        authenticate: (call) => this.paymentsAuth(call),
        handle: (call) => {
          const account = this.paymentsAuth(call);
          const before = this.p.bank.getRegistration(account);
          this.p.bank.patchRegistration(
            account,
            parseJson(call, (message) => validationErrors(400, [{ field: 'body', message }])),
          );
          const lag = this.p.faults.current.staleRegistrationReads ?? 0;
          const key = `${account.cooperativa}/${account.conta}`;
          if (lag > 0) this.p.staleRegistrations.set(key, { before, readsLeft: lag });
          else this.p.staleRegistrations.delete(key);
          return { status: 204 };
        },
      },
      {
        method: 'GET',
        path: at(P.registrationBase, `/v1/pagamentos/(${PAYMENT_KINDS.join('|')})/([^/]+)`),
        group: 'query',
        counted: QueryOperation.PAYMENT_QUERY,
        authenticate: (call) => this.paymentsAuth(call, call.params[0]),
        handle: (call) => {
          const account = this.paymentsAuth(call, call.params[0]);
          return {
            status: 200,
            body: paymentBody(this.p.bank.queryPayment(account, call.params[0], decodeURIComponent(call.params[1]))),
          };
        },
      },
      {
        method: 'POST',
        path: at(P.contract),
        group: 'contract',
        authenticate: (call) => this.collectionAuth(call),
        handle: (call) => ({
          status: 201,
          body: this.p.bank.createContract(this.collectionAuth(call), contractJson(call)),
        }),
      },
      {
        method: 'GET',
        path: at(P.contracts),
        group: 'contract',
        authenticate: (call) => this.collectionAuth(call),
        handle: (call) => ({
          status: 200,
          body: this.p.bank.listContracts(this.collectionAuth(call), call.url.searchParams),
        }),
      },
      ...(['PUT', 'PATCH'] as const).map((method): Route => ({
        method,
        path: at(P.contract, '/([^/]+)'),
        group: 'contract',
        authenticate: (call) => this.collectionAuth(call),
        handle: (call) => {
          const token = this.collectionAuth(call);
          return {
            status: 200,
            body: this.p.bank.updateContract(token, decodeURIComponent(call.params[0]), contractJson(call), method),
          };
        },
      })),
      {
        method: 'GET',
        path: at(P.settledByDay),
        group: 'query',
        counted: QueryOperation.SETTLED_LISTING,
        authenticate: (call) => this.collectionAuth(call),
        handle: (call) => ({
          status: 200,
          body: this.p.bank.listSettledOnDay(this.collectionAuth(call), call.url.searchParams),
        }),
      },
      {
        method: 'GET',
        path: at(P.boletoQuery),
        group: 'query',
        counted: QueryOperation.BOLETO_QUERY,
        authenticate: (call) => this.collectionAuth(call),
        handle: (call) => {
          const boleto = this.p.bank.queryBoleto(this.collectionAuth(call), call.url.searchParams);
          const b = this.p.behaviour();
          return {
            status: 200,
            body:
              b.boletoQueryShape === BoletoQueryShape.FLAT
                ? boletoQueryBodyFlat(boleto, b.settlementTimestamp)
                : boletoQueryBody(boleto),
          };
        },
      },
    ];
  }
}
