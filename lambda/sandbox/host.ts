/**
 * The deployed simulator's core: every request (through the function URL, or a control call by
 * Lambda Invoke) rebuilds the simulator from the stored state, runs, stores the state over the
 * version it read (running again on a newer one when another request stored first), then delivers
 * what the change sends and logs the deliveries.
 */
import { createHash } from 'node:crypto';
import { type SandboxAccount, type SandboxControlResult, SandboxDefaults } from '../../contracts/sandbox';
import type { OutgoingNotification } from '../../simulator/bank';
import { SimulatorEngine, SimulatorPaths, type SimulatorReply, type SimulatorRequest } from '../../simulator/engine';
import { controlError } from '../../simulator/errors';
import type { SimulatorFaults } from '../../simulator/faults';
import type { SimulatorInfo } from '../../simulator/info';
import { COLLECTION_SCOPE, PAYMENT_QUERY_SCOPES, PAYMENT_SCOPES, pixKeysOf } from '../../simulator/model';
import { PIX_SCOPES } from '../../simulator/pix/pix-model';
import type { DeliveryAttempt, DeliveryResult } from '../../simulator/notifier';
import type { BankCredentials as SimulatorCredentials } from '../../simulator/tokens';
import type { Log } from '../shared/runtime';
import { CollectingSink, type DeliveryDone, livePending, recordDeliveries } from './deliveries';
import {
  SandboxStateFullError,
  type SandboxStateStore,
  type StoredSandbox,
  type VersionedSandbox,
} from './state-store';

export interface SandboxDeps {
  readonly store: Pick<SandboxStateStore, 'read' | 'write'>;
  /** The credentials the bank accepts (the sandbox's secret, which the receiver reads too). */
  readonly credentials: () => Promise<SimulatorCredentials>;
  readonly credentialsSecretArn: string;
  /** The secret with the Pix application's credentials, when the sandbox has one. @default none */
  readonly pixCredentialsSecretArn?: string;
  readonly accounts: readonly SandboxAccount[];
  readonly tokenLifetimeSeconds: number;
  /** One delivery by the bank's rules (the simulator's `deliverNotification`). */
  readonly deliver: (attempt: DeliveryAttempt) => Promise<DeliveryResult>;
  readonly log: Log;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** Another request kept changing the state first, every time. */
export class SandboxBusyError extends Error {
  constructor(attempts: number) {
    super(`The simulator's state changed under this request ${attempts} times in a row; try again.`);
    this.name = 'SandboxBusyError';
  }
}

const CONTROL_PREFIX = SimulatorPaths.control;
/** Fields of the control API's answers that hold a receiver's token (a contract's, a payment callback's). */
const TOKEN_FIELDS = new Set(['token', 'authorizationCallback']);

/**
 * The control API's answer with every receiver token replaced by its SHA-256 fingerprint: an
 * answer may end in a test's logs or a CloudFormation response (integ assertions), and a test
 * can still tell which token was registered. The bank's own API answers the values, as the bank does.
 */
export function hideTokens(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(hideTokens);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [
      key,
      TOKEN_FIELDS.has(key) && typeof field === 'string' && field ? tokenFingerprint(field) : hideTokens(field),
    ]),
  );
}

