/**
 * The access tokens a client holds, by key (an API and its scope set): kept until shortly before
 * they expire, asked for once however many calls need one at the same time, every value handed to
 * the redactor the moment it arrives. Shared by every API family's client.
 */
import { BankApiError } from '../errors';
import { secrets } from '../../shared/redaction';

export interface CachedToken {
  readonly accessToken: string;
  readonly renewAt: number;
  readonly refreshToken?: string;
  readonly refreshUntil?: number;
}

/** A token is renewed this long before it expires (at most a fifth of its life). */
export const TOKEN_RENEW_MARGIN_MS = 30_000;
/** The lifetime assumed when a token answer gives none. */
const DEFAULT_LIFETIME_S = 300;

export class TokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly requests = new Map<string, Promise<string>>();

  constructor(private readonly now: () => number) {}

  /** The token of `key`, as held (even one due for renewal: a refresh token may still serve). */
  held(key: string): CachedToken | undefined {
    return this.tokens.get(key);
  }

  /** Renew `key`'s token on its next use (the API refused it), keeping its refresh token. */
  expire(key: string): void {
    const cached = this.tokens.get(key);
    if (cached) this.tokens.set(key, { ...cached, renewAt: 0 });
  }

  /** A live token of `key`, or the one `request` brings (one request at a time per key). */
  obtain(key: string, request: (held: CachedToken | undefined) => Promise<string>): Promise<string> {
    const cached = this.tokens.get(key);
    if (cached && this.now() < cached.renewAt) return Promise.resolve(cached.accessToken);
    let pending = this.requests.get(key);
    if (!pending) {
      pending = request(cached).finally(() => this.requests.delete(key));
      this.requests.set(key, pending);
    }
    return pending;
  }

  /** Keeps a token endpoint's answer (`access_token`, `expires_in`, refresh fields) under `key`; returns the token. */
  remember(key: string, answer: Record<string, unknown>, operation: string): string {
    const accessToken = answer.access_token;
    if (typeof accessToken !== 'string' || !accessToken)
      throw new BankApiError(operation, 200, 'the answer has no access_token', false);
    secrets.remember(accessToken, answer.refresh_token);
    const lifetimeMs =
      (typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : DEFAULT_LIFETIME_S) * 1000;
    const refreshLifetimeMs =
      typeof answer.refresh_expires_in === 'number' ? answer.refresh_expires_in * 1000 : undefined;
    const now = this.now();
    this.tokens.set(key, {
      accessToken,
      renewAt: now + lifetimeMs - Math.min(TOKEN_RENEW_MARGIN_MS, lifetimeMs / 5),
      refreshToken: typeof answer.refresh_token === 'string' ? answer.refresh_token : undefined,
      refreshUntil:
        refreshLifetimeMs === undefined
          ? undefined
          : now + refreshLifetimeMs - Math.min(TOKEN_RENEW_MARGIN_MS, refreshLifetimeMs / 5),
    });
    return accessToken;
  }
}
