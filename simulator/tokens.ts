import { randomBytes } from 'node:crypto';
import { ALL_PAYMENT_SCOPES, COLLECTION_SCOPE } from './model';
import { PIX_SCOPES } from './pix/pix-model';
import { gatewayError, oauthError } from './errors';

export type TokenKind = 'collection' | 'payments' | 'pix';

export interface IssuedToken {
  readonly kind: TokenKind;
  readonly scopes: readonly string[];
  readonly expiresAt: number;
  /** Collection: the username (beneficiário + cooperativa); payments: the client id. */
  readonly subject: string;
}

/** Credentials the simulated bank accepts. */
export interface BankCredentials {
  readonly collection: {
    /** `x-api-key` header value (a UUID at the real bank). */
    readonly apiKey: string;
    /** Password-grant username: beneficiary code followed by the cooperative code. */
    readonly username: string;
    /** Password-grant password: the access code the holder generates in internet banking. */
    readonly password: string;
  };
  readonly payments: {
    readonly clientId: string;
    readonly clientSecret: string;
  };
  /** The standard Pix API's client (its own application at the bank). @default none: the Pix token endpoint refuses every client */
  readonly pix?: {
    readonly clientId: string;
    readonly clientSecret: string;
  };
}

/** What the TLS layer says about the caller's client certificate. */
export interface ClientCertificateInfo {
  readonly presented: boolean;
  /** Chain verified against the simulator's CA. */
  readonly trusted: boolean;
  readonly commonName?: string;
}

export interface TokenIssuerOptions {
  readonly credentials: BankCredentials;
  /** @default 300 */
  readonly tokenLifetimeSeconds?: number;
  /** @default 1800 */
  readonly refreshLifetimeSeconds?: number;
  /** Simulated clock in ms (tests move it forward to expire tokens). */
  readonly now: () => number;
  /**
   * Whether the payments token endpoint sees the caller's client certificate (mutual TLS). A
   * simulator behind a Lambda function URL cannot: TLS ends at AWS, which asks for no certificate,
   * so the deployed simulator checks the client id and secret only. @default true
   */
  readonly mutualTls?: boolean;
}

const newToken = () => randomBytes(24).toString('base64url');

function parseScopes(scope: string | null): string[] {
  return (scope ?? '').split(/[\s,]+/).filter(Boolean);
}

/**
 * The scopes a token request asks for (every one `allowed` when it asks none); one it may not have
 * is refused, or, where `narrow` (the Pix API, as OAuth 2 lets a server do, RFC 6749 section 3.3),
 * left out of the token when it asks for a known one too.
 */
function requestedScopes(scope: string | null, allowed: readonly string[], narrow = false): string[] {
  const scopes = parseScopes(scope);
  if (scopes.length === 0) return [...allowed];
  const unknown = scopes.filter((s) => !allowed.includes(s));
  if (narrow && unknown.length < scopes.length) return scopes.filter((s) => allowed.includes(s));
  if (unknown.length) throw oauthError(400, 'invalid_scope', `Invalid scopes: ${unknown.join(' ')}`);
  return scopes;
}

/** The two token endpoints of cdk-bank-webhooks/docs/bank-api.md and the bearer check of every API call. */
/** The tokens an issuer has given and that have not expired, as plain JSON. */
export interface TokenState {
  readonly access: ReadonlyArray<readonly [string, IssuedToken]>;
  readonly refresh: ReadonlyArray<readonly [string, IssuedToken]>;
}

export class TokenIssuer {
  private readonly access = new Map<string, IssuedToken>();
  private readonly refresh = new Map<string, IssuedToken>();

  constructor(private readonly options: TokenIssuerOptions) {}

  /** The live tokens (expired ones are left out: they would be refused anyway). */
  exportState(): TokenState {
    const now = this.options.now();
    const live = (map: Map<string, IssuedToken>) => [...map.entries()].filter(([, token]) => token.expiresAt > now);
    return { access: live(this.access), refresh: live(this.refresh) };
  }

  /** Takes back what {@link exportState} gave, in place of every token held now. */
  restoreState(state: TokenState): void {
    this.access.clear();
    this.refresh.clear();
    for (const [value, token] of state.access) this.access.set(value, token);
    for (const [value, token] of state.refresh) this.refresh.set(value, token);
  }

