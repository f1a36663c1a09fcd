import type { TokenStage } from '../shared/secret-tokens';

/** Loads the token values one stage of a secret holds now (none when the stage is absent). */
export type TokenLoader = (secretArn: string, stage: TokenStage) => Promise<string[]>;

export interface TokenCacheOptions {
  readonly load: TokenLoader;
  /** How long loaded values are used before they are loaded again. */
  readonly ttlMs: number;
  /** After a mismatch, values are reloaded at most this often, to pick up a rotation quickly. */
  readonly mismatchRefreshIntervalMs: number;
  /** Called when a reload fails but older values can still be used. */
  readonly onStaleUse?: (secretArn: string, stage: TokenStage, error: unknown) => void;
  readonly now?: () => number;
}

interface Entry {
  values: readonly string[];
  /** Values are used without a reload until then. */
  freshUntil: number;
  /** When a load was last attempted, successful or not. */
  lastAttempt: number;
}

/**
 * In-memory cache of token values per secret and stage. Each stage is loaded when first asked
 * for (so AWSPENDING is never read while every presented token matches AWSCURRENT) and again
 * after `ttlMs`; when a reload fails, the previous values keep being used and the reload is
 * tried again after the mismatch refresh interval (a Secrets Manager hiccup must not turn the
 * bank's valid calls into 401s). Concurrent loads of one stage share one request.
 */
export class TokenCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<readonly string[]>>();
  private readonly now: () => number;

  constructor(private readonly options: TokenCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The values of a stage while they are fresh, without waiting (undefined when they must be loaded). */
  peek(secretArn: string, stage: TokenStage): readonly string[] | undefined {
    const entry = this.entries.get(keyOf(secretArn, stage));
    return entry && this.now() < entry.freshUntil ? entry.values : undefined;
  }

  /** The values of a stage, loading them when absent or older than the TTL. */
  async get(secretArn: string, stage: TokenStage): Promise<readonly string[]> {
    const entry = this.entries.get(keyOf(secretArn, stage));
    if (entry && this.now() < entry.freshUntil) return entry.values;
    return this.reload(secretArn, stage);
  }

  /**
   * Called after a presented token matched none of the cached values: reloads them if they are
   * older than the mismatch refresh interval, so a token rotated moments ago is accepted, while
   * a stream of bad requests causes at most one load per interval. Returns the values to check
   * again, or undefined when nothing was reloaded.
   */
  async refreshAfterMismatch(secretArn: string, stage: TokenStage): Promise<readonly string[] | undefined> {
    const entry = this.entries.get(keyOf(secretArn, stage));
    if (entry && this.now() - entry.lastAttempt < this.options.mismatchRefreshIntervalMs) return undefined;
    return this.reload(secretArn, stage);
  }

  private reload(secretArn: string, stage: TokenStage): Promise<readonly string[]> {
    const key = keyOf(secretArn, stage);
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const promise = this.options
      .load(secretArn, stage)
      .then((values) => {
        const now = this.now();
        // Frozen: a set is never changed in place (the token check keeps digests per set).
        this.entries.set(key, {
          values: Object.freeze(values),
          freshUntil: now + this.options.ttlMs,
          lastAttempt: now,
        });
        return values;
      })
      .catch((error: unknown) => {
        const stale = this.entries.get(key);
        if (!stale) throw error;
        // Keep serving the previous values, and try again only after the refresh interval, so an
        // outage of Secrets Manager does not add a failing call to every request.
        const now = this.now();
        stale.lastAttempt = now;
        stale.freshUntil = now + Math.min(this.options.mismatchRefreshIntervalMs, this.options.ttlMs);
        this.options.onStaleUse?.(secretArn, stage, error);
        return stale.values;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }
}

function keyOf(secretArn: string, stage: TokenStage): string {
  return `${stage} ${secretArn}`;
}
