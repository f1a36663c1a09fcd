/**
 * `cdk-bank-webhooks audit`: what it refuses before it reads anything (a window it cannot judge, a
 * receiver without the records it reads), and how it tells an operator what broke and what to do.
 * Over a local stack, with planted violations: test/tools/local-runner/operate.test.ts.
 */
import { runCli } from '../../cli/cli';
import { Invariant, Outcome } from '../../cli/audit/invariants';
import { auditWindow, type AuditResult, formatAudit } from '../../cli/operate/audit';
import type { AwsClients } from '../../cli/operate/aws';
import { CliExit, OPERATOR_MANIFEST_KIND, type OperatorManifest } from '../../contracts/operations';
import { journalKey } from '../../contracts/record';
import { encodeStoredNotification } from '../../lambda/store/stored-notification';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-28T12:00:00Z');
const queue = { url: 'https://sqs/q', arn: 'arn:q' };
const manifest: OperatorManifest = {
  kind: OPERATOR_MANIFEST_KIND,
  receiverName: 'Billing',
  stage: 'PRODUCTION',
  codigoBeneficiario: '54321',
  queues: { notifications: queue, notificationsDeadLetter: queue, looks: queue, looksDeadLetter: queue },
  table: 'records',
  bus: { name: 'bus', arn: 'arn:bus' },
  journalBucket: 'journal',
  auditLog: { group: 'audit-log', deadLetterQueue: { url: 'https://sqs/audit-dlq', arn: 'arn:audit-dlq' } },
  functions: { receiver: 'r', processor: 'p' },
  alarms: [],
  recordsLifetimeSeconds: 35 * 86_400,
  registrations: [],
};
/** AWS that must not be asked: every refusal comes first. */
const untouched = new Proxy(
  {},
  {
    get: (_t, name) => {
      throw new Error(`AWS was asked (${String(name)})`);
    },
  },
) as AwsClients;

async function cli(args: string[]): Promise<{ status: number; err: string }> {
  const err: string[] = [];
  const status = await runCli(args, {
    out: () => undefined,
    err: (text) => err.push(text),
    stopRequested: new Promise(() => undefined),
  });
  return { status, err: err.join('\n') };
}

describe('refused before AWS is asked', () => {
  it('a command line without its window, or one wider than 7 days', async () => {
    expect(await cli(['audit', '--stack', 'Billing'])).toEqual({
      status: CliExit.USAGE,
      err: expect.stringContaining('audit needs --from and --to'),
    });
    expect(await cli(['audit', '--from', '2026-11-01', '--to', '2026-11-20', '--stack', 'Billing'])).toEqual({
      status: CliExit.USAGE,
      err: expect.stringMatching(/The window is 20\.0 days wide; audit takes at most 7 days at a time/),
    });
  });

  it('a window older than the records remember, naming where it may start', async () => {
    await expect(auditWindow(untouched, manifest, NOW - 40 * DAY, NOW - 39 * DAY, NOW)).rejects.toThrow(
      /is before what the receiver's records remember \(its 35-day idempotencyTtl less a day: from 2026-10-25T12:00:00.000Z\)/,
    );
  });

  it('a receiver without a journal, or without an audit log, saying what to turn on', async () => {
    const { journalBucket: _journal, ...noJournal } = manifest;
    await expect(auditWindow(untouched, noJournal, NOW - DAY, NOW, NOW)).rejects.toMatchObject({
      exit: CliExit.NOT_FOUND,
      message: expect.stringContaining('keeps no journal'),
    });
    const { auditLog: _log, ...noLog } = manifest;
    await expect(auditWindow(untouched, noLog, NOW - DAY, NOW, NOW)).rejects.toMatchObject({
      exit: CliExit.NOT_FOUND,
      message: expect.stringContaining(
        'Set auditLog: { enabled: true } on the receiver, deploy, and audit the windows after it',
      ),
    });
  });
});