  private get lifetimeMs() {
    return (this.options.tokenLifetimeSeconds ?? 300) * 1000;
  }

  private get refreshLifetimeMs() {
    return (this.options.refreshLifetimeSeconds ?? 1800) * 1000;
  }

  /** POST /auth/openapi/token: password and refresh_token grants of the collection API. */
  collectionGrant(headers: { apiKey?: string; context?: string }, form: URLSearchParams): Record<string, unknown> {
    const expected = this.options.credentials.collection;
    if (headers.apiKey !== expected.apiKey) {
      throw oauthError(401, 'unauthorized_client', 'Invalid or missing x-api-key header.');
    }
    // The manual: a missing or wrong context header is among the causes of "Invalid user credentials".
    if ((headers.context ?? '').toUpperCase() !== 'COBRANCA')
      throw oauthError(401, 'invalid_grant', 'Invalid user credentials');
    const grantType = form.get('grant_type');
    if (!grantType) throw oauthError(400, 'invalid_request', 'Missing form parameter: grant_type');
    let subject: string;
    let scopes: string[];
    if (grantType === 'password') {
      if (form.get('username') !== expected.username || form.get('password') !== expected.password) {
        throw oauthError(401, 'invalid_grant', 'Invalid user credentials');
      }
      scopes = requestedScopes(form.get('scope'), [COLLECTION_SCOPE]);
      subject = expected.username;
    } else if (grantType === 'refresh_token') {
      const presented = form.get('refresh_token') ?? '';
      const previous = this.refresh.get(presented);
      if (!previous || previous.expiresAt <= this.options.now()) {
        this.refresh.delete(presented);
        throw oauthError(400, 'invalid_grant', 'Token is not active');
      }
      this.refresh.delete(presented);
      subject = previous.subject;
      scopes = [...previous.scopes];
    } else {
      throw oauthError(
        400,
        'unsupported_grant_type',
        `Unsupported grant_type "${grantType ?? ''}"; use password or refresh_token.`,
      );
    }
    const accessToken = this.store(this.access, {
      kind: 'collection',
      scopes,
      subject,
      expiresAt: this.options.now() + this.lifetimeMs,
    });
    const refreshToken = this.store(this.refresh, {
      kind: 'collection',
      scopes,
      subject,
      expiresAt: this.options.now() + this.refreshLifetimeMs,
    });
    return {
      access_token: accessToken,
      expires_in: this.lifetimeMs / 1000,
      refresh_expires_in: this.refreshLifetimeMs / 1000,
      refresh_token: refreshToken,
      token_type: 'Bearer',
      'not-before-policy': 0,
      scope: scopes.join(' '),
    };
  }

  /** POST /thirdparty/auth/token: client_credentials over mutual TLS (payments API). */
  paymentsGrant(
    form: URLSearchParams,
    basic: { id: string; secret: string } | undefined,
    certificate: ClientCertificateInfo,
  ): Record<string, unknown> {
    const mutualTls = this.checkClientCertificate(certificate, 'the certificate issued for this client');
    if (!form.get('grant_type')) throw oauthError(400, 'invalid_request', 'Missing form parameter: grant_type');
    if (form.get('grant_type') !== 'client_credentials') {
      throw oauthError(
        400,
        'unsupported_grant_type',
        `Unsupported grant_type "${form.get('grant_type') ?? ''}"; use client_credentials.`,
      );
    }
    const expected = this.options.credentials.payments;
    const clientId = basic?.id ?? form.get('client_id') ?? '';
    const clientSecret = basic?.secret ?? form.get('client_secret') ?? '';
    if (clientId !== expected.clientId || clientSecret !== expected.clientSecret) {
      throw oauthError(401, 'invalid_client', 'Invalid client or Invalid client credentials');
    }
    if (mutualTls && certificate.commonName !== clientId) {
      throw oauthError(401, 'invalid_client', 'The client certificate does not belong to this client.');
    }
    const scopes = requestedScopes(form.get('scope'), ALL_PAYMENT_SCOPES);
    const accessToken = this.store(this.access, {
      kind: 'payments',
      scopes,
      subject: clientId,
      expiresAt: this.options.now() + this.lifetimeMs,
    });
    return {
      access_token: accessToken,
      expires_in: this.lifetimeMs / 1000,
      token_type: 'Bearer',
      scope: scopes.join(' '),
    };
  }

