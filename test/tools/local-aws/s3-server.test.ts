/** The local S3 the runner and the demo use, spoken to by the real @aws-sdk/client-s3 (path style, as at moto's). */
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { LocalS3 } from '../../../tools/local-aws/s3-server';
import { LOCAL_AWS } from '../../../tools/local-aws/local-env';

let server: LocalS3;
let s3: S3Client;

beforeAll(async () => {
  server = new LocalS3();
  s3 = new S3Client({ region: LOCAL_AWS.region, credentials: LOCAL_AWS.credentials, endpoint: await server.start() });
  await s3.send(new CreateBucketCommand({ Bucket: 'journal' }));
});
afterAll(async () => {
  s3.destroy();
  await server.stop();
});

it('stores a body once under If-None-Match, reads it back, and lists by prefix a page at a time', async () => {
  await s3.send(
    new PutObjectCommand({
      Bucket: 'journal',
      Key: 'notifications/2026-11-25/a.json',
      Body: Buffer.from('{"a":1}'),
      IfNoneMatch: '*',
    }),
  );
  await expect(
    s3.send(
      new PutObjectCommand({
        Bucket: 'journal',
        Key: 'notifications/2026-11-25/a.json',
        Body: Buffer.from('other'),
        IfNoneMatch: '*',
      }),
    ),
  ).rejects.toMatchObject({ name: 'PreconditionFailed' });
  for (const name of ['b', 'c'])
    await s3.send(
      new PutObjectCommand({
        Bucket: 'journal',
        Key: `notifications/2026-11-25/${name}.json`,
        Body: Buffer.from(name),
      }),
    );
  await s3.send(
    new PutObjectCommand({ Bucket: 'journal', Key: 'notifications/2026-11-26/d.json', Body: Buffer.from('d') }),
  );

  expect(
    await (
      await s3.send(new GetObjectCommand({ Bucket: 'journal', Key: 'notifications/2026-11-25/a.json' }))
    ).Body!.transformToString(),
  ).toBe('{"a":1}');
  const first = await s3.send(
    new ListObjectsV2Command({ Bucket: 'journal', Prefix: 'notifications/2026-11-25/', MaxKeys: 2 }),
  );
  const rest = await s3.send(
    new ListObjectsV2Command({
      Bucket: 'journal',
      Prefix: 'notifications/2026-11-25/',
      MaxKeys: 2,
      ContinuationToken: first.NextContinuationToken,
    }),
  );
  expect([first.IsTruncated, rest.IsTruncated]).toEqual([true, false]);
  expect([...first.Contents!, ...rest.Contents!].map((c) => c.Key)).toEqual(
    ['a', 'b', 'c'].map((n) => `notifications/2026-11-25/${n}.json`),
  );
  await expect(
    s3.send(new GetObjectCommand({ Bucket: 'journal', Key: 'notifications/none.json' })),
  ).rejects.toMatchObject({ name: 'NoSuchKey' });
});

it('lists by delimiter: the keys past the prefix roll up into one common prefix each, a page at a time', async () => {
  for (const key of [
    'subjects/pix-refund:E1:D1/a.json',
    'subjects/pix-refund:E1:D1/b.json',
    'subjects/pix-refund:E2:D1/a.json',
    'subjects/pix:E1/a.json',
  ])
    await s3.send(new PutObjectCommand({ Bucket: 'journal', Key: key, Body: Buffer.from('') }));
  const listed = await s3.send(
    new ListObjectsV2Command({ Bucket: 'journal', Prefix: 'subjects/pix-refund:', Delimiter: '/' }),
  );
  expect((listed.CommonPrefixes ?? []).map((p) => p.Prefix)).toEqual([
    'subjects/pix-refund:E1:D1/',
    'subjects/pix-refund:E2:D1/',
  ]);
  expect(listed.Contents).toBeUndefined();
  const first = await s3.send(
    new ListObjectsV2Command({ Bucket: 'journal', Prefix: 'subjects/pix-refund:', Delimiter: '/', MaxKeys: 1 }),
  );
  expect(first.IsTruncated).toBe(true);
  const rest = await s3.send(
    new ListObjectsV2Command({
      Bucket: 'journal',
      Prefix: 'subjects/pix-refund:',
      Delimiter: '/',
      ContinuationToken: first.NextContinuationToken,
    }),
  );
  expect([...(first.CommonPrefixes ?? []), ...(rest.CommonPrefixes ?? [])].map((p) => p.Prefix)).toEqual([
    'subjects/pix-refund:E1:D1/',
    'subjects/pix-refund:E2:D1/',
  ]);
});
