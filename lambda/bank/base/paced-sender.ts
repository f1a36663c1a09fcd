/**
 * What every API family's client shares to send one request: paced by the bank's budget, retried
 * on network errors, 408, 429 and 5xx with backoff (or the bank's `Retry-After`), each attempt
 * bounded by the call timeout and the caller's deadline. A family's client builds the request and
 * reads the answer; this sends it.
 */
import { BankApiError, bankErrorMessage, isRetryableStatus } from '../errors';
import {
  type BankTransport,
  describeNetworkError,
  type HttpResponse,
  HttpsTransport,
  NetworkError,
  type TlsMaterial,
} from '../http';
import { type BankPacer, CallKind, MemorySlotSchedule, OutOfRate, RatePacer } from '../pacing';
import { backoffDelay, DEFAULT_RETRY_POLICY, retryAfterMs, type RetryPolicy, sleep } from '../../shared/retry';
import { inSpan, routeTemplate, SpanKind } from '../../shared/telemetry';

/** Smallest time worth starting a call with; below it the call gives up and the caller retries later. */
export const MIN_CALL_MS = 200;

/** What a retry looked like, for logs and metrics (never a credential). */
export interface RetryInfo {
  readonly operation: string;
  readonly attempt: number;
  readonly status?: number;
  readonly reason: string;
  readonly delayMs: number;
}

/** One HTTP request as a client built it. */
export interface OutgoingRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

export interface PacedSenderOptions {
  /** The longest one attempt may take (the connection's `callTimeoutMs`). */
  readonly callTimeoutMs: number;
  readonly pacer: BankPacer;
  readonly retry: RetryPolicy;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
  readonly onRetry?: (info: RetryInfo) => void;
  /** Told of every 429 answer (the bank's rate was exceeded). */
  readonly onThrottled?: (info: { readonly operation: string; readonly retryAfterMs?: number }) => void;
}

export class PacedSender {
  constructor(private readonly o: PacedSenderOptions) {}

  /**
   * Sends one request, retrying network errors, 408, 429 and 5xx with backoff (or the bank's
   * `Retry-After`) while attempts and the deadline allow. Resolves with any other answer.
   */
  async send(
    operation: string,
    transport: BankTransport,
    deadline: number,
    req: OutgoingRequest,
    kind = CallKind.TOKEN,
  ): Promise<HttpResponse> {
    // The span holds the method, the route template and the status: never a token, an id or a body.
    const template = routeTemplate(req.url);
    return inSpan(
      `${req.method} ${template}`,
      { 'http.request.method': req.method, 'url.template': template },
      async (span) => {
        try {
          const response = await this.attempts(operation, transport, deadline, req, kind);
          span.setAttribute('http.response.status_code', response.status);
          return response;
        } catch (error) {
          if (error instanceof BankApiError && error.status !== undefined)
            span.setAttribute('http.response.status_code', error.status);
          throw error;
        }
      },
      { kind: SpanKind.CLIENT },
    );
  }