it('prints each violation with its invariant, and what to do once per invariant', () => {
  const result: AuditResult = {
    from: NOW - DAY,
    to: NOW,
    eventsUntil: NOW,
    notifications: 3,
    events: 2,
    undelivered: 0,
    quarantined: 0,
    accepted: 3,
    republished: 0,
    outcomes: {
      [Outcome.VERIFIED]: 1,
      [Outcome.NOT_CONFIRMED]: 0,
      [Outcome.QUARANTINED]: 0,
      [Outcome.PENDING]: 0,
      [Outcome.FOREIGN]: 0,
    },
    violations: [
      {
        invariant: Invariant.LOST,
        detail:
          'boleto:000000001:a was answered 200 (request r1) but no verified event accounts for it and it is not in quarantine',
      },
      {
        invariant: Invariant.LOST,
        detail:
          'boleto:000000002:b was answered 200 (request r2) but no verified event accounts for it and it is not in quarantine',
      },
      { invariant: Invariant.TWICE, detail: 'boleto:54321:000000003#1 was published as 2 different changes (k1, k2)' },
    ],
  };
  const text = formatAudit(result);
  expect(text).toContain('3 violation(s):\n  ✗ nothing lost: boleto:000000001:a');
  expect(text.match(/^ {2}nothing lost: run `cdk-bank-webhooks trace <subject>`/gm)).toHaveLength(1);
  expect(text).toMatch(/^ {2}nothing twice: consumers dedupe on the idempotencyKey/m);
  expect(formatAudit({ ...result, violations: [] })).toMatch(
    /Nothing lost, nothing published twice, nothing unverified\.$/,
  );
});

