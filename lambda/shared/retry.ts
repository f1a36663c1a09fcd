/** How calls to the bank are retried: exponential backoff with full jitter, inside a deadline. */
export interface RetryPolicy {
  /** Most calls made for one request, the first included. */
  readonly maxAttempts: number;
  /** Upper bound of the first wait; it doubles with each attempt. */
  readonly baseDelayMs: number;
  /** Largest wait between two attempts (a longer `Retry-After` is still honoured). */
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 5_000 };

/** Wait before attempt `attempt + 1` (attempt counts from 1): a random time up to base × 2^(attempt−1), capped. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

/** Milliseconds a `Retry-After` header asks for (seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now: number): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `run` with an AbortSignal that aborts with a TimeoutError after `ms`, as `AbortSignal.timeout`
 * does, on the global `setTimeout`: a test's fake clock moves it, where `AbortSignal.timeout`'s own
 * timer runs on the machine's. The timer is cleared once `run` settles (a signal no call listens to
 * any more costs nothing when its time comes), and does not keep the process alive.
 */
export async function abortingAfter<T>(ms: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`The operation timed out after ${ms} ms`, 'TimeoutError')),
    ms,
  );
  (timer as { unref?: () => void }).unref?.();
  try {
    return await run(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}
