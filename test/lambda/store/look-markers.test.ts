import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { IdempotencyTable } from '../../../contracts/processor';
import { DynamoDbLookMarkers, type LookMarkers, lookMarkerKey } from '../../../lambda/store/look-markers';
import { type Dynalite, startDynalite } from '../../../tools/local-aws/dynalite';
import { MemoryLookMarkers } from '../../support/processor-records';

let dynamo: Dynalite;
beforeAll(async () => {
  dynamo = await startDynalite();
  await dynamo.createIdempotencyTable('markers');
});
afterAll(() => dynamo?.stop());

const T = 1_800_000_000_000;

describe.each([
  ['on the table (dynalite)', () => new DynamoDbLookMarkers(dynamo.client, 'markers')],
  ["in memory (the tests' fake)", () => new MemoryLookMarkers()],
])('look markers %s', (_where, make: () => LookMarkers) => {
  let n = 0;
  const subject = () => `payment:pix:E${++n}${Date.now()}`;

  it('lets one look hold a subject: a second is refused until the first expires, then takes it', async () => {
    const markers = make();
    const id = subject();
    expect(await markers.claim(id, 'a', T + 1_000, T)).toBe(true);
    expect(await markers.claim(id, 'b', T + 5_000, T + 500)).toBe(false);
    // The expiry is read in the write's condition: one millisecond past it, another look may take it.
    expect(await markers.claim(id, 'b', T + 5_000, T + 1_001)).toBe(true);
    expect(await markers.claim(id, 'a', T + 9_000, T + 1_002)).toBe(false);
  });

  it('lets the holder hold it again (a deferral, a redelivery) and frees it on release, for the holder only', async () => {
    const markers = make();
    const id = subject();
    await markers.claim(id, 'a', T + 1_000, T);
    expect(await markers.claim(id, 'a', T + 60_000, T + 10)).toBe(true);
    await markers.release(id, 'b');
    expect(await markers.claim(id, 'c', T + 60_000, T + 20)).toBe(false);
    await markers.release(id, 'a');
    expect(await markers.claim(id, 'c', T + 60_000, T + 30)).toBe(true);
  });

  it('keeps different subjects apart', async () => {
    const markers = make();
    expect(await markers.claim(subject(), 'a', T + 1_000, T)).toBe(true);
    expect(await markers.claim(subject(), 'b', T + 1_000, T)).toBe(true);
  });
});

it("keeps a marker beside the subject's record, never in it, with a TTL that outlasts its expiry", async () => {
  const markers = new DynamoDbLookMarkers(dynamo.client, 'markers');
  await markers.claim('payment:pix:E1', 'a', T, T - 1_000);
  const { Item } = await dynamo.client.send(
    new GetItemCommand({
      TableName: 'markers',
      Key: { [IdempotencyTable.KEY]: { S: lookMarkerKey('payment:pix:E1') } },
    }),
  );
  expect(Item?.owner?.S).toBe('a');
  expect(Number(Item?.[IdempotencyTable.TTL]?.N)).toBeGreaterThan(T / 1000);
  const record = await dynamo.client.send(
    new GetItemCommand({ TableName: 'markers', Key: { [IdempotencyTable.KEY]: { S: 'payment:pix:E1' } } }),
  );
  expect(record.Item).toBeUndefined();
});