/** How the control API shows a token: `sha256:` and the first 16 hex digits of its hash. */
export const tokenFingerprint = (token: string): string =>
  `sha256:${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
const NO_CERTIFICATE = { presented: false, trusted: false } as const;

export class SandboxHost {
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly deps: SandboxDeps) {
    this.now = deps.now ?? Date.now;
    this.sleep = deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** A request through the function URL: the bank's API. The control API is refused here: it answers Lambda Invoke only. */
  async request(request: SimulatorRequest, origin: string): Promise<SimulatorReply> {
    if (new URL(request.url || '/', 'https://sandbox.local').pathname.startsWith(CONTROL_PREFIX)) {
      return {
        status: 403,
        body: {
          error:
            'The control API of a deployed simulator answers Lambda Invoke only, so IAM decides who may call it: invoke the function with {"sandboxControl": {"method", "path", "body"}} (BankSandbox.grantControl; docs/sandbox.md).',
        },
      };
    }
    return this.run({ ...request, certificate: NO_CERTIFICATE }, origin);
  }

  /** A control call by Lambda Invoke: `path` under /control. */
  async control(method: string, path: string, body: unknown, remainingMs: number): Promise<SandboxControlResult> {
    const normalized = `/${path.replace(/^\/+/, '')}`;
    if (method.toUpperCase() === 'POST' && /^\/deliveries\/wait\/?$/.test(normalized))
      return this.waitForDeliveries(body, remainingMs);
    const reply = await this.run({
      method: method.toUpperCase(),
      url: CONTROL_PREFIX + normalized,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(body === undefined ? '' : JSON.stringify(body)),
      certificate: NO_CERTIFICATE,
    });
    return { status: reply.status, body: hideTokens(reply.body ?? null) };
  }

  private async run(request: SimulatorRequest, origin?: string): Promise<SimulatorReply> {
    let committed: { reply: SimulatorReply; outgoing: OutgoingNotification[]; faults: SimulatorFaults };
    try {
      committed = await this.commit(async (read) => {
        const sink = new CollectingSink(read.value.deliveries, this.now);
        const engine = await this.engine(read.value, sink, origin);
        const reply = await engine.handle(request);
        // A request refused for its credentials keeps nothing (anyone can send one to the URL).
        if (reply.status === 401 || reply.status === 403)
          return { result: { reply, outgoing: [], faults: engine.currentFaults } };
        const next: StoredSandbox = {
          simulator: engine.exportState(),
          deliveries: sink.toStored(this.now() + 2 * SandboxDefaults.functionTimeoutSeconds * 1000),
          origin: origin ?? read.value.origin,
        };
        return { next, result: { reply, outgoing: sink.outgoing, faults: engine.currentFaults } };
      });
    } catch (error) {
      if (error instanceof SandboxStateFullError) return { status: 507, body: { error: error.message } };
      if (error instanceof SandboxBusyError)
        return { status: 503, body: { error: error.message }, headers: { 'retry-after': '1' } };
      throw error;
    }
    if (committed.outgoing.length) await this.deliverAll(committed.outgoing, committed.faults);
    return committed.reply;
  }

  /**
   * Reads, runs `produce`, and stores its state over the version read (nothing when it gives no
   * state, or the same); again on a newer version while another request stores first.
   */
  private async commit<T>(
    produce: (read: VersionedSandbox) => Promise<{ next?: StoredSandbox; result: T }>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const read = await this.deps.store.read();
      const { next, result } = await produce(read);
      if (!next || JSON.stringify(next) === read.json) return result;
      if (await this.deps.store.write(next, read.version)) return result;
      if (attempt >= SandboxDefaults.stateAttempts) throw new SandboxBusyError(attempt);
      await this.sleep(5 + Math.random() * Math.min(200, 10 * attempt));
    }
  }

  private async engine(
    stored: StoredSandbox,
    sink: CollectingSink,
    origin: string | undefined,
  ): Promise<SimulatorEngine> {
    const credentials = await this.deps.credentials();
    const engine = new SimulatorEngine({
      accounts: this.deps.accounts,
      credentials,
      tokenLifetimeSeconds: this.deps.tokenLifetimeSeconds,
      // A function URL ends TLS at AWS and asks for no client certificate (docs/sandbox.md).
      mutualTls: false,
      host: {
        info: () => this.info(origin ?? stored.origin),
        deliveries: sink,
        trustCa: () => {
          throw controlError(
            400,
            "A deployed simulator delivers to public HTTPS endpoints only (API Gateway's certificates, trusted by the public roots): it takes no extra CA.",
          );
        },
        unsupportedFaults: (faults) => [
          ...((faults.reorderWindowMs ?? 0) > 0
            ? [
                'reorderWindowMs is not available in a deployed simulator: each change is delivered by the request that made it, so there is no window to hold deliveries in (run the local simulator for it)',
              ]
            : []),
          ...((faults.deliveryDelayMs ?? 0) > SandboxDefaults.maxDeliveryDelayMs
            ? [
                `deliveryDelayMs must be at most ${SandboxDefaults.maxDeliveryDelayMs} in a deployed simulator: the delivery waits in the invocation that made the change`,
              ]
            : []),
        ],
      },
    });
    if (stored.simulator) engine.restoreState(stored.simulator);
    return engine;
  }

  /** What GET /control/info answers here: the URLs, and where the credentials are (never their values). */
  private info(origin: string | undefined): SimulatorInfo {
    const base = origin ?? '(not known yet: call the function URL once, or read the stack output)';
    const where = `(in Secrets Manager: ${this.deps.credentialsSecretArn})`;
    return {
      baseUrl: base,
      registrationBaseUrl: base + SimulatorPaths.registrationBase,
      collectionTokenUrl: base + SimulatorPaths.collectionToken,
      paymentsTokenUrl: base + SimulatorPaths.paymentsToken,
      controlUrl: '(Lambda Invoke of this function with {"sandboxControl": ...})',
      // The Pix application's credentials are in their own secret (BankSandbox.pixConnection); without it the Pix token endpoint refuses every client.
      pixBaseUrl: base + SimulatorPaths.pixApi,
      pixTokenUrl: base + SimulatorPaths.pixToken,
      caFile: '',
      clientCertFile: '',
      clientKeyFile: '',
      pixClientCertFile: '',
      pixClientKeyFile: '',
      pixWebhookCertFile: '',
      pixKeys: pixKeysOf(this.deps.accounts),
      accounts: this.deps.accounts,
      credentials: {
        collection: { apiKey: where, username: where, password: where },
        payments: { clientId: where, clientSecret: where },
        ...(this.deps.pixCredentialsSecretArn
          ? {
              pix: {
                clientId: `(in Secrets Manager: ${this.deps.pixCredentialsSecretArn})`,
                clientSecret: `(in Secrets Manager: ${this.deps.pixCredentialsSecretArn})`,
              },
            }
          : {}),
      },
      scopes: {
        collection: COLLECTION_SCOPE,
        payments: PAYMENT_SCOPES,
        paymentQueries: PAYMENT_QUERY_SCOPES,
        pix: PIX_SCOPES,
      },
    };
  }

  /** Delivers each notification by the bank's rules and the delivery faults in force, then logs them. */
  private async deliverAll(outgoing: readonly OutgoingNotification[], faults: SimulatorFaults): Promise<void> {
    const done: DeliveryDone[] = [];
    for (const notification of outgoing) {
      const copies = 1 + Math.max(0, faults.duplicateDeliveries ?? 0);
      await Promise.all(
        Array.from({ length: copies }, async (_, i) => {
          if (faults.deliveryDelayMs) await this.sleep(faults.deliveryDelayMs);
          const startedAt = new Date(this.now()).toISOString();
          if (faults.loseDeliveries) {
            done.push({
              notification,
              attempt: i + 1,
              result: {
                outcome: 'NÃO ENTREGUE',
                reason: 'lost by the bank (fault loseDeliveries): never sent, never resent',
                durationMs: 0,
                startedAt,
              },
            });
            return;
          }
          const result = await this.deps.deliver({
            url: notification.url!,
            body: notification.body,
            authHeader: notification.authHeader,
          });
          done.push({
            notification,
            attempt: i + 1,
            result: {
              outcome: result.delivered ? 'ENTREGUE' : 'NÃO ENTREGUE',
              status: result.status,
              reason: result.reason,
              tlsProtocol: result.tlsProtocol,
              durationMs: result.durationMs,
              startedAt,
            },
          });
          this.deps.log.info('Delivered a notification', {
            subject: notification.subject,
            url: notification.url,
            delivered: result.delivered,
            status: result.status,
            reason: result.reason,
          });
        }),
      );
    }
    await this.commit((read) =>
      Promise.resolve({
        next: { ...read.value, deliveries: recordDeliveries(read.value.deliveries, done, this.now()) },
        result: undefined,
      }),
    );
  }

  /** POST /control/deliveries/wait: until no request is delivering, reading the table again. */
  private async waitForDeliveries(body: unknown, remainingMs: number): Promise<SandboxControlResult> {
    const asked = Number((body as { timeoutMs?: unknown } | undefined)?.timeoutMs ?? 30_000);
    if (!(asked >= 0 && asked <= 600_000))
      return { status: 400, body: { error: 'timeoutMs must be between 0 and 600000.' } };
    const until = this.now() + Math.min(asked, Math.max(0, remainingMs - 2_000));
    for (;;) {
      const pending = livePending((await this.deps.store.read()).value.deliveries, this.now()).length;
      if (pending === 0 || this.now() >= until) return { status: 200, body: { idle: pending === 0, pending } };
      await this.sleep(250);
    }
  }
}
