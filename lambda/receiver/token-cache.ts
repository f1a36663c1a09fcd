/** Loads the token values a secret currently accepts (AWSCURRENT, and AWSPENDING when present). */
export type TokenLoader = (secretArn: string) => Promise<string[]>;

export interface TokenCacheOptions {
  readonly load: TokenLoader;
  /** How long loaded values are used before they are loaded again. */
  readonly ttlMs: number;
  /** After a mismatch, values are reloaded at most this often, to pick up a rotation quickly. */
  readonly mismatchRefreshIntervalMs: number;
  /** Called when a reload fails but older values can still be used. */
  readonly onStaleUse?: (secretArn: string, error: unknown) => void;
  readonly now?: () => number;
}

interface Entry {
  values: string[];
  /** Values are used without a reload until then. */
  freshUntil: number;
  /** When a load was last attempted, successful or not. */
  lastAttempt: number;
}

/**
 * In-memory cache of token values per secret. Values are reloaded after `ttlMs`; when a reload
 * fails, the previous values keep being used and the reload is tried again after the mismatch
 * refresh interval (a Secrets Manager hiccup must not turn the bank's
 * valid calls into 401s). Concurrent loads of one secret share one request.
 */
export class TokenCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<string[]>>();
  private readonly now: () => number;

  constructor(private readonly options: TokenCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The accepted values, loading them when absent or older than the TTL. */
  async get(secretArn: string): Promise<string[]> {
    const entry = this.entries.get(secretArn);
    if (entry && this.now() < entry.freshUntil) return entry.values;
    return this.reload(secretArn);
  }

  /**
   * Called after a presented token matched none of the cached values: reloads them if they are
   * older than the mismatch refresh interval, so a token rotated moments ago is accepted, while
   * a stream of bad requests causes at most one load per interval. Returns the values to check
   * again, or undefined when nothing was reloaded.
   */
  async refreshAfterMismatch(secretArn: string): Promise<string[] | undefined> {
    const entry = this.entries.get(secretArn);
    if (entry && this.now() - entry.lastAttempt < this.options.mismatchRefreshIntervalMs) return undefined;
    return this.reload(secretArn);
  }

  private reload(secretArn: string): Promise<string[]> {
    const pending = this.inFlight.get(secretArn);
    if (pending) return pending;
    const promise = this.options
      .load(secretArn)
      .then((values) => {
        const now = this.now();
        this.entries.set(secretArn, { values, freshUntil: now + this.options.ttlMs, lastAttempt: now });
        return values;
      })
      .catch((error: unknown) => {
        const stale = this.entries.get(secretArn);
        if (!stale) throw error;
        // Keep serving the previous values, and try again only after the refresh interval, so an
        // outage of Secrets Manager does not add a failing call to every request.
        const now = this.now();
        stale.lastAttempt = now;
        stale.freshUntil = now + Math.min(this.options.mismatchRefreshIntervalMs, this.options.ttlMs);
        this.options.onStaleUse?.(secretArn, error);
        return stale.values;
      })
      .finally(() => this.inFlight.delete(secretArn));
    this.inFlight.set(secretArn, promise);
    return promise;
  }
}
