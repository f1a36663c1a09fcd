import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { type Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createHash, X509Certificate } from 'node:crypto';
import {
  checkServerIdentity,
  createSecureContext,
  rootCertificates,
  type PeerCertificate,
  type SecureContext,
  type SecureVersion,
  type TLSSocket,
} from 'node:tls';

export interface HttpCallOptions {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Text (sent as UTF-8) or bytes. */
  readonly body?: string | Buffer;
  /** Extra CA certificates (PEM) trusted besides Node's public roots. @default none */
  readonly trustedCas?: readonly string[];
  /** Client certificate and key (PEM), for mutual TLS. @default none */
  readonly clientCertPem?: string;
  readonly clientKeyPem?: string;
  /** Deadline for the whole call: connect, TLS, request and complete answer. @default 10000 */
  readonly timeoutMs?: number;
  /** @default 'TLSv1.2' */
  readonly minTlsVersion?: SecureVersion;
  /** @default no maximum */
  readonly maxTlsVersion?: SecureVersion;
  /** Verify the server's certificate chain and name. @default true */
  readonly verifyCertificate?: boolean;
  /** Refuse a server whose own certificate is self-signed, even when trusted. @default false */
  readonly refuseSelfSigned?: boolean;
  /** Abandons the call (rejects with code ABORTED). @default none */
  readonly signal?: AbortSignal;
  /**
   * A keep-alive agent to reuse connections (a control client making many calls). The TLS
   * settings then apply to the agent's new connections only. @default a fresh connection per call
   */
  readonly agent?: HttpsAgent;
  /**
   * Resumes the TLS session of the last call to the same host and port with the same TLS settings
   * (as the bank's HTTP client does): a resumed handshake skips the certificate exchange, whose
   * checks were made when the session began. @default false: a full handshake every call
   */
  readonly reuseTlsSessions?: boolean;
}

export interface HttpCallResult {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** Negotiated TLS protocol, e.g. "TLSv1.3" (HTTPS only). */
  readonly tlsProtocol?: string;
  readonly durationMs: number;
}

/** Why a call produced no HTTP answer. `code` is Node's or OpenSSL's error code, or TIMEOUT / SELF_SIGNED. */
export class HttpCallError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly durationMs: number,
  ) {
    super(message);
    this.name = 'HttpCallError';
  }
}

const selfSignedByFingerprint = new Map<string, boolean>();

/** True when the certificate is self-signed: issued by itself and signed with its own key. Remembered per certificate. */
export function isSelfSigned(cert: { readonly raw?: Buffer; readonly fingerprint256?: string } | undefined): boolean {
  if (!cert?.raw) return false;
  const fingerprint = cert.fingerprint256 ?? createHash('sha256').update(cert.raw).digest('hex');
  let known = selfSignedByFingerprint.get(fingerprint);
  if (known === undefined) {
    const x509 = new X509Certificate(cert.raw);
    // Not checkIssued(): it also requires keyCertSign, which a self-signed leaf usually lacks.
    known = x509.subject === x509.issuer && x509.verify(x509.publicKey);
    if (selfSignedByFingerprint.size >= 256) selfSignedByFingerprint.clear();
    selfSignedByFingerprint.set(fingerprint, known);
  }
  return known;
}

const TLS_ERROR_TEXT: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed',
  SELF_SIGNED: 'the certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'the chain ends in a self-signed certificate nobody trusts',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    'the certificate was issued by a CA that is not trusted (or the chain is incomplete)',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    'the certificate was issued by a CA that is not trusted (or the chain is incomplete)',
  CERT_HAS_EXPIRED: 'the certificate has expired',
  CERT_NOT_YET_VALID: 'the certificate is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate is not valid for this host name',
  ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION: 'no TLS version in common (TLS 1.2 or later is required)',
  ERR_SSL_UNSUPPORTED_PROTOCOL: 'no TLS version in common (TLS 1.2 or later is required)',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the server',
  ENOTFOUND: 'host name not found',
  TIMEOUT: 'no complete answer before the deadline',
};

/** A plain-words reason for a failed call, for delivery logs and check tables. */
export function describeCallError(error: unknown): string {
  const raw = (error as { code?: unknown } | undefined)?.code;
  const code = error instanceof HttpCallError ? error.code : typeof raw === 'string' ? raw : '';
  const message = error instanceof Error ? error.message : String(error);
  // OpenSSL reports a version mismatch as a generic EPROTO; its message says which.
  const versionMismatch = /protocol version|unsupported protocol|wrong version number/i.test(message);
  const text = TLS_ERROR_TEXT[code] ?? (versionMismatch ? TLS_ERROR_TEXT.ERR_SSL_UNSUPPORTED_PROTOCOL : undefined);
  return text ? `${text} (${code || 'TLS'})` : message;
}

/** 127.0.0.0/8, ::1, localhost and *.localhost (RFC 6761). */
function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const secureContexts = new Map<string, SecureContext>();
/** The last TLS session per host, port and TLS settings, for calls with reuseTlsSessions. */
const tlsSessions = new Map<string, Buffer>();
const MAX_TLS_SESSIONS = 64;
const MAX_SECURE_CONTEXTS = 32;

