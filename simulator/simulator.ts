import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { Bank, type BoletoAction, type BoletoChangeInput, type PaymentAction } from './bank';
import { createCertificateAuthority, issueCertificate, type PemPair } from './certificates';
import { BankSimulatorClient } from './control-client';
import type { SimulatorInfo } from './info';
import { BankError, collectionError, controlError, gatewayError, HtmlPage, oauthError, validationErrors } from './errors';
import { type ApiCallCounts, FaultInjector, type ApiGroup, type SimulatorFaults } from './faults';
import { type BankBehaviour, BoletoQueryShape, changeBehaviour, MANUAL_BEHAVIOUR, PaymentScopeRule } from './behaviour';
import {
  type CallbackRegistration,
  ALL_PAYMENT_SCOPES, boletoQueryBody, boletoQueryBodyFlat, COLLECTION_SCOPE, PAYMENT_KINDS, PAYMENT_QUERY_SCOPES, PAYMENT_SCOPES, paymentBody, paymentQueryScope,
  type SimulatorAccount,
} from './model';
import { Notifier } from './notifier';
import { TokenIssuer, type BankCredentials, type ClientCertificateInfo } from './tokens';

/** Paths of the simulated bank, relative to its origin (BANK-NOTES.md). */
export const SimulatorPaths = {
  collectionToken: '/auth/openapi/token',
  paymentsToken: '/thirdparty/auth/token',
  /** `{registration_base_url}`: the base that the callback registration and payment queries hang off. */
  registrationBase: '/pagamentos',
  contract: '/cobranca/boleto/v1/webhook/contrato',
  contracts: '/cobranca/boleto/v1/webhook/contratos',
  boletoQuery: '/cobranca/boleto/v1/boletos',
  /** Boletos settled on a day (BANK-NOTES.md, listing APIs). */
  settledByDay: '/cobranca/boleto/v1/boletos/liquidados/dia',
  control: '/control',
} as const;

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

export interface BankSimulatorOptions {
  /** Port to listen on; 0 picks a free one. @default 0 */
  readonly port?: number;
  /** Interface to listen on. @default '127.0.0.1' */
  readonly host?: string;
  /** CA that issues the server and client certificates. @default a CA generated at start */
  readonly ca?: PemPair;
  /** Extra names and addresses for the server certificate. @default localhost, 127.0.0.1 and ::1 only */
  readonly hosts?: readonly string[];
  /** Folder for ca.crt, client.crt and client.key. @default a new temporary folder, removed by stop() */
  readonly dir?: string;
  /** Accounts the bank knows. @default one sample account */
  readonly accounts?: readonly SimulatorAccount[];
  /** Credentials the bank accepts. @default generated at start (printed by `simulate`) */
  readonly credentials?: BankCredentials;
  /** Extra CAs (PEM) the notifier trusts besides the public roots, for local receivers. @default none */
  readonly trustedCas?: readonly string[];
  /** The bank's delivery deadline. Shorten it in tests only. @default 10000 */
  readonly deliveryTimeoutMs?: number;
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

/** The sample account of a simulator started without `accounts`. */
export const SAMPLE_ACCOUNT: SimulatorAccount = { cooperativa: '0101', posto: '02', conta: '123456', documento: '12345678000199', beneficiario: '54321' };

type Reply = { status: number; body?: unknown; headers?: Record<string, string> };

interface Call {
  readonly req: IncomingMessage;
  readonly url: URL;
  readonly params: string[];
  readonly raw: Buffer;
}

interface Route {
  readonly method: string;
  readonly path: RegExp;
  readonly group?: ApiGroup;
  /** Counted by name in {@link BankSimulator.queryCounts} (queries and listings). */
  readonly counted?: QueryOperation;
  readonly handle: (call: Call) => Reply | Promise<Reply>;
}

/** The bank's read operations a client can be held to account for: how many of each it made. */
export enum QueryOperation {
  BOLETO_QUERY = 'boletoQuery',
  PAYMENT_QUERY = 'paymentQuery',
  SETTLED_LISTING = 'settledListing',
}

const MAX_BODY_BYTES = 1024 * 1024;

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
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
  const type = header(call.req, 'content-type') ?? '';
  if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    throw oauthError(400, 'invalid_request', 'The token request must be form-encoded (Content-Type: application/x-www-form-urlencoded).');
  }
  return new URLSearchParams(call.raw.toString('utf8'));
}