  private async attempts(
    operation: string,
    transport: BankTransport,
    deadline: number,
    req: OutgoingRequest,
    kind: CallKind,
  ): Promise<HttpResponse> {
    const { now, pacer, retry } = this.o;
    let last: { status?: number; reason: string } | undefined;
    for (let attempt = 1; ; attempt++) {
      if (deadline - now() < MIN_CALL_MS) {
        // A sleep that overran on a busy machine: the failure that made us wait is the one to report.
        const why = last
          ? `${last.reason}; no time left to try again`
          : "no time left in the invocation's budget to call the bank";
        throw new BankApiError(operation, last?.status, why, true, attempt - 1, true);
      }
      try {
        await pacer.acquire(operation, deadline, kind);
      } catch (error) {
        if (!(error instanceof OutOfRate)) throw error;
        throw new OutOfRate(
          operation,
          error.retryAt,
          last ? `${last.reason}; ${error.detail}` : error.detail,
          last?.status,
          attempt - 1,
        );
      }
      const remaining = deadline - now();
      let status: number | undefined;
      let reason: string;
      let wait: number | undefined;
      try {
        const response = await transport.send({ ...req, timeoutMs: Math.min(this.o.callTimeoutMs, remaining) });
        if (!isRetryableStatus(response.status)) return response;
        status = response.status;
        reason = bankErrorMessage(response.body) ?? `HTTP ${response.status}`;
        wait = retryAfterMs(response.headers['retry-after'], now());
      } catch (error) {
        if (error instanceof NetworkError && error.code === 'NOT_HTTPS')
          throw new BankApiError(operation, undefined, error.message, false);
        reason = describeNetworkError(error);
      }
      last = { status, reason };
      if (status === 429) {
        // Lack of rate: the pacer pushes everyone's next call past Retry-After and slows down;
        // the next attempt waits for its slot, or gives up with when to come back.
        this.o.onThrottled?.({ operation, retryAfterMs: wait });
        await pacer.throttled(wait, kind);
        if (attempt >= retry.maxAttempts) {
          throw new OutOfRate(
            operation,
            now() + (wait ?? retry.baseDelayMs),
            `${reason}; the bank kept refusing for its rate limit`,
            status,
            attempt,
          );
        }
        this.o.onRetry?.({ operation, attempt, status, reason, delayMs: wait ?? 0 });
        continue;
      }
      const delayMs = backoffDelay(attempt, retry, this.o.random);
      if (attempt >= retry.maxAttempts || now() + delayMs + MIN_CALL_MS > deadline) {
        const outOfTime = attempt < retry.maxAttempts;
        throw new BankApiError(
          operation,
          status,
          outOfTime ? `${reason}; no time left to try again` : reason,
          true,
          attempt,
          outOfTime,
        );
      }
      this.o.onRetry?.({ operation, attempt, status, reason, delayMs });
      await this.o.sleep(delayMs);
    }
  }
}

/** How a client calls, whatever API family it speaks: retries, pacing, clocks, and what it is told of retries and 429s. */
export interface ClientCallOptions {
  /** @default DEFAULT_RETRY_POLICY */
  readonly retry?: RetryPolicy;
  readonly onRetry?: (info: RetryInfo) => void;
  /** Told of every 429 answer (the rate was exceeded). */
  readonly onThrottled?: (info: { readonly operation: string; readonly retryAfterMs?: number }) => void;
  /**
   * Paces every call, token requests included (see pacing.ts): the bank's budget, shared by its APIs.
   * @default a pacer of this client alone
   */
  readonly pacer?: BankPacer;
  /** @default Date.now */
  readonly now?: () => number;
  /** @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  /** @default Math.random */
  readonly random?: () => number;
  /** Makes the transport of a connection's certificates. @default HTTPS ({@link HttpsTransport}) */
  readonly transport?: (tls: TlsMaterial) => BankTransport;
}

/** The transport of a connection's certificates, as the client's options make it. */
export function newTransport(options: ClientCallOptions, tls: TlsMaterial): BankTransport {
  return options.transport?.(tls) ?? new HttpsTransport(tls);
}

/** The sender a client calls through: paced by `options.pacer`, or by a pacer of its own at `ratePerSecond`. */
export function clientSender(
  options: ClientCallOptions,
  own: { readonly callTimeoutMs: number; readonly ratePerSecond: number; readonly name: string },
): PacedSender {
  const now = options.now ?? Date.now;
  const wait = options.sleep ?? sleep;
  return new PacedSender({
    callTimeoutMs: own.callTimeoutMs,
    pacer:
      options.pacer ??
      new RatePacer(new MemorySlotSchedule(), { ratePerSecond: own.ratePerSecond, name: own.name, now, sleep: wait }),
    retry: options.retry ?? DEFAULT_RETRY_POLICY,
    now,
    sleep: wait,
    random: options.random ?? Math.random,
    onRetry: options.onRetry,
    onThrottled: options.onThrottled,
  });
}