/**
 * The TLS settings of a call as a secure context, made once per distinct set: making one parses
 * every trusted root certificate (about 25 ms of CPU), which at the bank's delivery rates would
 * cost more than the deliveries themselves.
 */
function secureContextFor(options: HttpCallOptions, loopback: boolean): { context: SecureContext; key: string } {
  // No public CA certifies a loopback name, so there the extra CAs alone are trusted: a store
  // of some 150 roots costs every connection about 0.6 ms of CPU, even a resumed one.
  const roots = loopback ? [] : rootCertificates;
  const settings = {
    ca: options.trustedCas?.length ? [...roots, ...options.trustedCas] : undefined,
    cert: options.clientCertPem,
    key: options.clientKeyPem,
    minVersion: options.minTlsVersion ?? 'TLSv1.2',
    maxVersion: options.maxTlsVersion,
    // A call that asks for TLS 1.0 or 1.1 is a test of whether the server refuses them: OpenSSL 3
    // (Node 24) will not even offer them at its default security level, so lower it for that call.
    ...(options.maxTlsVersion === 'TLSv1' || options.maxTlsVersion === 'TLSv1.1'
      ? { ciphers: 'DEFAULT@SECLEVEL=0' }
      : {}),
  };
  const key = createHash('sha256')
    .update(
      JSON.stringify([
        loopback,
        options.trustedCas,
        settings.cert,
        settings.key,
        settings.minVersion,
        settings.maxVersion,
      ]),
    )
    .digest('hex');
  let context = secureContexts.get(key);
  if (!context) {
    context = createSecureContext(settings);
    if (secureContexts.size >= MAX_SECURE_CONTEXTS) secureContexts.delete(secureContexts.keys().next().value!);
    secureContexts.set(key, context);
  }
  return { context, key };
}

/**
 * One HTTP(S) call with a hard deadline over the whole exchange, a fresh connection unless an
 * agent is given (so the handshake and peer checks happen every time; the TLS settings are made
 * once), optional extra trusted CAs and client certificate. Resolves with any HTTP status; rejects with HttpCallError when there is no answer.
 */
export function httpCall(url: string | URL, options: HttpCallOptions = {}): Promise<HttpCallResult> {
  const target = new URL(url);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const isHttps = target.protocol === 'https:';
  if (!isHttps && target.protocol !== 'http:') {
    return Promise.reject(
      new HttpCallError(`Unsupported URL scheme ${target.protocol} in ${target.href}`, 'ERR_INVALID_PROTOCOL', 0),
    );
  }
  return new Promise<HttpCallResult>((resolve, reject) => {
    let settled = false;
    const fail = (error: HttpCallError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(error);
    };
    const body =
      options.body === undefined ? undefined : Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body);
    const headers = { ...options.headers, ...(body ? { 'content-length': String(body.length) } : {}) };
    const tls = isHttps ? secureContextFor(options, isLoopback(target.hostname)) : undefined;
    const sessionKey = tls && options.reuseTlsSessions ? `${target.host}|${tls.key}` : undefined;
    const session = sessionKey ? tlsSessions.get(sessionKey) : undefined;
    const tlsOptions = tls
      ? {
          secureContext: tls.context,
          ...(session ? { session } : {}),
          rejectUnauthorized: options.verifyCertificate ?? true,
          // Runs during the handshake, before any byte of the request is sent.
          checkServerIdentity: (host: string, cert: PeerCertificate) => {
            if (options.refuseSelfSigned && isSelfSigned(cert)) {
              return Object.assign(new Error(`${target.host} presented a self-signed certificate`), {
                code: 'SELF_SIGNED',
              });
            }
            return checkServerIdentity(host, cert);
          },
        }
      : {};
    const req = (isHttps ? httpsRequest : httpRequest)(
      target,
      { method: options.method ?? 'GET', headers, agent: (isHttps && options.agent) || false, ...tlsOptions },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error: NodeJS.ErrnoException) =>
          fail(new HttpCallError(error.message, error.code ?? 'ERR_RESPONSE', elapsed())),
        );
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          const socket = res.socket as TLSSocket | null;
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            tlsProtocol: isHttps ? (socket?.getProtocol?.() ?? undefined) : undefined,
            durationMs: elapsed(),
          });
        });
      },
    );
    if (sessionKey) {
      req.on('socket', (socket) =>
        socket.on('session', (ticket: Buffer) => {
          tlsSessions.delete(sessionKey);
          if (tlsSessions.size >= MAX_TLS_SESSIONS) tlsSessions.delete(tlsSessions.keys().next().value!);
          tlsSessions.set(sessionKey, ticket);
        }),
      );
    }
    const timer = setTimeout(
      () =>
        fail(
          new HttpCallError(`No complete answer from ${target.origin} within ${timeoutMs} ms`, 'TIMEOUT', elapsed()),
        ),
      timeoutMs,
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      fail(new HttpCallError(error.message, error.code ?? 'ERR_REQUEST', elapsed())),
    );
    const abort = () => fail(new HttpCallError(`Call to ${target.origin} abandoned`, 'ABORTED', elapsed()));
    if (options.signal?.aborted) abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    req.on('close', () => options.signal?.removeEventListener('abort', abort));
    req.end(body);
  });
}
