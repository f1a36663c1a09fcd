/**
 * What every route of the simulator is made of: the request a route sees, the route itself, the
 * readers of headers and bodies, and the operations counted. The bank's routes (bank-routes.ts)
 * and the control API's (control-routes.ts) are built on it; the engine dispatches to them.
 */
import { type BankError, oauthError } from './errors';
import type { OutgoingNotification } from './bank';
import type { ApiGroup, SimulatorFaults } from './faults';
import type { SimulatorInfo } from './info';
import type { DeliveryRecord } from './notifier';
import type { ClientCertificateInfo } from './tokens';

/** The simulator's answer: a status, a JSON body (or an {@link HtmlPage}), and headers. */
export interface SimulatorReply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

/** A request as a route sees it: its path's captured parts in `params`. */
export interface Call {
  readonly method: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly url: URL;
  readonly params: string[];
  readonly raw: Buffer;
  readonly certificate: ClientCertificateInfo;
}

/** One of the simulator's routes: a method, a path, and how it is answered. */
export interface Route {
  readonly method: string;
  readonly path: RegExp;
  readonly group?: ApiGroup;
  /** Counted by name in the engine's queryCounts (queries and listings). */
  readonly counted?: QueryOperation;
  /**
   * The caller's credentials, checked before the group's faults and rate limit (the bank's gateway
   * knows the key before it counts it): a refused request changes no counter, bucket or budget.
   */
  readonly authenticate?: (call: Call) => unknown;
  readonly handle: (call: Call) => SimulatorReply | Promise<SimulatorReply>;
}

/** The bank's read operations a client can be held to account for: how many of each it made. */
export enum QueryOperation {
  BOLETO_QUERY = 'boletoQuery',
  PAYMENT_QUERY = 'paymentQuery',
  SETTLED_LISTING = 'settledListing',
  /** `GET /pix/{e2eid}` and a refund's `GET /pix/{e2eid}/devolucao/{id}`. */
  PIX_QUERY = 'pixQuery',
  /** `GET /cob/{txid}` and `GET /cobv/{txid}`. */
  CHARGE_QUERY = 'chargeQuery',
  /** `GET /pix?inicio&fim`. */
  PIX_LISTING = 'pixListing',
  /** `GET /cob?inicio&fim` and `GET /cobv?inicio&fim`. */
  CHARGE_LISTING = 'chargeListing',
  /** `GET /rec/{idRec}`. */
  REC_QUERY = 'recQuery',
  /** `GET /cobr/{txid}`. */
  RECURRING_CHARGE_QUERY = 'recurringChargeQuery',
  /** `GET /rec?inicio&fim` and `GET /cobr?inicio&fim`. */
  RECURRING_LISTING = 'recurringListing',
}

export function header(call: Call, name: string): string | undefined {
  return call.headers[name];
}

export function parseJson(call: Call, onError: (message: string) => BankError): unknown {
  const text = call.raw.toString('utf8');
  if (!text.trim()) throw onError('The body is empty; send a JSON object.');
  try {
    return JSON.parse(text);
  } catch {
    throw onError('The body is not valid JSON.');
  }
}

export function parseForm(call: Call): URLSearchParams {
  const type = header(call, 'content-type') ?? '';
  if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    throw oauthError(
      400,
      'invalid_request',
      'The token request must be form-encoded (Content-Type: application/x-www-form-urlencoded).',
    );
  }
  return new URLSearchParams(call.raw.toString('utf8'));
}

export function basicCredentials(call: Call): { id: string; secret: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(header(call, 'authorization') ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0
    ? undefined
    : { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
}

/** A path of SimulatorPaths plus `rest` (a regular expression), with or without a final slash. */
export const at = (path: string, rest = ''): RegExp => new RegExp(`^${path}${rest}/?$`);

/** An error body with the request appended to every message it has (whichever one a client reads). */
export function echoRequest(body: unknown, request: string): unknown {
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
