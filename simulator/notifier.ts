import { setMaxListeners } from 'node:events';
import type { OutgoingNotification } from './bank';
import { describeCallError, httpCall, HttpCallError } from './https-client';

/** ENTREGUE: answered 200 in time. NÃO ENTREGUE: the bank's mark for anything else. NÃO ENVIADO: nothing registered to send to. */
export type DeliveryOutcome = 'ENTREGUE' | 'NÃO ENTREGUE' | 'NÃO ENVIADO';

/** One line of the delivery log the control API returns. Token values are never recorded. */
export interface DeliveryRecord {
  /** Sequence number from 1; never reused, even after the log is cleared. */
  readonly seq: number;
  readonly notificationId: string;
  readonly kind: 'boleto' | 'payment' | 'pix';
  readonly subject: string;
  readonly url?: string;
  /** 1 for the delivery, 2 and up for injected duplicates of it. */
  readonly attempt: number;
  readonly outcome: DeliveryOutcome;
  readonly status?: number;
  readonly reason?: string;
  readonly tlsProtocol?: string;
  /** Name of the header that carried the token, when one was sent. */
  readonly authHeader?: string;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly body: unknown;
}

/** What one delivery came to, as its log line has it. */
export type DeliveryOutcomeFields = Pick<
  DeliveryRecord,
  'outcome' | 'status' | 'reason' | 'tlsProtocol' | 'durationMs' | 'startedAt'
>;

/** The log line of one delivery (or of a notification not sent): the token's header name, never its value. */
export function deliveryRecord(
  seq: number,
  notification: OutgoingNotification,
  attempt: number,
  result: DeliveryOutcomeFields,
): DeliveryRecord {
  return {
    seq,
    notificationId: notification.id,
    kind: notification.kind,
    subject: notification.subject,
    url: notification.url,
    attempt,
    authHeader: notification.url ? notification.authHeader?.name : undefined,
    body: notification.body,
    ...result,
  };
}

/** Delivery faults for tests; all off by default. */
export interface DeliveryFaults {
  /** Send every notification this many extra times, concurrently with the first. @default 0 */
  readonly duplicateDeliveries?: number;
  /** Wait this long before each delivery. @default 0 */
  readonly deliveryDelayMs?: number;
  /** Hold notifications for this long, then deliver the batch newest first (out of order). @default 0 */
  readonly reorderWindowMs?: number;
  /**
   * Lose deliveries silently: each is recorded NÃO ENTREGUE and never sent (the bank's own
   * failure, which it never resends). @default false
   */
  readonly loseDeliveries?: boolean;
}

export interface DeliveryAttempt {
  readonly url: string;
  readonly body: unknown;
  readonly authHeader?: { readonly name: string; readonly value: string };
  /** Extra CAs (PEM) trusted besides the public roots. */
  readonly trustedCas?: readonly string[];
  /** The client certificate and key (PEM) to present (the Pix API's callbacks). @default none */
  readonly clientCertificate?: { readonly certPem: string; readonly keyPem: string };
  /** @default 10000 (the bank's deadline) */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Skip certificate verification (check-endpoint uses it to test past a bad certificate). @default false */
  readonly insecure?: boolean;
}

export interface DeliveryResult {
  readonly delivered: boolean;
  readonly status?: number;
  readonly reason?: string;
  readonly tlsProtocol?: string;
  readonly durationMs: number;
}

/**
 * One delivery by the bank's rules (specification, section 1): HTTPS only, a verified chain that
 * does not end in a self-signed server certificate, TLS 1.2 or later, and HTTP 200 within the
 * deadline. Anything else is not delivered, with the reason.
 */
export async function deliverNotification(attempt: DeliveryAttempt): Promise<DeliveryResult> {
  const timeoutMs = attempt.timeoutMs ?? 10_000;
  let url: URL;
  try {
    url = new URL(attempt.url);
  } catch {
    return { delivered: false, reason: `not a valid URL: ${attempt.url}`, durationMs: 0 };
  }
  if (url.protocol !== 'https:')
    return { delivered: false, reason: 'the URL is not HTTPS; the bank only delivers over HTTPS', durationMs: 0 };
  try {
    const result = await httpCall(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'cdk-bank-webhooks-bank-simulator',
        ...(attempt.authHeader ? { [attempt.authHeader.name]: attempt.authHeader.value } : {}),
      },
      body: JSON.stringify(attempt.body),
      trustedCas: attempt.trustedCas,
      clientCertPem: attempt.clientCertificate?.certPem,
      clientKeyPem: attempt.clientCertificate?.keyPem,
      minTlsVersion: 'TLSv1.2',
      verifyCertificate: !attempt.insecure,
      refuseSelfSigned: !attempt.insecure,
      // The bank's HTTP client resumes TLS sessions: the chain and name were checked when the session began.
      reuseTlsSessions: true,
      timeoutMs,
      signal: attempt.signal,
    });
    if (result.status === 200)
      return { delivered: true, status: 200, tlsProtocol: result.tlsProtocol, durationMs: result.durationMs };
    return {
      delivered: false,
      status: result.status,
      reason: `answered HTTP ${result.status}; only 200 counts as delivered`,
      tlsProtocol: result.tlsProtocol,
      durationMs: result.durationMs,
    };
  } catch (error) {
    const durationMs = error instanceof HttpCallError ? error.durationMs : 0;
    const timedOut = error instanceof HttpCallError && error.code === 'TIMEOUT';
    return {
      delivered: false,
      reason: timedOut ? `no HTTP 200 within the ${timeoutMs} ms deadline` : describeCallError(error),
      durationMs,
    };
  }
}

