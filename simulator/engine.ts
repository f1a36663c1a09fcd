/**
 * The simulated bank's HTTP surface without a server: the bank's routes and the control API over
 * one state (the bank, tokens, faults, behaviour, clock), answering a request with a reply. The
 * local HTTPS simulator serves it from one process; a deployed simulator (BankSandbox) rebuilds it
 * from its stored state for every request, so its state is exported and restored as plain JSON.
 */
import { SIMULATOR_PATHS } from '../contracts/sandbox';
import { Bank, type BankState, type BoletoAction, type OutgoingNotification, type PaymentAction } from './bank';
import { type BankBehaviour, BoletoQueryShape, changeBehaviour, MANUAL_BEHAVIOUR, PaymentScopeRule } from './behaviour';
import { BankError, collectionError, controlError, gatewayError, oauthError, validationErrors } from './errors';
import { type ApiGroup, FaultInjector, type FaultState, type SimulatorFaults } from './faults';
import type { SimulatorInfo } from './info';
import {
  type CallbackRegistration,
  ALL_PAYMENT_SCOPES, boletoQueryBody, boletoQueryBodyFlat, COLLECTION_SCOPE, PAYMENT_KINDS, PAYMENT_SCOPES, paymentBody, paymentQueryScope,
  type SimulatorAccount,
} from './model';
import type { DeliveryRecord } from './notifier';
import { type BankCredentials, type ClientCertificateInfo, TokenIssuer, type TokenState } from './tokens';

/** Paths of the simulated bank, relative to its origin (BANK-NOTES.md). */
export const SimulatorPaths = SIMULATOR_PATHS;

/** An error body with the request appended to every message it has (whichever one a client reads). */
function echoRequest(body: unknown, request: string): unknown {
  const echo = `(requisição recebida: ${request})`;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { mensagem: echo };
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  let echoed = false;
  for (const key of ['mensagem', 'message', 'error_description']) {
    if (typeof out[key] === 'string') {
      out[key] = `${String(out[key])} ${echo}`;
      echoed = true;
    }
  }
  for (const key of ['mensagens', 'erros', 'errors']) {
    if (Array.isArray(out[key])) {
      out[key] = [...(out[key] as unknown[]), { mensagem: echo }];
      echoed = true;
    }
  }
  if (!echoed) out.mensagem = echo;
  return out;
}

/** One request to the simulator, whatever carried it (a local HTTPS server, a Lambda function URL). */
export interface SimulatorRequest {
  readonly method: string;
  /** Path and query string, such as `/cobranca/boleto/v1/boletos?nossoNumero=000000001`. */
  readonly url: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: Buffer;
  /** The caller's client certificate, as TLS saw it. */
  readonly certificate: ClientCertificateInfo;
}

/** The simulator's answer: a status, a JSON body (or an {@link HtmlPage}), and headers. */
export interface SimulatorReply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

type Reply = SimulatorReply;

interface Call {
  readonly method: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly url: URL;
  readonly params: string[];
  readonly raw: Buffer;
  readonly certificate: ClientCertificateInfo;
}

interface Route {
  readonly method: string;
  readonly path: RegExp;
  readonly group?: ApiGroup;
  /** Counted by name in {@link SimulatorEngine.queryCounts} (queries and listings). */
  readonly counted?: QueryOperation;
  /**
   * The caller's credentials, checked before the group's faults and rate limit (the bank's gateway
   * knows the key before it counts it): a refused request changes no counter, bucket or budget.
   */
  readonly authenticate?: (call: Call) => unknown;
  readonly handle: (call: Call) => Reply | Promise<Reply>;
}

/** The bank's read operations a client can be held to account for: how many of each it made. */
export enum QueryOperation {
  BOLETO_QUERY = 'boletoQuery',
  PAYMENT_QUERY = 'paymentQuery',
  SETTLED_LISTING = 'settledListing',
}

function header(call: Call, name: string): string | undefined {
  return call.headers[name];
}

function parseJson(call: Call, onError: (message: string) => BankError): unknown {
  const text = call.raw.toString('utf8');
  if (!text.trim()) throw onError('The body is empty; send a JSON object.');
  try {
    return JSON.parse(text);
  } catch {
    throw onError('The body is not valid JSON.');
  }
}

function parseForm(call: Call): URLSearchParams {
  const type = header(call, 'content-type') ?? '';
  if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    throw oauthError(400, 'invalid_request', 'The token request must be form-encoded (Content-Type: application/x-www-form-urlencoded).');
  }
  return new URLSearchParams(call.raw.toString('utf8'));
}

