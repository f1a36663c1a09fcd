/**
 * The stored notification envelope (contracts/receiver.ts) written and read: the receiver
 * encodes what the bank sent, the processor decodes it, and both cut message attributes to what
 * SQS takes.
 */
import { isUtf8 } from 'node:buffer';
import {
  MESSAGE_ATTRIBUTES_RESERVE_BYTES,
  type Route,
  STORED_ROUTES,
  SQS_MAX_MESSAGE_BYTES,
  type StoredNotification,
  type StoredNotificationMeta,
} from '../../contracts/receiver';
import { JOURNAL_NOTIFICATIONS_PREFIX } from '../../contracts/record';
import { isTraceId } from '../../contracts/tracing';

/** Characters SQS refuses in a message attribute value (and in a body). */
const SQS_INVALID = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text SQS accepts as a message attribute value: refused characters replaced, cut to `maxBytes` of UTF-8 on a character boundary. */
export function sqsAttributeText(text: string, maxBytes: number): string {
  let out = '';
  let bytes = 0;
  for (const char of text.replace(SQS_INVALID, '\uFFFD')) {
    const size = Buffer.byteLength(char);
    if (bytes + size > maxBytes) break;
    out += char;
    bytes += size;
  }
  return out;
}

/** Characters SQS refuses in a message body that JSON.stringify leaves unescaped. */
const SQS_UNSAFE = /[\uFFFE\uFFFF]/;

/** The most a stored message's JSON may take, in bytes of UTF-8, leaving room for its attributes. */
const MAX_STORED_JSON_BYTES = SQS_MAX_MESSAGE_BYTES - MESSAGE_ATTRIBUTES_RESERVE_BYTES;

/**
 * Builds the SQS message body for a notification. The body travels as text when it is text SQS
 * accepts (a string, or bytes that are valid UTF-8) and the message fits; otherwise as base64, so
 * no authenticated request is ever refused by SQS for what it contains. A string is the body's
 * UTF-8 (API Gateway's `body` when not base64): it is stored as it is, never copied to bytes and
 * back (a lone surrogate JSON escapes, and the processor reads it as the same bytes).
 */
export function encodeStoredNotification(meta: StoredNotificationMeta, body: Buffer | string): string {
  const text = typeof body === 'string' ? body : isUtf8(body) ? body.toString('utf8') : undefined;
  if (text !== undefined && !SQS_UNSAFE.test(text)) {
    // Built by assignment, not spreads: V8 stringifies such an object faster (see metricCounter).
    const stored: StoredNotification = Object.assign({ v: 1 as const }, meta, {
      bodyEncoding: 'utf8' as const,
      body: text,
    });
    const json = JSON.stringify(stored);
    // A UTF-16 code unit is at most 3 bytes of UTF-8: most messages fit without counting them.
    if (json.length * 3 <= MAX_STORED_JSON_BYTES || Buffer.byteLength(json, 'utf8') <= MAX_STORED_JSON_BYTES)
      return json;
  }
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return JSON.stringify({
    v: 1,
    ...meta,
    bodyEncoding: 'base64',
    body: bytes.toString('base64'),
  } satisfies StoredNotification);
}

/** Reads a message the receiver stored; throws a readable error for anything else. */
export function decodeStoredNotification(messageBody: string): { notification: StoredNotification; body: Buffer } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(messageBody);
  } catch {
    throw new Error('Stored message is not JSON: it was not written by the BankWebhookReceiver receiver');
  }
  const n = parsed as Partial<StoredNotification> | null;
  if (
    !n ||
    typeof n !== 'object' ||
    n.v !== 1 ||
    !STORED_ROUTES.includes(n.route as Route) ||
    (n.bodyEncoding !== 'utf8' && n.bodyEncoding !== 'base64') ||
    typeof n.body !== 'string' ||
    typeof n.requestId !== 'string' ||
    typeof n.receivedAt !== 'string' ||
    (n.journalKey !== undefined &&
      (typeof n.journalKey !== 'string' || !n.journalKey.startsWith(JOURNAL_NOTIFICATIONS_PREFIX)))
  ) {
    throw new Error(
      'Stored message is not a version 1 notification envelope (v, route, requestId, receivedAt, bodyEncoding, body)',
    );
  }
  // Anyone who may send to the queue writes the envelope: a trace id that is not one is left out, never a reason to refuse it.
  const { traceId, ...rest } = n as StoredNotification;
  const notification: StoredNotification = isTraceId(traceId) ? { ...rest, traceId } : rest;
  const body = Buffer.from(notification.body, notification.bodyEncoding === 'utf8' ? 'utf8' : 'base64');
  return { notification, body };
}
