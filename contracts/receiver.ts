/**
 * The contract between the `BankWebhookReceiver` construct, the receiver handler, and the
 * processor that reads what the receiver stored. Both sides import this module, so the compiler
 * holds the settings' name and shape, limits and the stored message format together.
 */

/** Environment variable holding the receiver's settings ({@link ReceiverSettings} as JSON), written by `BankWebhookEndpoint`. */
export const RECEIVER_SETTINGS_ENV = 'BANK_WEBHOOKS_RECEIVER_SETTINGS';

/** What the construct writes for the receiver function, every default filled (the handler applies none). */
export interface ReceiverSettings {
  /** URL of the SQS queue notifications are stored in. */
  readonly queueUrl: string;
  /** ARN of the secret whose value the bank sends as `Authorization` on `/payments`. */
  readonly paymentsTokenSecretArn: string;
  /** ARN of the secret whose value the bank sends in the boleto contract's header on `/boleto`. */
  readonly boletoTokenSecretArn: string;
  /** Name of the header that carries the boleto contract's token (the contract's `header`). */
  readonly boletoTokenHeader: string;
  /** Largest body, in bytes after base64 decoding, that is stored; larger ones get 413. */
  readonly maxBodyBytes: number;
  /** How long, in milliseconds, token values are cached in memory. */
  readonly tokenCacheTtlMs: number;
  /** Total time, in milliseconds, the receiver may spend storing one notification in SQS. */
  readonly enqueueBudgetMs: number;
  /** The receiver's name: the `receiver` dimension of its metrics. */
  readonly receiverName: string;
  /**
   * The Pix route's pinned client certificates (behind mutual TLS): a callback whose certificate
   * matches none is refused with 403. Absent: no check (a NON_PRODUCTION receiver without mutual TLS).
   */
  readonly pixClientCertificates?: PixClientCertificatePins;
}

/** The provider's client certificates the Pix route accepts: any one fingerprint or subject matches. */
export interface PixClientCertificatePins {
  /** SHA-256 fingerprints of the leaf certificate (hex, lower case, no colons). */
  readonly fingerprints: readonly string[];
  /** Subject DNs, as API Gateway gives them (`requestContext.identity.clientCert.subjectDN`). */
  readonly subjects: readonly string[];
  /**
   * Issuer DNs a subject pin is held to, in the normal form {@link normalizedDn} writes: a
   * certificate matches a subject pin only when the issuer read from its PEM is one of these.
   * Absent: a subject pin alone (what stacks deployed before it pinned).
   */
  readonly issuers?: readonly string[];
}

/**
 * A distinguished name in one form whatever its writing (`CN=a,O=b`, `O=b, CN=a`, Node's
 * `CN=a\nO=b`): its attribute=value parts, trimmed, the attribute in upper case, sorted, joined by
 * commas. (API Gateway does not document its `issuerDN` string's format, so the receiver reads the
 * issuer from the certificate itself and compares in this form.)
 */
export function normalizedDn(dn: string): string {
  return dn
    .split(/\n|,(?=\s*[A-Za-z][A-Za-z0-9.]*\s*=)/)
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const at = part.indexOf('=');
      return at < 0 ? part : `${part.slice(0, at).trim().toUpperCase()}=${part.slice(at + 1).trim()}`;
    })
    .sort()
    .join(',');
}

/** The two routes the bank calls with its token (the collection and payments APIs). */
export const ROUTES = ['payments', 'boleto'] as const;
/** The standard Pix API's callback route (on an API of its own: the provider appends `/pix` to the registered URL). */
export const PIX_ROUTE = 'pix' as const;
/**
 * Pix Automático's callback routes, on the Pix API beside `/pix`: the provider appends `/rec` (a
 * recurrence changed) and `/cobr` (a recurring charge changed) to the account's registered URL.
 */
export const PIX_RECURRING_ROUTES = ['rec', 'cobr'] as const;
/** Every route whose bodies are stored and processed. */
export const STORED_ROUTES = [...ROUTES, PIX_ROUTE, ...PIX_RECURRING_ROUTES] as const;
export type Route = (typeof STORED_ROUTES)[number];

/** Largest message SQS accepts (bytes), message attributes included. Both queues are created with this maximum. */
export const SQS_MAX_MESSAGE_BYTES = 1_048_576;

/**
 * Room kept in every message for its attributes: the receiver's, and the processor's when it
 * quarantines the same body (a reason of at most QUARANTINE_REASON_BYTES, a time, an id).
 */
export const MESSAGE_ATTRIBUTES_RESERVE_BYTES = 8 * 1024;

/** Longest quarantine reason (bytes of UTF-8), cut on a character boundary. */
export const QUARANTINE_REASON_BYTES = 4_000;

/**
 * Upper bound for the body size limit. A body of this size stored as base64 inside the envelope
 * still fits in one SQS message, whatever its bytes are.
 */
export const MAX_BODY_BYTES_LIMIT = 512 * 1024;

