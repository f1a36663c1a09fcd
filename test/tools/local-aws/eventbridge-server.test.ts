import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { LocalEventBridge } from '../../../tools/local-aws/eventbridge-server';
import { TEST_AWS } from '../../support/aws-env';

let bridge: LocalEventBridge;
let client: EventBridgeClient;

beforeAll(async () => {
  bridge = new LocalEventBridge();
  client = new EventBridgeClient({ ...TEST_AWS, endpoint: await bridge.start(), maxAttempts: 1 });
});

afterAll(async () => {
  client?.destroy();
  await bridge?.stop();
});

beforeEach(() => bridge.clear());

const entry = (n: number) => ({
  EventBusName: 'bus',
  Source: 'test',
  DetailType: 'Thing Happened',
  Detail: JSON.stringify({ n }),
});

it('records what PutEvents accepts, through the real SDK client', async () => {
  const result = await client.send(new PutEventsCommand({ Entries: [entry(1), entry(2)] }));
  expect(result.FailedEntryCount).toBe(0);
  expect(result.Entries?.every((e) => e.EventId)).toBe(true);
  expect(bridge.events.map((e) => [e.eventBusName, e.source, e.detailType, e.detail])).toEqual([
    ['bus', 'test', 'Thing Happened', { n: 1 }],
    ['bus', 'test', 'Thing Happened', { n: 2 }],
  ]);
});

it('refuses the next entries as a partial failure, then accepts again', async () => {
  bridge.failNextEntries(1, 'ThrottlingException');
  const result = await client.send(new PutEventsCommand({ Entries: [entry(1), entry(2)] }));
  expect(result.FailedEntryCount).toBe(1);
  expect(result.Entries?.[0]).toMatchObject({ ErrorCode: 'ThrottlingException' });
  expect(bridge.events.map((e) => e.detail)).toEqual([{ n: 2 }]);
});

it('refuses malformed entries one by one, and a batch of more than 10 as a whole', async () => {
  const result = await client.send(
    new PutEventsCommand({
      Entries: [
        { ...entry(1), Detail: '{' },
        { ...entry(2), Source: undefined },
      ],
    }),
  );
  expect(result.Entries?.map((e) => e.ErrorCode)).toEqual(['MalformedDetail', 'InvalidArgument']);
  await expect(
    client.send(new PutEventsCommand({ Entries: Array.from({ length: 11 }, (_, i) => entry(i)) })),
  ).rejects.toThrow(/1 to 10 entries/);
  expect(bridge.events).toHaveLength(0);
});
