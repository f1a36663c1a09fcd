/**
 * The Pix route of the receiver (issue 51): no credential travels with a Pix callback, so the
 * provider is known by its pinned client certificate (behind mutual TLS); the validation call is
 * answered 200 and stores nothing; a callback is stored as received, like the other routes.
 */
import { X509Certificate } from 'node:crypto';
import type { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import {
  RECEIVER_SETTINGS_ENV,
  ReceiverDefaults,
  ReceiverMetric,
  type ReceiverSettings,
} from '../../../contracts/receiver';
import { normalizedDn } from '../../../contracts/receiver';
import { handleNotification, type ReceiverDeps } from '../../../lambda/receiver/receiver';
import { readReceiverSettings } from '../../../lambda/receiver/settings';
import { TokenCache } from '../../../lambda/receiver/token-cache';
import { decodeStoredNotification } from '../../../lambda/store/stored-notification';
import { createCertificateAuthority, issueCertificate } from '../../../simulator/certificates';
import { apiEvent } from '../../support/api-event';
import { RecordingLogger } from '../../support/recording-logger';

const CA = createCertificateAuthority('provider CA');
const PROVIDER = issueCertificate(CA, { commonName: 'webhook.provider.example', client: true });
const OTHER = issueCertificate(CA, { commonName: 'someone.else.example', client: true });
const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256.replace(/:/g, '').toLowerCase();
const CALLBACK = JSON.stringify({
  pix: [
    { endToEndId: 'E01181521202611271200abcdef12345', txid: 'QR1', valor: '10.00', horario: '2026-11-27T12:00:00Z' },
  ],
});

const SETTINGS: ReceiverSettings = {
  queueUrl: 'https://sqs.sa-east-1.amazonaws.com/111111111111/q',
  paymentsTokenSecretArn: 'arn:p',
  boletoTokenSecretArn: 'arn:b',
  boletoTokenHeader: 'Authorization',
  maxBodyBytes: 4096,
  tokenCacheTtlMs: 60_000,
  enqueueBudgetMs: ReceiverDefaults.enqueueBudgetMs,
  receiverName: 'r',
};

function world(pins?: ReceiverSettings['pixClientCertificates']) {
  const sent: string[] = [];
  const counted: string[] = [];
  const values: Record<string, number> = {};
  const logger = new RecordingLogger();
  const sqs = {
    send: async (command: SendMessageCommand) => {
      sent.push(command.input.MessageBody!);
      return { MessageId: `m${sent.length}` };
    },
  } as unknown as SQSClient;
  const deps: ReceiverDeps = {
    settings: { ...SETTINGS, ...(pins ? { pixClientCertificates: pins } : {}) },
    sqs,
    logger,
    tokens: new TokenCache({
      load: () => Promise.reject(new Error('a Pix callback reads no token')),
      ttlMs: 60_000,
      mismatchRefreshIntervalMs: 5_000,
    }),
    count: (name, route, _details, value) => {
      if (value === undefined) counted.push(`${name}:${route}`);
      else values[name] = value;
    },
    now: () => new Date('2026-11-27T12:00:00Z'),
  };
  return { deps, sent, counted, values, logger };
}

/** A Pix callback as API Gateway hands it over behind mutual TLS (`clientCert` in the request context). */
function pixEvent(
  route: 'pix' | 'rec' | 'cobr' | '',
  body: string | null,
  cert?: { pem: string; subjectDN: string; notAfter?: string },
): APIGatewayProxyEvent {
  const event = apiEvent({ route, body });
  return {
    ...event,
    requestContext: {
      ...event.requestContext,
      identity: {
        ...event.requestContext.identity,
        clientCert: cert
          ? {
              clientCertPem: cert.pem,
              subjectDN: cert.subjectDN,
              issuerDN: 'CN=provider CA',
              serialNumber: '1',
              validity: { notBefore: '', notAfter: cert.notAfter ?? '' },
            }
          : null,
      },
    },
  };
}

describe('without mutual TLS (NON_PRODUCTION): no check, stored as received', () => {
  it('stores a callback on /pix exactly as received, with the route pix', async () => {
    const w = world();
    const result = await handleNotification(pixEvent('pix', CALLBACK), w.deps);
    expect(result.statusCode).toBe(200);
    const { notification, body } = decodeStoredNotification(w.sent[0]);
    expect(notification.route).toBe('pix');
    expect(body.toString('utf8')).toBe(CALLBACK);
    expect(w.counted).toEqual([`${ReceiverMetric.STORED}:pix`]);
  });

  it.each([
    ['the bare URL', '' as const, null],
    ['the bare URL with a body', '' as const, CALLBACK],
    ['a body with no pix array', 'pix' as const, '{"teste":true}'],
    ['an empty body', 'pix' as const, null],
  ])('answers the validation call (%s) 200, counted, nothing stored', async (_case, route, body) => {
    const w = world();
    const result = await handleNotification(pixEvent(route, body), w.deps);
    expect(result.statusCode).toBe(200);
    expect(w.sent).toEqual([]);
    expect(w.counted).toEqual([`${ReceiverMetric.VALIDATION_CALLS}:pix`]);
  });

  it.each([
    ['a body that is not JSON', 'not json'],
    ['a pix array of strings', '{"pix":["E01181521202611271200abcdef12345"]}'],
    ['a pix array with null', '{"pix":[null]}'],
  ])(
    'answers %s 400, counted, nothing stored (anyone can post here: nothing kept 5 years, no dead-letter alarm)',
    async (_case, body) => {
      const w = world();
      const result = await handleNotification(pixEvent('pix', body), w.deps);
      expect(result.statusCode).toBe(400);
      expect(JSON.parse(result.body)).toMatchObject({
        message: 'Not a Pix callback: a JSON object with a pix array of objects',
      });
      expect(w.sent).toEqual([]);
      expect(w.counted).toEqual([`${ReceiverMetric.NOT_A_PIX_CALLBACK}:pix`]);
    },
  );

  it.each([
    ['endToEndID', { endToEndID: 'E01181521202611271200abcdef12345', valor: '1.00', horario: '2026-11-27T12:00:00Z' }],
    [
      'horario as an object',
      {
        endToEndId: 'E01181521202611271200abcdef12345',
        valor: '1.00',
        horario: { solicitacao: '2026-11-27T12:00:00Z', liquidacao: '2026-11-27T12:00:00Z' },
      },
    ],
    [
      'devolucoes as one object',
      {
        endToEndId: 'E01181521202611271200abcdef12345',
        valor: '1.00',
        horario: '2026-11-27T12:00:00Z',
        devolucoes: { id: 'D1', valor: '1.00', status: 'DEVOLVIDO' },
      },
    ],
  ])('stores a callback written with %s (a shape the library reads on purpose)', async (_case, pix) => {
    const w = world();
    expect((await handleNotification(pixEvent('pix', JSON.stringify({ pix: [pix] })), w.deps)).statusCode).toBe(200);
    expect(w.sent).toHaveLength(1);
  });

  it('stores a compressed body for the processor to judge (the receiver does not decompress)', async () => {
    const w = world();
    const event = pixEvent('pix', Buffer.from('not json').toString('base64'));
    const result = await handleNotification(
      { ...event, isBase64Encoded: true, headers: { ...event.headers, 'Content-Encoding': 'gzip' } },
      w.deps,
    );
    expect(result.statusCode).toBe(200);
    expect(w.sent).toHaveLength(1);
  });
});

describe('behind mutual TLS: only the pinned provider certificate', () => {
  const pins = { fingerprints: [fingerprint(PROVIDER.certPem)], subjects: [] };

  it('stores a callback presenting the pinned certificate (by fingerprint), and one pinned by subject', async () => {
    const w = world(pins);
    expect(
      (
        await handleNotification(
          pixEvent('pix', CALLBACK, { pem: PROVIDER.certPem, subjectDN: 'CN=webhook.provider.example' }),
          w.deps,
        )
      ).statusCode,
    ).toBe(200);
    const bySubject = world({ fingerprints: [], subjects: ['CN=webhook.provider.example'] });
    expect(
      (
        await handleNotification(
          pixEvent('pix', CALLBACK, { pem: 'not a pem', subjectDN: 'CN=webhook.provider.example' }),
          bySubject.deps,
        )
      ).statusCode,
    ).toBe(200);
    expect([...w.sent, ...bySubject.sent]).toHaveLength(2);
  });

  it('stores every body behind mutual TLS, one that is not JSON too (an authenticated request is never dropped; the processor quarantines it with its reason)', async () => {
    const w = world(pins);
    for (const body of ['not json', '{"pix":["x"]}']) {
      expect(
        (
          await handleNotification(
            pixEvent('pix', body, { pem: PROVIDER.certPem, subjectDN: 'CN=webhook.provider.example' }),
            w.deps,
          )
        ).statusCode,
      ).toBe(200);
    }
    expect(w.sent).toHaveLength(2);
  });

  it('holds a subject pin to its issuer, read from the certificate: the same subject from another CA of the truststore is refused', async () => {
    const rogueCa = createCertificateAuthority('another trusted CA');
    const rogue = issueCertificate(rogueCa, { commonName: 'webhook.provider.example', client: true });
    const held = {
      fingerprints: [],
      subjects: ['CN=webhook.provider.example'],
      issuers: [normalizedDn(new X509Certificate(CA.certPem).subject)],
    };
    const w = world(held);
    expect(
      (
        await handleNotification(
          pixEvent('pix', CALLBACK, { pem: PROVIDER.certPem, subjectDN: 'CN=webhook.provider.example' }),
          w.deps,
        )
      ).statusCode,
    ).toBe(200);
    const refused = await handleNotification(
      pixEvent('pix', CALLBACK, { pem: rogue.certPem, subjectDN: 'CN=webhook.provider.example' }),
      w.deps,
    );
    expect(refused.statusCode).toBe(403);
    expect(
      await handleNotification(
        pixEvent('pix', CALLBACK, { pem: 'not a pem', subjectDN: 'CN=webhook.provider.example' }),
        w.deps,
      ),
    ).toMatchObject({ statusCode: 403 });
    expect(w.sent).toHaveLength(1);
    expect(JSON.stringify(w.logger.entries)).toContain('from an issuer the stack does not pin');
    // Without issuers (a stack deployed before them), the subject pin alone admits it, as before.
    expect(
      (
        await handleNotification(
          pixEvent('pix', CALLBACK, { pem: rogue.certPem, subjectDN: 'CN=webhook.provider.example' }),
          world({ fingerprints: [], subjects: ['CN=webhook.provider.example'] }).deps,
        )
      ).statusCode,
    ).toBe(200);
  });

  it('reads a DN in one form whatever its writing', () => {
    expect(normalizedDn('CN=Provider CA, O=Provider')).toBe(normalizedDn('O=Provider\nCN=Provider CA'));
    expect(normalizedDn('cn=Provider CA,O=Provider')).toBe('CN=Provider CA,O=Provider');
    expect(normalizedDn('CN=a\\,b,O=x')).not.toBe(normalizedDn('CN=a,O=x'));
  });

  it('reports the days left on the certificate the provider presents, for the alarm a month ahead', async () => {
    const w = world(pins);
    await handleNotification(
      pixEvent('pix', CALLBACK, { pem: PROVIDER.certPem, subjectDN: 'CN=x', notAfter: 'Dec 27 11:00:00 2026 GMT' }),
      w.deps,
    );
    expect(w.values[ReceiverMetric.CERTIFICATE_DAYS_LEFT]).toBe(29);
    const refused = world(pins);
    await handleNotification(
      pixEvent('pix', CALLBACK, { pem: OTHER.certPem, subjectDN: 'CN=x', notAfter: 'Dec 27 11:00:00 2026 GMT' }),
      refused.deps,
    );
    expect(refused.values).toEqual({});
  });

  it('takes either of two pinned fingerprints (the provider renewing its certificate)', async () => {
    const w = world({ fingerprints: [fingerprint(OTHER.certPem), fingerprint(PROVIDER.certPem)], subjects: [] });
    expect(
      (await handleNotification(pixEvent('pix', CALLBACK, { pem: PROVIDER.certPem, subjectDN: 'CN=x' }), w.deps))
        .statusCode,
    ).toBe(200);
  });

  it.each([
    ['no certificate', undefined],
    ['another certificate of the same CA', { pem: OTHER.certPem, subjectDN: 'CN=someone.else.example' }],
    [
      "a subject that claims the provider's name on another certificate",
      { pem: OTHER.certPem, subjectDN: 'CN=webhook.provider.example ' },
    ],
  ])('refuses %s with 403, stores nothing, counts it, even for the validation call', async (_case, cert) => {
    const w = world(pins);
    for (const route of ['pix', ''] as const) {
      const result = await handleNotification(pixEvent(route, CALLBACK, cert), w.deps);
      expect(result.statusCode).toBe(403);
    }
    expect(w.sent).toEqual([]);
    expect(w.counted).toEqual([
      `${ReceiverMetric.CERTIFICATE_REFUSED}:pix`,
      `${ReceiverMetric.CERTIFICATE_REFUSED}:pix`,
    ]);
    expect(w.logger.text()).toContain("the client certificate is not the provider's");
  });
});

describe("Pix Automático's routes (/rec, /cobr): the same provider, the same pins, their own lists", () => {
  const pins = { fingerprints: [fingerprint(PROVIDER.certPem)], subjects: [] };
  const REC = JSON.stringify({ recs: [{ idRec: 'RR0000000020261129000000000001' }] });
  const COBR = JSON.stringify({ cobsr: [{ txid: 'cobr0000000000000000000000000001' }] });

  it.each([
    ['rec' as const, REC],
    ['cobr' as const, COBR],
  ])('stores a /%s callback presenting the pinned certificate as received, under its route', async (route, body) => {
    const w = world(pins);
    const result = await handleNotification(
      pixEvent(route, body, { pem: PROVIDER.certPem, subjectDN: 'CN=webhook.provider.example' }),
      w.deps,
    );
    expect(result.statusCode).toBe(200);
    const stored = decodeStoredNotification(w.sent[0]);
    expect(stored.notification.route).toBe(route);
    expect(stored.body.toString('utf8')).toBe(body);
    expect(w.counted).toEqual([`${ReceiverMetric.STORED}:${route}`]);
  });

  it.each(['rec' as const, 'cobr' as const])(
    'refuses /%s from another certificate of the same CA: 403, nothing stored',
    async (route) => {
      const w = world(pins);
      const result = await handleNotification(
        pixEvent(route, route === 'rec' ? REC : COBR, { pem: OTHER.certPem, subjectDN: 'CN=someone.else.example' }),
        w.deps,
      );
      expect(result.statusCode).toBe(403);
      expect(w.sent).toEqual([]);
      expect(w.counted).toEqual([`${ReceiverMetric.CERTIFICATE_REFUSED}:${route}`]);
    },
  );

  it.each([
    ['rec' as const, '{"pix":[]}'],
    ['cobr' as const, '{"recs":[{"idRec":"x"}]}'],
    ['rec' as const, null],
  ])(
    'answers a /%s body without its own list (%s) as the validation call: 200, nothing stored',
    async (route, body) => {
      const w = world();
      const result = await handleNotification(pixEvent(route, body), w.deps);
      expect(result.statusCode).toBe(200);
      expect(w.sent).toEqual([]);
      expect(w.counted).toEqual([`${ReceiverMetric.VALIDATION_CALLS}:${route}`]);
    },
  );

  it('without mutual TLS, refuses a /cobr body whose list holds no objects: 400 naming the shape, nothing stored', async () => {
    const w = world();
    const result = await handleNotification(pixEvent('cobr', '{"cobsr":["cobr0000000000000000000000000001"]}'), w.deps);
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body).message).toBe('Not a Pix callback: a JSON object with a cobsr array of objects');
    expect(w.sent).toEqual([]);
  });
});

it('refuses pins that pin nothing or are malformed, naming the construct', () => {
  const env = (pins: unknown) => ({
    [RECEIVER_SETTINGS_ENV]: JSON.stringify({ ...SETTINGS, pixClientCertificates: pins }),
  });
  expect(
    readReceiverSettings(env({ fingerprints: ['a'.repeat(64)], subjects: [] })).pixClientCertificates?.fingerprints,
  ).toHaveLength(1);
  for (const bad of [
    { fingerprints: [], subjects: [] },
    { fingerprints: ['AB:CD'], subjects: [] },
    { fingerprints: 'x', subjects: [] },
  ]) {
    expect(() => readReceiverSettings(env(bad))).toThrow(
      /pixClientCertificates must list SHA-256 fingerprints.*BankWebhookEndpoint/,
    );
  }
});