export interface NotifierOptions {
  /** Extra CAs (PEM) the bank trusts besides the public roots, for local receivers. */
  readonly trustedCas: () => readonly string[];
  /** @default 10000 */
  readonly deliveryTimeoutMs: number;
  readonly faults: () => DeliveryFaults;
  /** The certificate the provider presents on the callbacks that ask for one (the Pix API's). @default none */
  readonly clientCertificate?: () => { readonly certPem: string; readonly keyPem: string } | undefined;
}

/** Waits `ms`, or less if `signal` aborts; leaves no listener on `signal` either way. */
export const sleepUnlessAborted = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

/** Sends the bank's notifications as they happen, applies injected faults, and keeps the delivery log. */
export class Notifier {
  private readonly log: DeliveryRecord[] = [];
  private readonly held: OutgoingNotification[] = [];
  private heldTimer?: NodeJS.Timeout;
  private inFlight = 0;
  private nextSeq = 1;
  private waiters: Array<() => void> = [];
  private readonly stopping = new AbortController();

  constructor(private readonly options: NotifierOptions) {
    // Every delivery in flight listens for close() on this one signal, each removing its listener
    // when done: hundreds at once under load are expected, not a leak.
    setMaxListeners(0, this.stopping.signal);
  }

  submit(notification: OutgoingNotification): void {
    if (this.stopping.signal.aborted) return;
    if (!notification.url) {
      this.record(notification, 1, {
        outcome: 'NÃO ENVIADO',
        reason: notification.skipped,
        durationMs: 0,
        startedAt: new Date().toISOString(),
      });
      return;
    }
    const window = this.options.faults().reorderWindowMs ?? 0;
    if (window > 0) {
      this.held.push(notification);
      this.heldTimer ??= setTimeout(() => this.track(this.releaseHeld()), window);
      return;
    }
    this.track(this.deliverWithDuplicates(notification));
  }

  /** Log lines after `afterSeq` (all by default). */
  records(afterSeq = 0): DeliveryRecord[] {
    return this.log.filter((record) => record.seq > afterSeq);
  }

  clear(): void {
    this.log.length = 0;
  }

  /** Notifications held or being delivered. */
  get pending(): number {
    return this.inFlight + this.held.length;
  }

  /** Resolves true once nothing is held or in flight, false if `timeoutMs` passes first. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.pending === 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve(false);
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.waiters.push(done);
    });
  }

  /** Abandons held and in-flight deliveries. */
  close(): void {
    this.stopping.abort();
    clearTimeout(this.heldTimer);
  }

  private track(work: Promise<void>): void {
    this.inFlight++;
    void work.finally(() => {
      this.inFlight--;
      if (this.pending === 0) {
        const waiters = this.waiters;
        this.waiters = [];
        for (const waiter of waiters) waiter();
      }
    });
  }

  private async releaseHeld(): Promise<void> {
    this.heldTimer = undefined;
    const batch = this.held.splice(0).reverse();
    for (const notification of batch) await this.deliverWithDuplicates(notification);
  }

  private async deliverWithDuplicates(notification: OutgoingNotification): Promise<void> {
    const copies = 1 + Math.max(0, this.options.faults().duplicateDeliveries ?? 0);
    await Promise.all(Array.from({ length: copies }, (_, i) => this.deliverOne(notification, i + 1)));
  }

  private async deliverOne(notification: OutgoingNotification, attempt: number): Promise<void> {
    await sleepUnlessAborted(this.options.faults().deliveryDelayMs ?? 0, this.stopping.signal);
    if (this.stopping.signal.aborted) return;
    const startedAt = new Date().toISOString();
    if (this.options.faults().loseDeliveries) {
      this.record(notification, attempt, {
        outcome: 'NÃO ENTREGUE',
        reason: 'lost by the bank (fault loseDeliveries): never sent, never resent',
        durationMs: 0,
        startedAt,
      });
      return;
    }
    const result = await deliverNotification({
      url: notification.url!,
      body: notification.body,
      authHeader: notification.authHeader,
      clientCertificate: notification.clientCertificate ? this.options.clientCertificate?.() : undefined,
      trustedCas: this.options.trustedCas(),
      timeoutMs: this.options.deliveryTimeoutMs,
      signal: this.stopping.signal,
    });
    this.record(notification, attempt, {
      outcome: result.delivered ? 'ENTREGUE' : 'NÃO ENTREGUE',
      status: result.status,
      reason: result.reason,
      tlsProtocol: result.tlsProtocol,
      durationMs: result.durationMs,
      startedAt,
    });
  }

  private record(notification: OutgoingNotification, attempt: number, result: DeliveryOutcomeFields): void {
    this.log.push(deliveryRecord(this.nextSeq++, notification, attempt, result));
  }
}