/** The header the bank sends the payment callback token in (`authorizationCallback`, spec 2.2): always this one. */
export const PAYMENTS_TOKEN_HEADER = 'Authorization';

/** Defaults of the receiver's settings (the construct fills them). */
export const ReceiverDefaults = {
  /** The receiver function's memory size, in MiB (`receiverMemorySize`). */
  memorySizeMb: 512,
  maxBodyBytes: 256 * 1024,
  /** The boleto contract's `header` when none is chosen: the same header as payments. */
  boletoTokenHeader: PAYMENTS_TOKEN_HEADER,
  tokenCacheTtlMs: 60_000,
  /** Well under the bank's 10 s deadline, leaving room for a cold start and a token fetch. */
  enqueueBudgetMs: 3_000,
  /** Budget for fetching the token secrets when the cache is empty or expired. */
  secretFetchBudgetMs: 1_500,
  /** Kept before the function's timeout to answer 503 and write its ERROR line (API Gateway would answer 502 with neither). */
  answerMarginMs: 1_500,
  /** Least time worth trying SendMessage with. */
  minEnqueueMs: 100,
  /** After a token mismatch, the cache is reloaded at most this often (rotation pick-up). */
  mismatchRefreshIntervalMs: 1_000,
} as const;

/** Namespace of the CloudWatch metrics the handlers emit (embedded metric format). */
export const METRICS_NAMESPACE = 'CdkBankWebhooks';

/**
 * The dimension every metric of the library carries beside `service`: the receiver's name
 * (`receiverName`), so that receivers in one account and region never share a metric or trip
 * each other's alarms.
 */
export const RECEIVER_DIMENSION = 'receiver';

/** The receiver name of functions run outside a stack (the bench, local harnesses); a stack always names its own. */
export const UNNAMED_RECEIVER = 'bank-webhooks';

/** What a receiver name may hold (a CloudWatch dimension value, kept readable). */
export const RECEIVER_NAME_PATTERN = /^[A-Za-z0-9._\-/:]{1,255}$/;

/** The `service` dimension of every metric the receiver emits. */
export const RECEIVER_SERVICE_NAME = 'bank-webhook-receiver';

/** Metric names the receiver emits, with a `Route` dimension. */
export enum ReceiverMetric {
  STORED = 'NotificationsStored',
  UNAUTHORIZED = 'UnauthorizedRequests',
  TOO_LARGE = 'PayloadTooLarge',
  ENQUEUE_FAILED = 'EnqueueFailures',
  TOKEN_LOAD_FAILED = 'TokenLoadFailures',
  /** The Pix provider's validation calls (the bare URL, or a body with no `pix` array): answered 200, nothing stored. */
  VALIDATION_CALLS = 'ValidationCalls',
  /** Pix callbacks refused with 403: no client certificate, or one the stack does not pin. */
  CERTIFICATE_REFUSED = 'ClientCertificateRefused',
  /** Days left until the provider's client certificate (as a Pix callback presents it) expires: a value, not a count. */
  CERTIFICATE_DAYS_LEFT = 'ClientCertificateDaysLeft',
  /**
   * Bodies the Pix route refused with 400 because it has no mutual TLS (anyone can post there) and
   * the body is not a Pix callback (a JSON object with a `pix` array of objects): nothing stored.
   */
  NOT_A_PIX_CALLBACK = 'PixBodiesRefused',
}

/**
 * What the receiver stores in SQS for every authenticated request: the raw body exactly as the
 * bank sent it, plus where and when it arrived. Version 1.
 */
export interface StoredNotification {
  readonly v: 1;
  readonly route: Route;
  /** ISO 8601 time the receiver got the request. */
  readonly receivedAt: string;
  /** API Gateway's request id, also found in the access log. */
  readonly requestId: string;
  readonly sourceIp?: string;
  readonly contentType?: string;
  /** The request's Content-Encoding (such as gzip), when it had one: `body` holds the bytes as sent. */
  readonly contentEncoding?: string;
  /**
   * Set by the processor on the rest of a notification it sends again (no time or rate for all of
   * it): where the whole notification's raw copy is in the journal, so the part is not journaled.
   */
  readonly journalKey?: string;
  /**
   * Set by the processor on the items of a Pix callback beyond its bound (ProcessorDefaults
   * `subjectsPerNotification`) it sends again: they are verified at the look queue's share of the
   * bank's rate (its idle time), behind notifications. It can only lower a message's priority.
   */
  readonly lookShare?: boolean;
  /**
   * The trace the receiver stored it in (32 hex digits), when the receiver is traced
   * (docs/tracing.md): written once with the raw copy in the journal, and into the trail.
   */
  readonly traceId?: string;
  /** `utf8` when `body` is the body's text; `base64` when the bytes could not travel as text. */
  readonly bodyEncoding: 'utf8' | 'base64';
  readonly body: string;
}

export type StoredNotificationMeta = Omit<StoredNotification, 'v' | 'bodyEncoding' | 'body'>;
