/** The local CloudWatch Logs the runner and `cdk-bank-webhooks logs` read, spoken to by the real SDK: the filter patterns the runbooks use. */
import { CloudWatchLogsClient, FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { LocalLogs } from '../../../tools/local-aws/logs-server';
import { LOCAL_AWS } from '../../../tools/local-aws/local-env';

let server: LocalLogs;
let logs: CloudWatchLogsClient;

beforeAll(async () => {
  server = new LocalLogs();
  logs = new CloudWatchLogsClient({
    region: LOCAL_AWS.region,
    credentials: LOCAL_AWS.credentials,
    endpoint: await server.start(),
  });
  const lines = [
    '{"level":"ERROR","message":"Notification quarantined in the dead-letter queue","messageId":"m-1"}',
    '{"level":"WARN","message":"A bank call failed; the notification will be retried","messageId":"m-2"}',
    '{"level":"INFO","message":"Published","messageId":"m-3"}',
    'Task timed out after 30.00 seconds',
    '{"requestId":"r-1","status":"401","resourcePath":"/boleto"}',
    '{"requestId":"r-2","status":"200","resourcePath":"/boleto"}',
  ];
  lines.forEach((line, i) => server.append('group', line, 1_000 + i));
});
afterAll(async () => {
  logs.destroy();
  await server.stop();
});

const matching = async (filterPattern: string) =>
  ((await logs.send(new FilterLogEventsCommand({ logGroupName: 'group', filterPattern }))).events ?? []).map(
    (e) => e.message,
  );

it('reads terms all present, a quoted phrase, either of ?terms, and leaves out -terms', async () => {
  expect(await matching('ERROR m-1')).toHaveLength(1);
  expect(await matching('"A bank call failed"')).toEqual([expect.stringContaining('m-2')]);
  expect(await matching('?ERROR ?"Task timed out"')).toEqual([
    expect.stringContaining('m-1'),
    'Task timed out after 30.00 seconds',
  ]);
  expect(await matching('messageId -Published')).toHaveLength(2);
});

it('reads one JSON comparison, = and !=, a quoted or bare value; a line that is not JSON never matches it', async () => {
  expect(await matching('{ $.status = "401" }')).toEqual([expect.stringContaining('r-1')]);
  expect(await matching('{ $.status = 401 }')).toEqual([expect.stringContaining('r-1')]);
  expect(await matching('{ $.status != "401" }')).toEqual([expect.stringContaining('r-2')]);
});

it('refuses a pattern it cannot read, rather than reading it loosely', async () => {
  await expect(matching('{ $.status = 401 && $.x = 1 }')).rejects.toThrow(/reads one JSON comparison only/);
});