describe('what it reads that someone else may have written', () => {
  /** A boleto notification of 10.00 in the journal two hours ago (request r1), with `movimento`. */
  const notified = (movimento: string) => {
    const stored = {
      route: 'boleto' as const,
      receivedAt: new Date(NOW - 2 * 3_600_000).toISOString(),
      requestId: 'r1',
    };
    const boleto = {
      nossoNumero: '000000007',
      idEventoWebhook: 'e7',
      movimento,
      valorLiquidacao: '10.00',
      beneficiario: '54321',
    };
    return { [journalKey(stored)]: encodeStoredNotification(stored, Buffer.from(JSON.stringify(boleto))) };
  };
  /** Its Boleto Settled, as EventBridge writes an event. */
  const settledEvent = JSON.stringify({
    id: 'ev1',
    'detail-type': 'Boleto Settled',
    detail: {
      idempotencyKey: 'boleto:54321:000000007#1:settled:2026-11-28:1000',
      subject: { id: 'boleto:54321:000000007', nossoNumero: '000000007', sequence: 1 },
      state: { status: 'LIQUIDADO', statusClass: 'settled' },
      settlement: { amount: { cents: 1000 } },
    },
  });
  /** AWS as audit reads it: the journal's objects, the audit log's lines, an empty dead-letter queue, no records. */
  function account(objects: Record<string, string>, lines: string[], auditDeadLetters: string[] = []): AwsClients {
    const send = (answer: (command: { constructor: { name: string }; input: Record<string, unknown> }) => unknown) => ({
      send: async (command: never) => answer(command),
    });
    return {
      s3: send((c) =>
        c.constructor.name === 'ListObjectsV2Command'
          ? {
              Contents: Object.keys(objects)
                .filter((k) => k.startsWith(String(c.input.Prefix)))
                .map((Key) => ({ Key })),
              IsTruncated: false,
            }
          : { Body: { transformToString: async () => objects[String(c.input.Key)] } },
      ),
      logs: send(() => ({ events: lines.map((message, i) => ({ message, timestamp: NOW - 3_600_000 + i })) })),
      // The audit log's dead-letter queue answers its messages once (then they are held out of sight); every other queue is empty.
      sqs: send((c) => {
        if (
          c.constructor.name !== 'ReceiveMessageCommand' ||
          c.input.QueueUrl !== manifest.auditLog!.deadLetterQueue.url
        )
          return { Messages: [] };
        return {
          Messages: auditDeadLetters.splice(0).map((Body, i) => ({ MessageId: `m${i}`, ReceiptHandle: `r${i}`, Body })),
        };
      }),
      dynamo: send(() => ({})),
    } as unknown as AwsClients;
  }

  it("reads a claim with the processor's own mappings from the manifest: a movement the receiver calls a settlement is accounted for by its Boleto Settled", async () => {
    const aws = () => account(notified('CREDITO_CONFIRMADO'), [settledEvent]);
    const lost = await auditWindow(aws(), manifest, NOW - 3 * 3_600_000, NOW, NOW);
    // Read with the defaults, the movement means nothing: a notification nothing could verify.
    expect(lost.violations.map((v) => v.detail)).toEqual([
      'request r1 (boleto) was answered 200, cannot be understood, and is not in quarantine',
    ]);
    const movements = {
      settlement: ['CREDITO_CONFIRMADO', 'LIQUIDACAO'],
      reversal: ['ESTORNO'],
      writeOff: ['BAIXA'],
      rejection: ['REJEICAO'],
    };
    const read = await auditWindow(
      aws(),
      { ...manifest, mappings: { boletoMovements: movements } },
      NOW - 3 * 3_600_000,
      NOW,
      NOW,
    );
    expect(read.violations).toEqual([]);
    expect(read.outcomes[Outcome.VERIFIED]).toBe(1);
  });

  it('reads what EventBridge could not write to the log from its dead-letter queue: the event there accounts for its notification', async () => {
    const result = await auditWindow(
      account(notified('LIQUIDACAO_PIX'), [], [settledEvent]),
      manifest,
      NOW - 3 * 3_600_000,
      NOW,
      NOW,
    );
    expect(result).toMatchObject({ violations: [], events: 1, undelivered: 1 });
  });

  it('counts a notification nobody could understand as still on its way to quarantine within the settle time, and lost past it', async () => {
    const young = {
      route: 'payments' as const,
      receivedAt: new Date(NOW - 10 * 60_000).toISOString(),
      requestId: 'young',
    };
    const old = {
      route: 'payments' as const,
      receivedAt: new Date(NOW - 2 * 3_600_000).toISOString(),
      requestId: 'old',
    };
    const junk = Buffer.from(JSON.stringify({ junk: true }));
    const result = await auditWindow(
      account(
        {
          [journalKey(young)]: encodeStoredNotification(young, junk),
          [journalKey(old)]: encodeStoredNotification(old, junk),
        },
        [],
      ),
      manifest,
      NOW - 3 * 3_600_000,
      NOW,
      NOW,
    );
    expect(result.outcomes[Outcome.PENDING]).toBe(1);
    expect(result.violations.map((v) => v.detail)).toEqual([
      'request old (payments) was answered 200, cannot be understood, and is not in quarantine',
    ]);
  });

  it('names a journal object that is no stored notification, a log line that is no event, and the notification nothing accounts for', async () => {
    const junkKey = journalKey({ receivedAt: new Date(NOW - 3_600_000).toISOString(), requestId: 'junk' });
    const result = await auditWindow(
      account({ ...notified('LIQUIDACAO_PIX'), [junkKey]: 'not a stored notification' }, ['{"forged": true}']),
      manifest,
      NOW - 3 * 3_600_000,
      NOW,
      NOW,
    );
    expect(result.violations).toEqual([
      {
        invariant: Invariant.LOST,
        detail: expect.stringContaining(`the journal's ${junkKey} is no stored notification`),
      },
      {
        invariant: Invariant.UNVERIFIED,
        detail: expect.stringMatching(
          /^the audit log holds a line that is no EventBridge event \(written at .* by someone other than its rule\): \{"forged": true\}$/,
        ),
      },
      {
        invariant: Invariant.LOST,
        detail:
          'boleto:000000007:e7 was answered 200 (request r1) but no verified event accounts for it and it is not in quarantine',
      },
    ]);
  });
});
