/**
 * The raw journal against moto's S3 server (PyPI, on loopback; `npm run setup:moto`): the
 * processor keeps every authenticated notification as received, listable by day and by subject,
 * never replaced by a retry, and a notification whose copy cannot be stored is never lost.
 */
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  PutBucketVersioningCommand,
  PutObjectLockConfigurationCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { processBatch } from '../../../lambda/processor/batch';
import { S3NotificationJournal } from '../../../lambda/store/journal';
import { ProcessorMetric } from '../../../contracts/processor';
import { journalKey, journalKeyOfSubjectKey, journalSubjectPrefix, TrailEntryKind } from '../../../contracts/record';
import { decodeStoredNotification } from '../../../lambda/store/stored-notification';
import { type Moto, startMoto } from '../../../tools/local-aws/moto';
import { boletoEvent, contextWith, fakeDeps, nine, sqsRecord } from '../../support/processor-records';

let moto: Moto;
let s3: S3Client;
let bucketCount = 0;

beforeAll(async () => {
  moto = await startMoto();
  s3 = moto.s3();
}, 60_000);
afterAll(async () => {
  await moto?.stop();
});

/** A bucket as the construct makes it: versioned, Object Lock in governance mode. */
async function journalBucket(): Promise<string> {
  const name = `journal-${++bucketCount}`;
  await s3.send(new CreateBucketCommand({ Bucket: name, ObjectLockEnabledForBucket: true }));
  await s3.send(new PutBucketVersioningCommand({ Bucket: name, VersioningConfiguration: { Status: 'Enabled' } }));
  await s3.send(
    new PutObjectLockConfigurationCommand({
      Bucket: name,
      ObjectLockConfiguration: {
        ObjectLockEnabled: 'Enabled',
        Rule: { DefaultRetention: { Mode: 'GOVERNANCE', Days: 1827 } },
      },
    }),
  );
  return name;
}

const keysUnder = async (bucket: string, prefix: string) =>
  ((await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }))).Contents ?? []).map((c) => c.Key!);
