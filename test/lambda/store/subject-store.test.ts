/**
 * The subject store on the table (dynalite): several subjects read in one request answer what a
 * read of each answers, EMPTY_RECORD for one with no record; and the in-memory fake the core's
 * tests use keeps the same semantics.
 */
import { type Dynalite, startDynalite } from '../../../tools/local-aws/dynalite';
import { DynamoDbSubjectStore, EMPTY_RECORD, type SubjectStore } from '../../../lambda/store/subject-store';
import { MemorySubjectStore } from '../../support/processor-records';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { StatusClass } from '../../../contracts/events';
import { IdempotencyTable } from '../../../contracts/processor';

let dynamo: Dynalite;
beforeAll(async () => {
  dynamo = await startDynalite();
  await dynamo.createIdempotencyTable('subjects');
});
afterAll(() => dynamo?.stop());

describe.each([
  ['on the table (dynalite)', () => new DynamoDbSubjectStore(dynamo.client, 'subjects', 3600)],
  ["in memory (the tests' fake)", () => new MemorySubjectStore()],
])('reading several subjects %s', (_where, make: () => SubjectStore) => {
  it('answers each record as its own read does, an empty record for a subject with none, once per subject asked twice', async () => {
    const store = make();
    const state = { status: 'LIQUIDADO', statusClass: StatusClass.SETTLED, key: 'settled:2025-06-03:100' };
    expect(
      await store.write('boleto:54321:000000001', 0, {
        sequence: 1,
        state,
        history: ['k1'],
        seen: ['e1#h'],
        trail: [],
      }),
    ).toBe(true);
    expect(
      await store.write('payment:pix:E1', 0, {
        sequence: 2,
        history: ['a', 'b'],
        seen: [],
        pendingSince: 1_700_000_000_000,
        outbox: {
          id: 'o-1',
          leaseUntil: 1_700_000_060_000,
          entries: [{ detailType: 'Payment Status Verified' as never, detail: '{"x":1}' }],
        },
      }),
    ).toBe(true);
    const ids = ['boleto:54321:000000001', 'payment:pix:E1', 'boleto:54321:000000009', 'payment:pix:E1'];
    const many = await store.readMany!(ids);
    expect([...many.keys()].sort()).toEqual(['boleto:54321:000000001', 'boleto:54321:000000009', 'payment:pix:E1']);
    for (const id of new Set(ids)) expect(many.get(id)).toEqual(await store.read(id));
    expect(many.get('boleto:54321:000000009')).toEqual(EMPTY_RECORD);
    expect(many.get('payment:pix:E1')).toMatchObject({
      version: 1,
      sequence: 2,
      pendingSince: 1_700_000_000_000,
      outbox: { id: 'o-1' },
    });
  });
});

it("sets each record's TTL by its kind: a Pix's and a refund's live longer, every other kind idempotencyTtl", async () => {
  const store = new DynamoDbSubjectStore(dynamo.client, 'subjects', 30 * 86_400, () => 1_700_000_000_000, {
    pix: 101 * 86_400,
    'pix-refund': 101 * 86_400,
  });
  const ids = [
    'pix:E01181521202611271200abcdef12345',
    'pix-refund:E01181521202611271200abcdef12345:D1',
    'boleto:54321:000000077',
  ];
  for (const id of ids) expect(await store.write(id, 0, { sequence: 0, history: [], seen: [] })).toBe(true);
  const ttls = await Promise.all(
    ids.map(async (id) => {
      const { Item } = await dynamo.client.send(
        new GetItemCommand({ TableName: 'subjects', Key: { [IdempotencyTable.KEY]: { S: id } } }),
      );
      return Number(Item?.[IdempotencyTable.TTL]?.N) - 1_700_000_000;
    }),
  );
  expect(ttls).toEqual([101 * 86_400, 101 * 86_400, 30 * 86_400]);
});
