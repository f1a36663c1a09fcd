import { WatchState } from '../../../contracts/reconciliation';
import { DynamoDbWatchStates, type WatchStates } from '../../../lambda/store/watch-states';
import { type Dynalite, startDynalite } from '../../../tools/local-aws/dynalite';
import { MemoryWatchStates } from '../../support/memory-records';

let dynamo: Dynalite;
beforeAll(async () => {
  dynamo = await startDynalite();
  await dynamo.createIdempotencyTable('watch');
});
afterAll(() => dynamo?.stop());

describe.each([
  ['on the table (dynalite)', () => new DynamoDbWatchStates(dynamo.client, 'watch')],
  ["in memory (the tests' fake)", () => new MemoryWatchStates()],
])('registration watch states %s', (_where, make: () => WatchStates) => {
  it('reads back what the watch wrote: state, drift (none too), its repair and its contest', async () => {
    const states = make();
    const record = '/cdk-bank-webhooks/applied/Stack/Payments';
    expect(await states.read(record)).toBeUndefined();
    await states.write(record, { state: WatchState.IN_SYNC, drift: [], watchedAt: 1_000 });
    expect(await states.read(record)).toEqual({ state: WatchState.IN_SYNC, drift: [], watchedAt: 1_000 });
    const contested = {
      state: WatchState.CONTESTED,
      drift: ['other-url', 'token'],
      watchedAt: 2_000,
      repairedAt: 1_500,
      repairedUnder: 'req-1',
      contestedUnder: 'req-1',
      contestedSince: 2_000,
    };
    await states.write(record, contested);
    expect(await states.read(record)).toEqual(contested);
    // A later write without the contest drops it (the bank matched again).
    await states.write(record, {
      state: WatchState.IN_SYNC,
      drift: [],
      watchedAt: 3_000,
      repairedAt: 1_500,
      repairedUnder: 'req-1',
    });
    expect(await states.read(record)).toEqual({
      state: WatchState.IN_SYNC,
      drift: [],
      watchedAt: 3_000,
      repairedAt: 1_500,
      repairedUnder: 'req-1',
    });
  });
});