const text = async (bucket: string, key: string) =>
  (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToString();

function withJournal(bucket: string) {
  const f = fakeDeps();
  return { ...f, deps: { ...f.deps, journal: new S3NotificationJournal(s3, bucket) } };
}
const run = (f: ReturnType<typeof withJournal>, records: ReturnType<typeof sqsRecord>[]) =>
  processBatch({ Records: records }, contextWith(f.clock), f.deps);

describe('the raw journal on S3 (moto)', () => {
  it('keeps each notification as the receiver stored it, listed by its day and by each subject it names; the trail says where', async () => {
    const bucket = await journalBucket();
    const f = withJournal(bucket);
    f.bank.settle('1001');
    f.bank.settle('1002');
    const record = sqsRecord('boleto', [boletoEvent('1001'), boletoEvent('1002')], { requestId: 'req-journal-1' });
    expect((await run(f, [record])).batchItemFailures).toEqual([]);

    const key = journalKey({ receivedAt: '2025-06-03T17:05:10.000Z', requestId: 'req-journal-1' });
    expect(key).toBe('notifications/2025-06-03/17-05-10.000Z-req-journal-1.json');
    expect(await keysUnder(bucket, 'notifications/2025-06-03/')).toEqual([key]);
    const stored = await text(bucket, key);
    expect(stored).toBe(record.body);
    expect(JSON.parse(decodeStoredNotification(stored).body.toString())).toHaveLength(2);
    for (const id of ['1001', '1002']) {
      const [entry] = await keysUnder(bucket, journalSubjectPrefix(`boleto:54321:${nine(id)}`));
      expect(journalKeyOfSubjectKey(entry)).toBe(key);
      const trail = (await f.store.read(`boleto:54321:${nine(id)}`)).trail ?? [];
      expect(trail.find((e) => e.kind === TrailEntryKind.NOTIFICATION)).toMatchObject({
        journalKey: key,
        requestId: 'req-journal-1',
      });
    }
  });

  it('neither replaces nor adds a version when the same message comes again (a retry, a redrive)', async () => {
    const bucket = await journalBucket();
    const f = withJournal(bucket);
    f.bank.settle('1001');
    const record = sqsRecord('boleto', boletoEvent('1001'), { requestId: 'req-again' });
    await run(f, [record]);
    await run(f, [record]);
    await run(f, [{ ...record, attributes: { ...record.attributes, ApproximateReceiveCount: '2' } }]);
    const versions = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'notifications/' }));
    expect(versions.Versions).toHaveLength(1);
    expect(f.published).toHaveLength(1);
  });

  it('keeps the notification when S3 refuses it: the message is retried (not deleted) until stored, and its events are not held back', async () => {
    const f = withJournal('journal-not-made-yet');
    f.bank.settle('1001');
    const record = sqsRecord('boleto', boletoEvent('1001'), { requestId: 'req-outage' });

    const failed = await run(f, [record]);
    expect(failed.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(f.published).toHaveLength(1);
    expect(f.counts[ProcessorMetric.JOURNAL_FAILURES]).toBe(1);
    expect(f.logs.find((l) => l.level === 'ERROR')).toMatchObject({
      message: expect.stringContaining('could not be written to the journal'),
      extra: { requestId: 'req-outage' },
    });

    // S3 is back: the retry stores the copy and publishes nothing again.
    await s3.send(new CreateBucketCommand({ Bucket: 'journal-not-made-yet' }));
    const retried = await run(f, [{ ...record, attributes: { ...record.attributes, ApproximateReceiveCount: '2' } }]);
    expect(retried.batchItemFailures).toEqual([]);
    expect(await keysUnder('journal-not-made-yet', 'notifications/')).toHaveLength(1);
    expect(f.published).toHaveLength(1);
  });

  it('quarantines the message with the reason when the copy still cannot be stored on its last receive', async () => {
    const f = withJournal('journal-never-made');
    f.bank.settle('1001');
    const record = sqsRecord('boleto', boletoEvent('1001'), { receiveCount: 5 });
    expect((await run(f, [record])).batchItemFailures).toEqual([]);
    expect(f.quarantined).toEqual([
      {
        messageId: record.messageId,
        reason: expect.stringContaining(
          'failed on its last receive (5 of 5): the raw journal could not store notifications/2025-06-03/',
        ),
      },
    ]);
    expect(f.published).toHaveLength(1);
    const trail = (await f.store.read(`boleto:54321:${nine('1001')}`)).trail ?? [];
    expect(trail[trail.length - 1]).toMatchObject({
      kind: TrailEntryKind.QUARANTINED,
      reason: expect.stringContaining('raw journal'),
    });
  });

  it('journals a notification it cannot read (unknown Content-Encoding) before quarantining it', async () => {
    const bucket = await journalBucket();
    const f = withJournal(bucket);
    const record = sqsRecord('payments', { idTransacao: 'x' });
    const body = JSON.parse(record.body) as Record<string, unknown>;
    const compressed = { ...record, body: JSON.stringify({ ...body, contentEncoding: 'zstd' }) };
    await run(f, [compressed]);
    expect(f.quarantined).toHaveLength(1);
    expect(await keysUnder(bucket, 'notifications/')).toHaveLength(1);
  });

  it("does not journal again the rest of a notification it sends back for lack of time: the rest carries the first copy's key", async () => {
    const bucket = await journalBucket();
    const f = withJournal(bucket);
    for (let i = 1; i <= 30; i++) f.bank.settle(String(1000 + i));
    const record = sqsRecord(
      'boleto',
      Array.from({ length: 30 }, (_, i) => boletoEvent(String(1001 + i))),
      { requestId: 'req-big' },
    );
    await processBatch({ Records: [record] }, contextWith(f.clock, 2_000), f.deps);
    expect(f.requeued).toHaveLength(1);
    const rest = decodeStoredNotification(f.requeued[0]).notification;
    expect(rest.journalKey).toBe(journalKey({ receivedAt: '2025-06-03T17:05:10.000Z', requestId: 'req-big' }));
    await run(f, [{ ...record, body: f.requeued[0] }]);
    expect(await keysUnder(bucket, 'notifications/')).toEqual([rest.journalKey]);
    expect(await text(bucket, rest.journalKey!)).toBe(record.body);
  });
});
