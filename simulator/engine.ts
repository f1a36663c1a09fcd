/**
 * The simulated bank's HTTP surface without a server: the bank's routes and the control API over
 * one state (the bank, tokens, faults, behaviour, clock), answering a request with a reply. The
 * local HTTPS simulator serves it from one process; a deployed simulator (BankSandbox) rebuilds it
 * from its stored state for every request, so its state is exported and restored as plain JSON.
 */
import { SIMULATOR_PATHS } from '../contracts/sandbox';
import { Bank, type BankState } from './bank';
import { type BankBehaviour, changeBehaviour, MANUAL_BEHAVIOUR } from './behaviour';
import { BankRoutes } from './bank-routes';
import { controlJson, controlRoutes } from './control-routes';
import { BankError, gatewayError } from './errors';
import { FaultInjector, type FaultState, type SimulatorFaults } from './faults';
import { type CallbackRegistration, pixKeysOf, type SimulatorAccount } from './model';
import { PixBook, type PixState } from './pix/pix-book';
import { PixCallbacks } from './pix/pix-callbacks';
import { pixControlRoutes } from './pix/pix-control-routes';
import { PixRoutes } from './pix/pix-routes';
import { RecurringBook } from './pix/recurring-book';
import { RecurringCallbacks } from './pix/recurring-callbacks';
import { recurringControlRoutes } from './pix/recurring-control-routes';
import { recurringReceiverOf, type RecurringState } from './pix/recurring-model';
import { recurringRoutes } from './pix/recurring-routes';
import { type Call, echoRequest, QueryOperation, type Route, type SimulatorHost, type SimulatorReply } from './routes';
import { type BankCredentials, type ClientCertificateInfo, TokenIssuer, type TokenState } from './tokens';

export { type DeliverySink, QueryOperation, type SimulatorHost, type SimulatorReply } from './routes';

/** Paths of the simulated bank, relative to its origin (cdk-bank-webhooks/docs/bank-api.md). */
export const SimulatorPaths = SIMULATOR_PATHS;

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
  readonly staleRegistrations: ReadonlyArray<
    readonly [string, { readonly before: CallbackRegistration; readonly readsLeft: number }]
  >;
  readonly queryTally: Readonly<Record<QueryOperation, number>>;
  /** The Pix API's book. @default empty (a state stored before the simulator spoke the Pix API) */
  readonly pix?: PixState;
  /** Pix Automático's book. @default empty (a state stored before the simulator spoke it) */
  readonly recurring?: RecurringState;
}

const zeroTally = (): Record<QueryOperation, number> =>
  Object.fromEntries(Object.values(QueryOperation).map((operation) => [operation, 0])) as Record<
    QueryOperation,
    number
  >;

/**
 * The bank's side, faithful to the specification and cdk-bank-webhooks/docs/bank-api.md: token endpoints (password
 * grant; client_credentials over mutual TLS), callback registration, boleto webhook contracts, the
 * query APIs, fault injection, and a control API for tests and demos.
 */