function basicCredentials(req: IncomingMessage): { id: string; secret: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(header(req, 'authorization') ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
}

function clientCertificate(req: IncomingMessage): ClientCertificateInfo {
  const socket = req.socket as TLSSocket;
  const cert = socket.getPeerCertificate();
  const presented = !!cert && Object.keys(cert).length > 0;
  const cn = presented ? cert.subject?.CN : undefined;
  return { presented, trusted: presented && socket.authorized, commonName: Array.isArray(cn) ? cn[0] : cn };
}

function defaultCredentials(account: SimulatorAccount): BankCredentials {
  return {
    collection: { apiKey: randomUUID(), username: account.beneficiario + account.cooperativa, password: randomBytes(9).toString('base64url') },
    payments: { clientId: `simulator-client-${randomBytes(4).toString('hex')}`, clientSecret: randomBytes(18).toString('base64url') },
  };
}

/**
 * The bank's side, local and faithful to the specification and BANK-NOTES.md: token endpoints
 * (password grant; client_credentials over mutual TLS), callback registration, boleto webhook
 * contracts, the query APIs, a notifier that delivers by the bank's rules, fault injection, and
 * a control API for tests and demos. HTTPS only (TLS 1.2+), with its own CA.
 */
export class BankSimulator {
  /** Starts a simulator; `stop()` it when done. */
  static async start(options: BankSimulatorOptions = {}): Promise<BankSimulator> {
    const simulator = new BankSimulator(options);
    const port = options.port ?? 0;
    const host = options.host ?? '127.0.0.1';
    try {
      await simulator.listen(port, host);
    } catch (error) {
      await simulator.stop();
      const code = (error as NodeJS.ErrnoException).code;
      const hint = code === 'EADDRINUSE' ? ' Pick another port (--port), or 0 for a free one.' : '';
      throw new Error(`The bank simulator cannot listen on ${host}:${port}: ${(error as Error).message}.${hint}`, { cause: error });
    }
    return simulator;
  }

  readonly caPem: string;
  readonly clientCertPem: string;
  readonly clientKeyPem: string;
  readonly caFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  readonly credentials: BankCredentials;
  readonly accounts: readonly SimulatorAccount[];

  private readonly server: Server;
  private readonly bank: Bank;
  private readonly tokens: TokenIssuer;
  private readonly notifier: Notifier;
  private readonly faults = new FaultInjector();
  /** Callback registrations whose GETs still answer the value from before a PATCH (the `staleRegistrationReads` fault), by account. */
  private readonly staleRegistrations = new Map<string, { before: CallbackRegistration; readsLeft: number }>();
  private readonly trustedCas: string[];
  private readonly ownsDir: boolean;
  private readonly dir: string;
  private clockOffsetMs = 0;
  private behaviourNow: BankBehaviour = MANUAL_BEHAVIOUR;
  private origin?: string;
  private readonly routes: Route[];
  private controlClient?: BankSimulatorClient;

  private constructor(options: BankSimulatorOptions) {
    // Checked before any key or file is made.
    if (options.faults) this.faults.set(options.faults);
    if (options.behaviour) this.behaviourNow = changeBehaviour(MANUAL_BEHAVIOUR, options.behaviour);
    if (options.accounts?.length === 0) throw new Error('The bank simulator needs at least one account: give accounts, or leave it out for the sample account.');
    this.accounts = options.accounts ?? [SAMPLE_ACCOUNT];
    this.credentials = options.credentials ?? defaultCredentials(this.accounts[0]);
    const ca = options.ca ?? createCertificateAuthority('cdk-bank-webhooks bank simulator CA');
    const server = issueCertificate(ca, { commonName: 'localhost', hosts: ['localhost', '127.0.0.1', '::1', ...(options.hosts ?? [])] });
    const client = issueCertificate(ca, { commonName: this.credentials.payments.clientId, client: true });
    this.caPem = ca.certPem;
    this.clientCertPem = client.certPem;
    this.clientKeyPem = client.keyPem;
    this.ownsDir = !options.dir;
    this.dir = options.dir ?? mkdtempSync(join(tmpdir(), 'bank-simulator-'));
    mkdirSync(this.dir, { recursive: true });
    this.caFile = join(this.dir, 'ca.crt');
    this.clientCertFile = join(this.dir, 'client.crt');
    this.clientKeyFile = join(this.dir, 'client.key');
    writeFileSync(this.caFile, this.caPem);
    writeFileSync(this.clientCertFile, this.clientCertPem);
    writeFileSync(this.clientKeyFile, this.clientKeyPem, { mode: 0o600 });
    this.trustedCas = [...(options.trustedCas ?? [])];
    const now = () => Date.now() + this.clockOffsetMs;
    this.notifier = new Notifier({
      trustedCas: () => this.trustedCas,
      deliveryTimeoutMs: options.deliveryTimeoutMs ?? 10_000,
      faults: () => this.faults.current,
    });
    this.bank = new Bank({
      accounts: this.accounts,
      now,
      notify: (notification) => this.notifier.submit(notification),
      notifyPaymentReceived: options.notifyPaymentReceived,
      boletoNotificationShape: options.boletoNotificationShape,
      contractListShape: options.contractListShape,
      behaviour: () => this.behaviourNow,
    });
    this.tokens = new TokenIssuer({ credentials: this.credentials, tokenLifetimeSeconds: options.tokenLifetimeSeconds, now });
    this.routes = [...this.bankRoutes(), ...this.controlRoutes()];
    this.server = createServer(
      { key: server.keyPem, cert: server.certPem, ca: [this.caPem], requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2' },
      (req, res) => void this.handle(req, res),
    );
  }

  private listen(port: number, host: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const address = this.server.address() as AddressInfo;
        // A wildcard address is reached through loopback, which the certificate names.
        const shown = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '[::1]' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
        this.origin = `https://${shown}:${address.port}`;
        resolve();
      });
    });
  }

  /** `https://127.0.0.1:<port>`: the `base_url` of the collection API. */
  get baseUrl(): string {
    if (!this.origin) throw new Error('The bank simulator is not listening yet: use BankSimulator.start().');
    return this.origin;
  }

  get info(): SimulatorInfo {
    return {
      baseUrl: this.baseUrl,
      registrationBaseUrl: this.baseUrl + SimulatorPaths.registrationBase,
      collectionTokenUrl: this.baseUrl + SimulatorPaths.collectionToken,
      paymentsTokenUrl: this.baseUrl + SimulatorPaths.paymentsToken,
      controlUrl: this.baseUrl + SimulatorPaths.control,
      caFile: this.caFile,
      clientCertFile: this.clientCertFile,
      clientKeyFile: this.clientKeyFile,
      accounts: this.accounts,
      credentials: this.credentials,
      scopes: { collection: COLLECTION_SCOPE, payments: PAYMENT_SCOPES, paymentQueries: PAYMENT_QUERY_SCOPES },
    };
  }

  /** A typed client of the control API (works the same against `npx cdk-bank-webhooks simulate`). */
  get control(): BankSimulatorClient {
    this.controlClient ??= new BankSimulatorClient(this.baseUrl, this.caPem);
    return this.controlClient;
  }

  /** Trusts another CA for deliveries (a local receiver's). */
  trustCa(pem: string): void {
    if (!this.trustedCas.includes(pem)) this.trustedCas.push(pem);
  }

  /**
   * Changes a boleto and notifies, in this process (what `POST /control/boletos/{n}/{action}`
   * does, without an HTTPS call): for a load generator sharing the simulator's process, whose
   * control calls would otherwise compete with the deliveries it measures.
   */
  changeBoleto(nossoNumero: string, action: BoletoAction, input: BoletoChangeInput = {}): { notificationId: string } {
    return { notificationId: this.bank.changeBoleto(nossoNumero, action, input).notification.id };
  }

  private readonly queryTally: Record<QueryOperation, number> = { [QueryOperation.BOLETO_QUERY]: 0, [QueryOperation.PAYMENT_QUERY]: 0, [QueryOperation.SETTLED_LISTING]: 0 };

  /** Queries and listings the bank has answered since it started (or was refused by a fault after the count). */
  queryCounts(): Readonly<Record<QueryOperation, number>> {
    return { ...this.queryTally };
  }

  /** API calls answered per part, and how many were refused for the rate limit, since faults were last set. */
  apiCallCounts(): ApiCallCounts {
    return this.faults.counts;
  }

  setFaults(faults: SimulatorFaults): void {
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

  /** Stops listening, abandons deliveries in flight, removes its temporary folder. */
  async stop(): Promise<void> {
    this.controlClient?.close();
    this.notifier.close();
    this.server.closeAllConnections();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (this.ownsDir) rmSync(this.dir, { recursive: true, force: true });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let reply: Reply;
    let raw: Buffer = Buffer.alloc(0);
    try {
      const url = new URL(req.url ?? '/', 'https://simulator.local');
      raw = await this.readBody(req);
      reply = await this.dispatch({ req, url, params: [], raw });
    } catch (error) {
      if (error instanceof BankError) reply = { status: error.status, body: error.body, headers: { ...error.headers } };
      else reply = { status: 500, body: { mensagem: `Simulator error: ${(error as Error).message}` } };
    }
    if (reply.status >= 400 && this.faults.current.echoRequests && !(req.url ?? '').startsWith(SimulatorPaths.control)) {
      reply = { ...reply, body: echoRequest(reply.body, `${req.method ?? ''} ${req.url ?? ''} ${JSON.stringify(req.headers)} ${raw.toString('utf8')}`) };
    }
    if (res.destroyed) return;
    const html = reply.body instanceof HtmlPage;
    const body = reply.body instanceof HtmlPage ? reply.body.html : reply.body === undefined ? '' : JSON.stringify(reply.body);
    res.writeHead(reply.status, { ...(body ? { 'content-type': html ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8' } : {}), ...reply.headers });
    res.end(body);
  }

  private async readBody(req: IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) throw gatewayError(413, 'Request body too large.');
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  }

  private async dispatch(call: Call): Promise<Reply> {
    const path = call.url.pathname;
    const matches = this.routes.map((route) => ({ route, match: route.path.exec(path) })).filter((m) => m.match);
    if (matches.length === 0) throw gatewayError(404, `No resource at ${path}.`);
    const found = matches.find((m) => m.route.method === call.req.method);
    if (!found) {
      throw new BankError(405, { message: `Method ${call.req.method} is not allowed on ${path}.` }, { allow: [...new Set(matches.map((m) => m.route.method))].join(', ') });
    }
    const answerInstead = found.route.group ? await this.faults.apply(found.route.group) : undefined;
    if (found.route.counted) this.queryTally[found.route.counted]++;
    const reply = await found.route.handle({ ...call, params: found.match!.slice(1) });
    return answerInstead ? answerInstead() : reply;
  }

  /**
   * Collection API calls carry x-api-key, the bearer token, and the cooperativa and posto headers
   * (BANK-NOTES.md), each refused with the manual's status and text.
   */
  private collectionAuth(call: Call) {
    const apiKey = header(call.req, 'x-api-key');
    if (!apiKey) throw gatewayError(401, 'Could not find a required Access Token in the request, identified by HEADER x-api-key');
    if (apiKey !== this.credentials.collection.apiKey) throw gatewayError(401, 'Invalid ApiKey for given resource');
    const token = this.tokens.authenticate(header(call.req, 'authorization'), 'collection', [COLLECTION_SCOPE]);
    const missing = ['cooperativa', 'posto'].filter((name) => !header(call.req, name));
    if (missing.length) throw collectionError(400, 'CABECALHO_OBRIGATORIO', `Cabeçalho(s) obrigatório(s) ausente(s): ${missing.join(', ')}.`);
    this.bank.checkOwner(token, undefined, header(call.req, 'cooperativa'));
    return token;
  }

  /**
   * Payments API calls: the bearer token with a scope the operation takes (a query of one kind
   * its `consultar` scope, the callback registration a `pagar` one; any payments scope when the
   * behaviour is the looser reading), and the account headers.
   */
  private paymentsAuth(call: Call, queryKind?: string) {
    const scopes = this.behaviourNow.paymentScopes === PaymentScopeRule.ANY ? ALL_PAYMENT_SCOPES : queryKind ? [paymentQueryScope(queryKind)] : PAYMENT_SCOPES;
    this.tokens.authenticate(header(call.req, 'authorization'), 'payments', scopes);
    return this.bank.accountFor({
      conta: header(call.req, 'x-conta'),
      cooperativa: header(call.req, 'x-cooperativa'),
      documento: header(call.req, 'x-documento'),
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
          body: this.tokens.collectionGrant({ apiKey: header(call.req, 'x-api-key'), context: header(call.req, 'context') }, parseForm(call)),
        }),
      },
      {
        method: 'POST', path: at(P.paymentsToken), group: 'token',
        handle: (call) => ({ status: 200, body: this.tokens.paymentsGrant(parseForm(call), basicCredentials(call.req), clientCertificate(call.req)) }),
      },
      {
        method: 'GET', path: at(P.registrationBase, '/v1/associado/webhook'), group: 'registration',
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
        method: 'PATCH', path: at(P.registrationBase, '/v1/associado/webhook'), group: 'registration',
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
        handle: (call) => {
          const account = this.paymentsAuth(call, call.params[0]);
          return { status: 200, body: paymentBody(this.bank.queryPayment(account, call.params[0], decodeURIComponent(call.params[1]))) };
        },
      },
      {
        method: 'POST', path: at(P.contract), group: 'contract',
        handle: (call) => ({ status: 201, body: this.bank.createContract(this.collectionAuth(call), contractJson(call)) }),
      },
      {
        method: 'GET', path: at(P.contracts), group: 'contract',
        handle: (call) => ({ status: 200, body: this.bank.listContracts(this.collectionAuth(call), call.url.searchParams) }),
      },
      ...(['PUT', 'PATCH'] as const).map((method): Route => ({
        method, path: at(P.contract, '/([^/]+)'), group: 'contract',
        handle: (call) => {
          const token = this.collectionAuth(call);
          return { status: 200, body: this.bank.updateContract(token, decodeURIComponent(call.params[0]), contractJson(call), method) };
        },
      })),
      {
        method: 'GET', path: at(P.settledByDay), group: 'query', counted: QueryOperation.SETTLED_LISTING,
        handle: (call) => ({ status: 200, body: this.bank.listSettledOnDay(this.collectionAuth(call), call.url.searchParams) }),
      },
      {
        method: 'GET', path: at(P.boletoQuery), group: 'query', counted: QueryOperation.BOLETO_QUERY,
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
      { method: 'GET', path: /^\/control\/info\/?$/, handle: () => ok(this.info) },
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
        handle: (call) => ok({ deliveries: this.notifier.records(Number(call.url.searchParams.get('after') ?? 0) || 0), pending: this.notifier.pending }),
      },
      { method: 'DELETE', path: /^\/control\/deliveries\/?$/, handle: () => (this.notifier.clear(), { status: 204 }) },
      {
        method: 'POST', path: /^\/control\/deliveries\/wait\/?$/,
        handle: async (call) => {
          const timeoutMs = Number(json(call).timeoutMs ?? 30_000);
          if (!(timeoutMs >= 0 && timeoutMs <= 600_000)) throw controlError(400, 'timeoutMs must be between 0 and 600000.');
          const idle = await this.notifier.idle(timeoutMs);
          return ok({ idle, pending: this.notifier.pending });
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
            this.faults.set(json(call));
          } catch (error) {
            throw controlError(400, (error as Error).message);
          }
          return ok(this.faults.current);
        },
      },
      { method: 'GET', path: /^\/control\/api-calls\/?$/, handle: () => ok(this.faults.counts) },
      { method: 'DELETE', path: /^\/control\/faults\/?$/, handle: () => (this.faults.set({}), { status: 204 }) },
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
          this.trustCa(pem);
          return { status: 204 };
        },
      },
    ];
  }
}

/** Reads a PEM file, with an error that names the file and the option. */
export function readPemFile(path: string, option: string): string {
  try {
    const pem = readFileSync(path, 'utf8');
    if (!pem.includes('-----BEGIN')) throw new Error('no PEM block in it');
    return pem;
  } catch (error) {
    throw new Error(`${option} ${path}: cannot read a PEM file (${(error as Error).message}).`, { cause: error });
  }
}
