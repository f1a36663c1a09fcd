/**
 * The subject store on the table (dynalite): several subjects read in one request answer what a
 * read of each answers, EMPTY_RECORD for one with no record; and the in-memory fake the core's
 * tests use keeps the same semantics.
 */
import { type Dynalite, startDynalite } from '../../../tools/local-aws/dynalite';
import { DynamoDbSubjectStore, EMPTY_RECORD, type SubjectStore } from '../../../lambda/store/subject-store';
import { MemorySubjectStore } from '../../support/processor-records';
import { StatusClass } from '../../../contracts/events';

let dynamo: Dynalite;
beforeAll(async () => {
  dynamo = await startDynalite();
  await dynamo.createIdempotencyTable('subjects');
});
afterAll(() => dynamo?.stop());

describe.each([
  ['on the table (dynalite)', () => new DynamoDbSubjectStore(dynamo.client, 'subjects', 3600)],
  ['in memory (the tests\' fake)', () => new MemorySubjectStore()],
])('reading several subjects %s', (_where, make: () => SubjectStore) => {
  it('answers each record as its own read does, an empty record for a subject with none, once per subject asked twice', async () => {
    const store = make();
    const state = { status: 'LIQUIDADO', statusClass: StatusClass.SETTLED, key: 'settled:2025-06-03:100' };
    expect(await store.write('boleto:54321:000000001', 0, { sequence: 1, state, history: ['k1'], seen: ['e1#h'], trail: [] })).toBe(true);
    expect(await store.write('payment:pix:E1', 0, {
      sequence: 2, history: ['a', 'b'], seen: [], pendingSince: 1_700_000_000_000,
      outbox: { id: 'o-1', leaseUntil: 1_700_000_060_000, entries: [{ detailType: 'Payment Status Verified' as never, detail: '{"x":1}' }] },
    })).toBe(true);
    const ids = ['boleto:54321:000000001', 'payment:pix:E1', 'boleto:54321:000000009', 'payment:pix:E1'];
    const many = await store.readMany!(ids);
    expect([...many.keys()].sort()).toEqual(['boleto:54321:000000001', 'boleto:54321:000000009', 'payment:pix:E1']);
    for (const id of new Set(ids)) expect(many.get(id)).toEqual(await store.read(id));
    expect(many.get('boleto:54321:000000009')).toEqual(EMPTY_RECORD);
    expect(many.get('payment:pix:E1')).toMatchObject({ version: 1, sequence: 2, pendingSince: 1_700_000_000_000, outbox: { id: 'o-1' } });
  });
});