export class SimulatorEngine {
  readonly accounts: readonly SimulatorAccount[];
  readonly credentials: BankCredentials;
  readonly bank: Bank;
  /** The standard Pix API's book: the keys of every account (or sample ones), their webhooks, charges and Pix. */
  readonly pix: PixBook;
  /** Pix Automático's book: the account's recurring webhooks, recurrences and recurring charges. */
  readonly recurring: RecurringBook;
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
    if (options.accounts.length === 0)
      throw new Error(
        'The bank simulator needs at least one account: give accounts, or leave it out for the sample account.',
      );
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
    this.tokens = new TokenIssuer({
      credentials: this.credentials,
      tokenLifetimeSeconds: options.tokenLifetimeSeconds,
      now,
      mutualTls: options.mutualTls,
    });
    const behaviour = () => this.behaviourNow;
    const bankRoutes = new BankRoutes({
      bank: this.bank,
      tokens: this.tokens,
      credentials: this.credentials,
      faults: this.faults,
      staleRegistrations: this.staleRegistrations,
      behaviour,
    });
    this.pix = new PixBook({
      keys: pixKeysOf(this.accounts),
      now,
      isRecurring: (endToEndId) => this.recurring.paidARecurringCharge(endToEndId),
    });
    const pixCallbacks = new PixCallbacks({
      book: this.pix,
      behaviour,
      notify: (notification) => this.host.deliveries.submit(notification),
    });
    this.recurring = new RecurringBook({ receiver: recurringReceiverOf(this.accounts[0]), now, pix: this.pix });
    const pixOf = (endToEndId: string) => this.pix.getPix(endToEndId);
    const recurringCallbacks = new RecurringCallbacks({
      webhooks: this.recurring.webhooks,
      pixOf,
      behaviour,
      notify: (notification) => this.host.deliveries.submit(notification),
    });
    this.routes = [
      ...bankRoutes.routes(),
      ...new PixRoutes({ book: this.pix, tokens: this.tokens, behaviour }).routes(),
      ...recurringRoutes({ book: this.recurring, tokens: this.tokens, pixOf, behaviour }),
      ...pixControlRoutes({ book: this.pix, callbacks: pixCallbacks, json: controlJson, now }),
      ...recurringControlRoutes({
        book: this.recurring,
        callbacks: recurringCallbacks,
        pixCallbacks,
        json: controlJson,
      }),
      ...controlRoutes({
        bank: this.bank,
        host: this.host,
        faults: this.faults,
        behaviour,
        setBehaviour: (changes) => this.setBehaviour(changes),
        resetBehaviour: () => (this.behaviourNow = MANUAL_BEHAVIOUR),
        setFaults: (faults) => this.setFaults(faults),
        advanceClock: (seconds) => (this.clockOffsetMs += seconds * 1000) / 1000,
      }),
    ];
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
      pix: this.pix.exportState(),
      recurring: this.recurring.exportState(),
    });
  }

  /** Takes back what {@link exportState} gave, in place of everything held now. */
  restoreState(state: SimulatorState): void {
    const copy = structuredClone<SimulatorState>(state);
    this.bank.restoreState(copy.bank);
    this.tokens.restoreState(copy.tokens);
    this.faults.restoreState(copy.faults);
    // A state stored before a setting existed takes that setting's default.
    this.behaviourNow = { ...MANUAL_BEHAVIOUR, ...copy.behaviour };
    this.clockOffsetMs = copy.clockOffsetMs;
    this.staleRegistrations.clear();
    for (const [key, value] of copy.staleRegistrations) this.staleRegistrations.set(key, { ...value });
    this.queryTally = { ...zeroTally(), ...copy.queryTally };
    this.pix.restoreState(copy.pix ?? { webhooks: [], charges: [], pix: [] });
    this.recurring.restoreState(copy.recurring ?? { webhooks: {}, recs: [], cobrs: [] });
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
    let reply: SimulatorReply;
    try {
      const url = new URL(request.url || '/', 'https://simulator.local');
      reply = await this.dispatch({
        method: request.method,
        headers: request.headers,
        url,
        params: [],
        raw: request.body,
        certificate: request.certificate,
      });
    } catch (error) {
      if (error instanceof BankError) reply = { status: error.status, body: error.body, headers: { ...error.headers } };
      else reply = { status: 500, body: { mensagem: `Simulator error: ${(error as Error).message}` } };
    }
    if (reply.status >= 400 && this.faults.current.echoRequests && !request.url.startsWith(SimulatorPaths.control)) {
      reply = {
        ...reply,
        body: echoRequest(
          reply.body,
          `${request.method} ${request.url} ${JSON.stringify(request.headers)} ${request.body.toString('utf8')}`,
        ),
      };
    }
    return reply;
  }

  private async dispatch(call: Call): Promise<SimulatorReply> {
    const path = call.url.pathname;
    const matches = this.routes.map((route) => ({ route, match: route.path.exec(path) })).filter((m) => m.match);
    if (matches.length === 0) throw gatewayError(404, `No resource at ${path}.`);
    const found = matches.find((m) => m.route.method === call.method);
    if (!found) {
      throw new BankError(
        405,
        { message: `Method ${call.method} is not allowed on ${path}.` },
        { allow: [...new Set(matches.map((m) => m.route.method))].join(', ') },
      );
    }
    const routed: Call = { ...call, params: found.match!.slice(1) };
    found.route.authenticate?.(routed);
    const answerInstead = found.route.group ? await this.faults.apply(found.route.group) : undefined;
    if (found.route.counted) this.queryTally[found.route.counted]++;
    const reply = await found.route.handle(routed);
    return answerInstead ? answerInstead() : reply;
  }
}
