import {
  decodeStoredNotification,
  encodeStoredNotification,
  sqsAttributeText,
} from '../../../lambda/store/stored-notification';
import { MAX_BODY_BYTES_LIMIT, QUARANTINE_REASON_BYTES, SQS_MAX_MESSAGE_BYTES } from '../../../contracts/receiver';

const meta = {
  route: 'boleto' as const,
  receivedAt: '2025-06-03T17:05:09.120Z',
  requestId: 'r1',
  sourceIp: '203.0.113.1',
  contentType: 'application/json',
};

describe('the stored notification envelope', () => {
  it('carries a UTF-8 body as text, with its metadata', () => {
    const body = Buffer.from('{"nossoNumero":"231004567","nome":"João Ação"}');
    const message = encodeStoredNotification(meta, body);
    const decoded = decodeStoredNotification(message);
    expect(decoded.notification).toEqual({ v: 1, ...meta, bodyEncoding: 'utf8', body: body.toString('utf8') });
    expect(decoded.body.equals(body)).toBe(true);
  });

  it.each([
    ['invalid UTF-8', Buffer.from([0xc3, 0x28, 0xff])],
    ['characters SQS refuses (U+FFFF)', Buffer.from('a\uFFFFb', 'utf8')],
  ])('falls back to base64 for %s and restores the exact bytes', (_case, body) => {
    const decoded = decodeStoredNotification(encodeStoredNotification(meta, body));
    expect(decoded.notification.bodyEncoding).toBe('base64');
    expect(decoded.body.equals(body)).toBe(true);
  });

  it("stores API Gateway's text body as its UTF-8 bytes would be, without a copy to bytes and back", () => {
    const text = '{"nome":"João Ação","emoji":"\u{1F4B8}"}';
    expect(encodeStoredNotification(meta, text)).toBe(encodeStoredNotification(meta, Buffer.from(text, 'utf8')));
    // A lone surrogate (not UTF-8 at all) travels escaped and reads back as the bytes API Gateway's text stands for.
    const lone = 'a\uD800b';
    const decoded = decodeStoredNotification(encodeStoredNotification(meta, lone));
    expect(decoded.body.equals(Buffer.from(lone, 'utf8'))).toBe(true);
    // Text SQS refuses goes as base64 of its UTF-8, as its bytes do.
    const refused = decodeStoredNotification(encodeStoredNotification(meta, 'a\uFFFEb'));
    expect(refused.notification.bodyEncoding).toBe('base64');
    expect(refused.body.equals(Buffer.from('a\uFFFEb', 'utf8'))).toBe(true);
  });

  it('counts the bytes of a text body whose characters take three bytes each, and falls back to base64 only when it must', () => {
    const text = '\u20AC'.repeat(80_000); // 240,000 bytes of UTF-8 in 80,000 characters
    const message = encodeStoredNotification(meta, text);
    expect(Buffer.byteLength(message)).toBeLessThanOrEqual(SQS_MAX_MESSAGE_BYTES);
    expect(decodeStoredNotification(message).notification.bodyEncoding).toBe('utf8');
    const escapes = '\u0001'.repeat(MAX_BODY_BYTES_LIMIT);
    const escaped = encodeStoredNotification(meta, escapes);
    expect(Buffer.byteLength(escaped)).toBeLessThanOrEqual(SQS_MAX_MESSAGE_BYTES);
    expect(decodeStoredNotification(escaped).body.equals(Buffer.from(escapes))).toBe(true);
  });

  it('keeps control characters as text, escaped by JSON (which SQS accepts)', () => {
    const body = Buffer.from('a\u0000b\u0001c');
    const message = encodeStoredNotification(meta, body);
    expect(message).toContain('\\u0000');
    expect(decodeStoredNotification(message).body.equals(body)).toBe(true);
  });

  it('fits in one SQS message even for the largest allowed body of worst-case bytes', () => {
    const escapes = Buffer.alloc(MAX_BODY_BYTES_LIMIT, 0x01); // each byte becomes \u0001 as JSON text
    const message = encodeStoredNotification(meta, escapes);
    expect(Buffer.byteLength(message)).toBeLessThanOrEqual(SQS_MAX_MESSAGE_BYTES);
    expect(decodeStoredNotification(message).body.equals(escapes)).toBe(true);
  });

  it('keeps the journal key the processor puts on the rest of a notification it sends again', () => {
    const message = encodeStoredNotification(
      { ...meta, journalKey: 'notifications/2025-06-03/17-05-09.120Z-r1.json' },
      Buffer.from('[]'),
    );
    expect(decodeStoredNotification(message).notification.journalKey).toBe(
      'notifications/2025-06-03/17-05-09.120Z-r1.json',
    );
  });

  it("keeps the receiver's trace id, and leaves out one that is not a trace id (anyone who may send to the queue writes the envelope) without refusing the notification", () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    expect(
      decodeStoredNotification(encodeStoredNotification({ ...meta, traceId }, Buffer.from('[]'))).notification.traceId,
    ).toBe(traceId);
    for (const forged of ['not-a-trace', `${traceId}\n`, 'A'.repeat(32), '0'.repeat(32), 42]) {
      const decoded = decodeStoredNotification(
        JSON.stringify({ v: 1, ...meta, traceId: forged, bodyEncoding: 'utf8', body: '[]' }),
      );
      expect(decoded.notification).not.toHaveProperty('traceId');
      expect(decoded.body.toString()).toBe('[]');
    }
  });

  it.each([
    ['text that is not JSON', 'hello', /not JSON/],
    ['JSON of another shape', '{"foo":1}', /not a version 1 notification envelope/],
    [
      'an unknown route',
      JSON.stringify({ v: 1, route: 'x', requestId: 'r', receivedAt: 't', bodyEncoding: 'utf8', body: '' }),
      /not a version 1/,
    ],
    [
      'an unknown encoding',
      JSON.stringify({ v: 1, route: 'boleto', requestId: 'r', receivedAt: 't', bodyEncoding: 'hex', body: '' }),
      /not a version 1/,
    ],
    [
      'a journal key outside the journal',
      JSON.stringify({
        v: 1,
        route: 'boleto',
        requestId: 'r',
        receivedAt: 't',
        bodyEncoding: 'utf8',
        body: '',
        journalKey: '../other/key',
      }),
      /not a version 1/,
    ],
    [
      'a journal key that is not text',
      JSON.stringify({
        v: 1,
        route: 'boleto',
        requestId: 'r',
        receivedAt: 't',
        bodyEncoding: 'utf8',
        body: '',
        journalKey: 7,
      }),
      /not a version 1/,
    ],
  ])('refuses to decode %s with a readable error', (_case, message, expected) => {
    expect(() => decodeStoredNotification(message)).toThrow(expected);
  });
});

describe('quarantine attribute text', () => {
  it('replaces characters SQS refuses and cuts to the byte limit on a character boundary', () => {
    expect(sqsAttributeText('a\u0001b\uFFFFc', 100)).toBe('a\uFFFDb\uFFFDc');
    // "é" is two bytes, "😀" four: never half of one.
    expect(sqsAttributeText('éé😀x', 5)).toBe('éé');
    expect(sqsAttributeText('éé😀x', 8)).toBe('éé😀');
    expect(Buffer.byteLength(sqsAttributeText('😀'.repeat(2000), QUARANTINE_REASON_BYTES))).toBe(
      QUARANTINE_REASON_BYTES,
    );
  });
});