  /**
   * POST /oauth/token of the Pix API: client_credentials, the client in HTTP Basic, over mutual
   * TLS with the Pix application's certificate. `grant_type` is read from the form body, and from
   * the query string too only when `grantTypeInQuery` (cdk-bank-webhooks/docs/pix.md: the bank refuses it there
   * since 2026-06, with 400 "gerarToken.grantType ... inválido"; one client still sends it so).
   */
  pixGrant(
    form: URLSearchParams,
    query: URLSearchParams,
    basic: { id: string; secret: string } | undefined,
    certificate: ClientCertificateInfo,
    grantTypeInQuery: boolean,
  ): Record<string, unknown> {
    const expected = this.options.credentials.pix;
    const mutualTls = this.checkClientCertificate(certificate, "the Pix application's certificate");
    if (query.has('grant_type') && !grantTypeInQuery) {
      throw oauthError(
        400,
        'invalid_request',
        'gerarToken.grantType: valor inválido na query string; envie grant_type no corpo (application/x-www-form-urlencoded).',
      );
    }
    const grantType = form.get('grant_type') ?? (grantTypeInQuery ? query.get('grant_type') : null);
    if (!grantType) throw oauthError(400, 'invalid_request', 'Missing form parameter: grant_type');
    if (grantType !== 'client_credentials')
      throw oauthError(400, 'unsupported_grant_type', `Unsupported grant_type "${grantType}"; use client_credentials.`);
    if (!expected || !basic || basic.id !== expected.clientId || basic.secret !== expected.clientSecret) {
      throw oauthError(401, 'invalid_client', 'Invalid client or Invalid client credentials');
    }
    if (mutualTls && certificate.commonName !== expected.clientId)
      throw oauthError(401, 'invalid_client', 'The client certificate does not belong to this client.');
    const scopes = requestedScopes(
      form.get('scope') ?? (grantTypeInQuery ? query.get('scope') : null),
      PIX_SCOPES,
      true,
    );
    const accessToken = this.store(this.access, {
      kind: 'pix',
      scopes,
      subject: expected.clientId,
      expiresAt: this.options.now() + this.lifetimeMs,
    });
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: this.lifetimeMs / 1000,
      scope: scopes.join(' '),
    };
  }

  /**
   * Whether this endpoint sees client certificates (mutual TLS), having refused a caller that
   * presents none or one the bank did not issue (`which` names the certificate to present).
   */
  private checkClientCertificate(certificate: ClientCertificateInfo, which: string): boolean {
    const mutualTls = this.options.mutualTls !== false;
    if (mutualTls && !certificate.presented)
      throw oauthError(401, 'invalid_client', `A client certificate is required (mutual TLS): present ${which}.`);
    if (mutualTls && !certificate.trusted)
      throw oauthError(401, 'invalid_client', 'The client certificate was not issued by the bank.');
    return mutualTls;
  }

  /** Checks `Authorization: Bearer <token>` for an API of `kind` needing any one of `scopes`. */
  authenticate(authorization: string | undefined, kind: TokenKind, scopes: readonly string[]): IssuedToken {
    // The manual: a missing, unknown or expired bearer token is 401 "UNAUTHORIZED".
    const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
    const token = match ? this.access.get(match[1]) : undefined;
    if (!match || !token) throw gatewayError(401, 'UNAUTHORIZED');
    if (token.expiresAt <= this.options.now()) {
      this.access.delete(match[1]);
      throw gatewayError(401, 'UNAUTHORIZED');
    }
    if (token.kind !== kind || !token.scopes.some((scope) => scopes.includes(scope))) {
      throw gatewayError(
        403,
        `Insufficient scope: this operation requires one of ${scopes.join(', ')} (the token has ${token.scopes.join(' ')}).`,
      );
    }
    return token;
  }

  private store(map: Map<string, IssuedToken>, token: IssuedToken): string {
    const value = newToken();
    map.set(value, token);
    return value;
  }
}
