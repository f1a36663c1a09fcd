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

/**
 * Builds the SQS message body for a notification. The body travels as text when its bytes are
 * valid UTF-8 that SQS accepts and the message fits; otherwise as base64, so no authenticated
 * request is ever refused by SQS for what it contains.
 */
export function encodeStoredNotification(meta: StoredNotificationMeta, body: Buffer): string {
  const text = isUtf8(body) ? body.toString('utf8') : undefined;
  if (text !== undefined && !SQS_UNSAFE.test(text)) {
    const json = JSON.stringify({ v: 1, ...meta, bodyEncoding: 'utf8', body: text } satisfies StoredNotification);
    if (Buffer.byteLength(json, 'utf8') <= SQS_MAX_MESSAGE_BYTES - MESSAGE_ATTRIBUTES_RESERVE_BYTES) return json;
  }
  return JSON.stringify({
    v: 1,
    ...meta,
    bodyEncoding: 'base64',
    body: body.toString('base64'),
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