function basicCredentials(call: Call): { id: string; secret: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(header(call, 'authorization') ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
}

/**
 * Where notifications go and where their delivery log is read: the local simulator's notifier
 * (deliveries in the background), or a deployed simulator's (deliveries once the state is stored).
 */
export interface DeliverySink {
  submit(notification: OutgoingNotification): void;
  /** Log lines after `afterSeq`. */
  records(afterSeq: number): DeliveryRecord[];
  clear(): void;
  /** Notifications held or being delivered. */
  readonly pending: number;
  /** Resolves true once nothing is held or in flight, false if `timeoutMs` passes first. */
  idle(timeoutMs: number): Promise<boolean>;
}

/** What the engine needs from whatever serves it. */
export interface SimulatorHost {
  /** Every URL and credential a client needs (GET /control/info). */
  info(): SimulatorInfo;
  readonly deliveries: DeliverySink;
  /** Trusts another CA for deliveries; a host that cannot throws a control error saying why. */
  trustCa(pem: string): void;
  /** Problems with faults this host cannot carry out (a deployed simulator cannot hold deliveries back for reordering). @default none */
  unsupportedFaults?(faults: SimulatorFaults): string[];
}

/** How the simulated bank behaves, wherever it runs. */
export interface SimulatedBankOptions {
  /** Access token lifetime (`expires_in`). @default 300 */
  readonly tokenLifetimeSeconds?: number;
  /** Notify payments at creation (status RECEBIDO). @default true */
  readonly notifyPaymentReceived?: boolean;
  /** Deliver a boleto event as one object or an array of one. @default 'object' */
  readonly boletoNotificationShape?: 'object' | 'array';
  /** GET contratos/ answers one object or an array. @default 'object' */
  readonly contractListShape?: 'object' | 'array';
  /** Faults in force from the start. @default none */
  readonly faults?: SimulatorFaults;
  /** Readings other than the manual's where the manual and clients differ (see behaviour.ts). @default the manual's */
  readonly behaviour?: Partial<BankBehaviour>;
}

export interface SimulatorEngineOptions extends SimulatedBankOptions {
  readonly accounts: readonly SimulatorAccount[];
  readonly credentials: BankCredentials;
  readonly host: SimulatorHost;
  /** Whether the payments token endpoint checks the client certificate (see TokenIssuerOptions). @default true */
  readonly mutualTls?: boolean;
}

/** Everything a simulator holds between requests, as plain JSON. */
export interface SimulatorState {
  readonly bank: BankState;
  readonly tokens: TokenState;
  readonly faults: FaultState;
  readonly behaviour: BankBehaviour;
  readonly clockOffsetMs: number;
  readonly staleRegistrations: ReadonlyArray<readonly [string, { readonly before: CallbackRegistration; readonly readsLeft: number }]>;
  readonly queryTally: Readonly<Record<QueryOperation, number>>;
}

const zeroTally = (): Record<QueryOperation, number> => ({ [QueryOperation.BOLETO_QUERY]: 0, [QueryOperation.PAYMENT_QUERY]: 0, [QueryOperation.SETTLED_LISTING]: 0 });

/**
 * The bank's side, faithful to the specification and BANK-NOTES.md: token endpoints (password
 * grant; client_credentials over mutual TLS), callback registration, boleto webhook contracts, the
 * query APIs, fault injection, and a control API for tests and demos.
 */
export class SimulatorEngine {
  readonly accounts: readonly SimulatorAccount[];
  readonly credentials: BankCredentials;
  readonly bank: Bank;
  private readonly tokens: TokenIssuer;
  private readonly faults = new FaultInjector();
  /** Callback registrations whose GETs still answer the value from before a PATCH (the `staleRegistrationReads` fault), by account. */
  private readonly staleRegistrations = new Map<string, { before: CallbackRegistration; readsLeft: number }>();
  private clockOffsetMs = 0;
  private behaviourNow: BankBehaviour = MANUAL_BEHAVIOUR;
  private queryTally = zeroTally();
  private readonly routes: Route[];
  private readonly host: SimulatorHost;

  constructor(options: SimulatorEngineOptions) {
    if (options.faults) this.faults.set(options.faults);
    if (options.behaviour) this.behaviourNow = changeBehaviour(MANUAL_BEHAVIOUR, options.behaviour);
    if (options.accounts.length === 0) throw new Error('The bank simulator needs at least one account: give accounts, or leave it out for the sample account.');
    this.accounts = options.accounts;
    this.credentials = options.credentials;
    this.host = options.host;
    const now = () => this.now();
    this.bank = new Bank({
      accounts: this.accounts,
      now,
      notify: (notification) => this.host.deliveries.submit(notification),
      notifyPaymentReceived: options.notifyPaymentReceived,
      boletoNotificationShape: options.boletoNotificationShape,
      contractListShape: options.contractListShape,
      behaviour: () => this.behaviourNow,
    });
    this.tokens = new TokenIssuer({ credentials: this.credentials, tokenLifetimeSeconds: options.tokenLifetimeSeconds, now, mutualTls: options.mutualTls });
    this.routes = [...this.bankRoutes(), ...this.controlRoutes()];
  }

  /** The simulated clock in ms: the wall clock moved by POST /control/clock. */
  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  /** Everything held, as plain JSON (a copy). */
  exportState(): SimulatorState {
    return structuredClone({
      bank: this.bank.exportState(),
      tokens: this.tokens.exportState(),
      faults: this.faults.exportState(),
      behaviour: this.behaviourNow,
      clockOffsetMs: this.clockOffsetMs,
      staleRegistrations: [...this.staleRegistrations.entries()],
      queryTally: this.queryTally,
    });
  }

  /** Takes back what {@link exportState} gave, in place of everything held now. */
  restoreState(state: SimulatorState): void {
    const copy = structuredClone<SimulatorState>(state);
    this.bank.restoreState(copy.bank);
    this.tokens.restoreState(copy.tokens);
    this.faults.restoreState(copy.faults);
    this.behaviourNow = copy.behaviour;
    this.clockOffsetMs = copy.clockOffsetMs;
    this.staleRegistrations.clear();
    for (const [key, value] of copy.staleRegistrations) this.staleRegistrations.set(key, { ...value });
    this.queryTally = { ...zeroTally(), ...copy.queryTally };
  }

  /** Queries and listings the bank has answered (or was refused by a fault after the count). */
  queryCounts(): Readonly<Record<QueryOperation, number>> {
    return { ...this.queryTally };
  }

  apiCallCounts() {
    return this.faults.counts;
  }

  get currentFaults(): SimulatorFaults {
    return this.faults.current;
  }

  /** Puts faults in force (checked; throws naming every problem). */
  setFaults(faults: SimulatorFaults): void {
    const unsupported = this.host.unsupportedFaults?.(faults) ?? [];
    if (unsupported.length) throw new Error(`Invalid faults: ${unsupported.join('; ')}.`);
    this.faults.set(faults);
  }

  /** The readings in force where the manual and clients differ. */
  get behaviour(): BankBehaviour {
    return this.behaviourNow;
  }

  /** Changes some readings (checked; throws naming every problem); the rest stay. */
  setBehaviour(changes: Partial<BankBehaviour>): BankBehaviour {
    this.behaviourNow = changeBehaviour(this.behaviourNow, changes);
    return this.behaviourNow;
  }

  /** Answers one request: the bank's error bodies for what it refuses, 500 for the simulator's own faults. */
  async handle(request: SimulatorRequest): Promise<SimulatorReply> {
    let reply: Reply;
    try {
      const url = new URL(request.url || '/', 'https://simulator.local');
      reply = await this.dispatch({ method: request.method, headers: request.headers, url, params: [], raw: request.body, certificate: request.certificate });
    } catch (error) {
      if (error instanceof BankError) reply = { status: error.status, body: error.body, headers: { ...error.headers } };
      else reply = { status: 500, body: { mensagem: `Simulator error: ${(error as Error).message}` } };
    }
    if (reply.status >= 400 && this.faults.current.echoRequests && !request.url.startsWith(SimulatorPaths.control)) {
      reply = { ...reply, body: echoRequest(reply.body, `${request.method} ${request.url} ${JSON.stringify(request.headers)} ${request.body.toString('utf8')}`) };
    }
    return reply;
  }

  private async dispatch(call: Call): Promise<Reply> {
    const path = call.url.pathname;
    const matches = this.routes.map((route) => ({ route, match: route.path.exec(path) })).filter((m) => m.match);
    if (matches.length === 0) throw gatewayError(404, `No resource at ${path}.`);
    const found = matches.find((m) => m.route.method === call.method);
    if (!found) {
      throw new BankError(405, { message: `Method ${call.method} is not allowed on ${path}.` }, { allow: [...new Set(matches.map((m) => m.route.method))].join(', ') });
    }
    const routed: Call = { ...call, params: found.match!.slice(1) };
    found.route.authenticate?.(routed);
    const answerInstead = found.route.group ? await this.faults.apply(found.route.group) : undefined;
    if (found.route.counted) this.queryTally[found.route.counted]++;
    const reply = await found.route.handle(routed);
    return answerInstead ? answerInstead() : reply;
  }

  /**
   * Collection API calls carry x-api-key, the bearer token, and the cooperativa and posto headers
   * (BANK-NOTES.md), each refused with the manual's status and text.
   */
  private collectionAuth(call: Call) {
    const apiKey = header(call, 'x-api-key');
    if (!apiKey) throw gatewayError(401, 'Could not find a required Access Token in the request, identified by HEADER x-api-key');
    if (apiKey !== this.credentials.collection.apiKey) throw gatewayError(401, 'Invalid ApiKey for given resource');
    const token = this.tokens.authenticate(header(call, 'authorization'), 'collection', [COLLECTION_SCOPE]);
    const missing = ['cooperativa', 'posto'].filter((name) => !header(call, name));
    if (missing.length) throw collectionError(400, 'CABECALHO_OBRIGATORIO', `Cabeçalho(s) obrigatório(s) ausente(s): ${missing.join(', ')}.`);
    this.bank.checkOwner(token, undefined, header(call, 'cooperativa'));
    return token;
  }

  /**
   * Payments API calls: the bearer token with a scope the operation takes (a query of one kind
   * its `consultar` scope, the callback registration a `pagar` one; any payments scope when the
   * behaviour is the looser reading), and the account headers.
   */
  private paymentsAuth(call: Call, queryKind?: string) {
    const scopes = this.behaviourNow.paymentScopes === PaymentScopeRule.ANY ? ALL_PAYMENT_SCOPES : queryKind ? [paymentQueryScope(queryKind)] : PAYMENT_SCOPES;
    this.tokens.authenticate(header(call, 'authorization'), 'payments', scopes);
    return this.bank.accountFor({
      conta: header(call, 'x-conta'),
      cooperativa: header(call, 'x-cooperativa'),
      documento: header(call, 'x-documento'),
    });
  }

  private bankRoutes(): Route[] {
    // A path of SimulatorPaths plus `rest` (a regular expression), with or without a final slash.
    const at = (path: string, rest = '') => new RegExp(`^${path}${rest}/?$`);
    const P = SimulatorPaths;
    const contractJson = (call: Call) => parseJson(call, (message) => collectionError(400, 'CORPO_INVALIDO', message));
    return [
      {
        method: 'POST', path: at(P.collectionToken), group: 'token',
        handle: (call) => ({
          status: 200,
          body: this.tokens.collectionGrant({ apiKey: header(call, 'x-api-key'), context: header(call, 'context') }, parseForm(call)),
        }),
      },
      {
        method: 'POST', path: at(P.paymentsToken), group: 'token',
        handle: (call) => ({ status: 200, body: this.tokens.paymentsGrant(parseForm(call), basicCredentials(call), call.certificate) }),
      },
      {
        method: 'GET', path: at(P.registrationBase, '/v1/associado/webhook'), group: 'registration', authenticate: (call) => this.paymentsAuth(call),
        handle: (call) => {
          const account = this.paymentsAuth(call);
          const key = `${account.cooperativa}/${account.conta}`;
          const stale = this.staleRegistrations.get(key);
          if (stale && stale.readsLeft > 0 && this.faults.current.staleRegistrationReads) {
            stale.readsLeft--;
            return { status: 200, body: { ...stale.before } };
          }
          return { status: 200, body: this.bank.getRegistration(account) };
        },
      },
      {
        method: 'PATCH', path: at(P.registrationBase, '/v1/associado/webhook'), group: 'registration', authenticate: (call) => this.paymentsAuth(call),
        handle: (call) => {
          const account = this.paymentsAuth(call);
          const before = this.bank.getRegistration(account);
          this.bank.patchRegistration(account, parseJson(call, (message) => validationErrors(400, [{ field: 'body', message }])));
          const lag = this.faults.current.staleRegistrationReads ?? 0;
          const key = `${account.cooperativa}/${account.conta}`;
          if (lag > 0) this.staleRegistrations.set(key, { before, readsLeft: lag });
          else this.staleRegistrations.delete(key);
          return { status: 204 };
        },
      },
      {
        method: 'GET', path: at(P.registrationBase, `/v1/pagamentos/(${PAYMENT_KINDS.join('|')})/([^/]+)`), group: 'query', counted: QueryOperation.PAYMENT_QUERY,
        authenticate: (call) => this.paymentsAuth(call, call.params[0]),
        handle: (call) => {
          const account = this.paymentsAuth(call, call.params[0]);
          return { status: 200, body: paymentBody(this.bank.queryPayment(account, call.params[0], decodeURIComponent(call.params[1]))) };
        },
      },
      {
        method: 'POST', path: at(P.contract), group: 'contract', authenticate: (call) => this.collectionAuth(call),
        handle: (call) => ({ status: 201, body: this.bank.createContract(this.collectionAuth(call), contractJson(call)) }),
      },
      {
        method: 'GET', path: at(P.contracts), group: 'contract', authenticate: (call) => this.collectionAuth(call),
        handle: (call) => ({ status: 200, body: this.bank.listContracts(this.collectionAuth(call), call.url.searchParams) }),
      },
      ...(['PUT', 'PATCH'] as const).map((method): Route => ({
        method, path: at(P.contract, '/([^/]+)'), group: 'contract', authenticate: (call) => this.collectionAuth(call),
        handle: (call) => {
          const token = this.collectionAuth(call);
          return { status: 200, body: this.bank.updateContract(token, decodeURIComponent(call.params[0]), contractJson(call), method) };
        },
      })),
      {
        method: 'GET', path: at(P.settledByDay), group: 'query', counted: QueryOperation.SETTLED_LISTING, authenticate: (call) => this.collectionAuth(call),
        handle: (call) => ({ status: 200, body: this.bank.listSettledOnDay(this.collectionAuth(call), call.url.searchParams) }),
      },
      {
        method: 'GET', path: at(P.boletoQuery), group: 'query', counted: QueryOperation.BOLETO_QUERY, authenticate: (call) => this.collectionAuth(call),
        handle: (call) => {
          const boleto = this.bank.queryBoleto(this.collectionAuth(call), call.url.searchParams);
          const b = this.behaviourNow;
          return { status: 200, body: b.boletoQueryShape === BoletoQueryShape.FLAT ? boletoQueryBodyFlat(boleto, b.settlementTimestamp) : boletoQueryBody(boleto) };
        },
      },
    ];
  }

  private controlRoutes(): Route[] {
    const json = (call: Call): Record<string, unknown> => {
      if (call.raw.length === 0) return {};
      const value = parseJson(call, (message) => controlError(400, message));
      if (!value || typeof value !== 'object' || Array.isArray(value)) throw controlError(400, 'The body must be a JSON object.');
      return value as Record<string, unknown>;
    };
    const ok = (body: unknown, status = 200): Reply => ({ status, body });
    const boletoView = (nossoNumero: string) => {
      const boleto = this.bank.getBoleto(nossoNumero);
      return { ...boleto, liquidacao: boleto.liquidacao ?? null };
    };
    return [
      { method: 'GET', path: /^\/control\/info\/?$/, handle: () => ok(this.host.info()) },
      {
        method: 'POST', path: /^\/control\/boletos\/?$/,
        handle: (call) => ok(this.bank.createBoleto(json(call) as never), 201),
      },
      { method: 'GET', path: /^\/control\/boletos\/([^/]+)\/?$/, handle: (call) => ok(boletoView(call.params[0])) },
      {
        method: 'POST', path: /^\/control\/boletos\/([^/]+)\/(settle|reverse|reject|cancel)\/?$/,
        handle: (call) => {
          const { notification } = this.bank.changeBoleto(call.params[0], call.params[1] as BoletoAction, json(call));
          return ok({ boleto: boletoView(call.params[0]), notificationId: notification.id, notification: notification.body, skipped: notification.skipped ?? null });
        },
      },
      {
        method: 'POST', path: /^\/control\/payments\/?$/,
        handle: (call) => {
          const { payment, notification } = this.bank.createPayment(json(call) as never);
          return ok({ payment: paymentBody(payment), tipo: payment.kind, notificationId: notification?.id ?? null, skipped: notification?.skipped ?? null }, 201);
        },
      },
      {
        method: 'GET', path: /^\/control\/payments\/([^/]+)\/([^/]+)\/?$/,
        handle: (call) => ok({ payment: paymentBody(this.bank.getPayment(call.params[0], decodeURIComponent(call.params[1]))), tipo: call.params[0] }),
      },
      {
        method: 'POST', path: /^\/control\/payments\/([^/]+)\/([^/]+)\/(settle|reverse|reject|cancel)\/?$/,
        handle: (call) => {
          const { payment, notification } = this.bank.changePayment(call.params[0], decodeURIComponent(call.params[1]), call.params[2] as PaymentAction, json(call));
          return ok({ payment: paymentBody(payment), tipo: payment.kind, notificationId: notification.id, skipped: notification.skipped ?? null });
        },
      },
      {
        method: 'GET', path: /^\/control\/deliveries\/?$/,
        handle: (call) => ok({ deliveries: this.host.deliveries.records(Number(call.url.searchParams.get('after') ?? 0) || 0), pending: this.host.deliveries.pending }),
      },
      { method: 'DELETE', path: /^\/control\/deliveries\/?$/, handle: () => (this.host.deliveries.clear(), { status: 204 }) },
      {
        method: 'POST', path: /^\/control\/deliveries\/wait\/?$/,
        handle: async (call) => {
          const timeoutMs = Number(json(call).timeoutMs ?? 30_000);
          if (!(timeoutMs >= 0 && timeoutMs <= 600_000)) throw controlError(400, 'timeoutMs must be between 0 and 600000.');
          const idle = await this.host.deliveries.idle(timeoutMs);
          return ok({ idle, pending: this.host.deliveries.pending });
        },
      },
      { method: 'GET', path: /^\/control\/faults\/?$/, handle: () => ok(this.faults.current) },
      { method: 'GET', path: /^\/control\/behaviour\/?$/, handle: () => ok(this.behaviourNow) },
      {
        method: 'PUT', path: /^\/control\/behaviour\/?$/,
        handle: (call) => {
          try {
            return ok(this.setBehaviour(json(call)));
          } catch (error) {
            throw controlError(400, (error as Error).message);
          }
        },
      },
      { method: 'DELETE', path: /^\/control\/behaviour\/?$/, handle: () => ok((this.behaviourNow = MANUAL_BEHAVIOUR)) },
      {
        method: 'PUT', path: /^\/control\/faults\/?$/,
        handle: (call) => {
          try {
            this.setFaults(json(call));
          } catch (error) {
            throw controlError(400, (error as Error).message);
          }
          return ok(this.faults.current);
        },
      },
      { method: 'GET', path: /^\/control\/api-calls\/?$/, handle: () => ok(this.faults.counts) },
      { method: 'DELETE', path: /^\/control\/faults\/?$/, handle: () => (this.setFaults({}), { status: 204 }) },
      {
        method: 'POST', path: /^\/control\/clock\/?$/,
        handle: (call) => {
          const seconds = json(call).advanceSeconds;
          if (!(typeof seconds === 'number' && seconds >= 0)) throw controlError(400, 'advanceSeconds must be a number >= 0.');
          this.clockOffsetMs += seconds * 1000;
          return ok({ offsetSeconds: this.clockOffsetMs / 1000 });
        },
      },
      { method: 'GET', path: /^\/control\/contracts\/?$/, handle: () => ok({ contracts: this.bank.allContracts() }) },
      { method: 'GET', path: /^\/control\/registrations\/?$/, handle: () => ok({ registrations: this.bank.allRegistrations() }) },
      // The bank changing a registration on its own: deactivated, blocked, re-pointed (BANK-NOTES.md).
      { method: 'PATCH', path: /^\/control\/contracts\/(\d+)\/?$/, handle: (call) => ok(this.bank.driftContract(Number(call.params[0]), json(call))) },
      { method: 'PATCH', path: /^\/control\/registrations\/([^/]+)\/([^/]+)\/?$/, handle: (call) => ok(this.bank.driftRegistration(decodeURIComponent(call.params[0]), decodeURIComponent(call.params[1]), json(call))) },
      {
        method: 'POST', path: /^\/control\/trusted-cas\/?$/,
        handle: (call) => {
          const pem = json(call).pem;
          if (typeof pem !== 'string' || !pem.includes('-----BEGIN CERTIFICATE-----')) throw controlError(400, 'pem must be a PEM certificate.');
          this.host.trustCa(pem);
          return { status: 204 };
        },
      },
    ];
  }
}
