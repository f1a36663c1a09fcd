/**
 * The operator CLI end to end against moto's server (PyPI, on loopback): the receiver's manifest
 * output as the construct writes it, resolved against resources made in moto, read by
 * `status`, `trace` and `dlq` with the real SDK; the processor's core writing the records,
 * trails, raw copies and quarantines they read into the same services.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient, PutMetricAlarmCommand, SetAlarmStateCommand } from '@aws-sdk/client-cloudwatch';
import { CreateTableCommand, DeleteItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  CreateArchiveCommand,
  CreateEventBusCommand,
  DescribeReplayCommand,
  EventBridgeClient,
  PutRuleCommand,
} from '@aws-sdk/client-eventbridge';
import {
  CloudWatchLogsClient,
  CreateLogGroupCommand,
  CreateLogStreamCommand,
  PutLogEventsCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { type DeadLetterDeletion, journalSubjectKey } from '../../contracts/record';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { runCli } from '../../cli/cli';
import {
  CliExit,
  consumerAlarmPrefix,
  OPERATOR_MANIFEST_DESCRIPTION,
  OPERATOR_MANIFEST_KIND,
  type OperatorManifest,
} from '../../contracts/operations';
import { IdempotencyTable, QuarantineAttribute } from '../../contracts/processor';
import { BankApiError } from '../../lambda/bank/errors';
import { sqsQuarantine } from '../../lambda/processor/aws';
import { processBatch } from '../../lambda/processor/batch';
import { ProcessorQueue } from '../../lambda/processor/deps';
import { S3NotificationJournal } from '../../lambda/store/journal';
import { encodeLookRequest } from '../../lambda/store/look-request';
import { EventTrigger } from '../../contracts/events';
import { DynamoDbSubjectStore } from '../../lambda/store/subject-store';
import { DynamoDbWatchStates } from '../../lambda/store/watch-states';
import { DynamoDbSweepRuns } from '../../lambda/store/sweep-runs';
import { DEAD_LETTER_RUNBOOKS } from '../../cli/operate/status';
import { Runbook } from '../../lib/core/alarms';
import { ConfigurationDriftStatus, ConfigurationWatchState } from '../../contracts/configuration-drift';
import { WatchState } from '../../contracts/reconciliation';
import { type Moto, startMoto } from '../../tools/local-aws/moto';
import { LOCAL_AWS } from '../../tools/local-aws/local-env';
import { resolveIntrinsics } from '../../tools/local-runner/template';
import type { Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import type { BankWebhookReceiverProps } from '../../lib';
import { synthReceiver } from '../support/cdk';
import { boletoEvent, contextWith, fakeDeps, nine, rawRecord, sqsRecord } from '../support/processor-records';

let moto: Moto;
let s3: S3Client;
let sqs: SQSClient;
let dynamo: DynamoDBClient;
let cloudWatch: CloudWatchClient;
let cloudFormation: CloudFormationClient;
let eventBridge: EventBridgeClient;
let logs: CloudWatchLogsClient;
/** moto's account. */
const ACCOUNT_ID = '123456789012';

beforeAll(async () => {
  moto = await startMoto();
  s3 = moto.s3();
  const config = { region: LOCAL_AWS.region, credentials: LOCAL_AWS.credentials, endpoint: moto.endpoint };
  sqs = new SQSClient(config);
  dynamo = new DynamoDBClient(config);
  cloudWatch = new CloudWatchClient(config);
  cloudFormation = new CloudFormationClient(config);
  eventBridge = new EventBridgeClient(config);
  logs = new CloudWatchLogsClient(config);
}, 60_000);
afterAll(async () => {
  for (const client of [sqs, dynamo, cloudWatch, cloudFormation, eventBridge, logs]) client?.destroy();
  await moto?.stop();
});

let deployments = 0;

/** A receiver "deployed" into moto: its stateful resources made there, its stack holding the manifest output the construct wrote. */
interface Deployed {
  readonly stackName: string;
  readonly manifest: OperatorManifest;
}

/**
 * Synthesizes a receiver (with a payment registration the watch follows), makes what its manifest
 * names in moto (queues, table, bucket, alarms), and creates a stack in moto's CloudFormation
 * whose output is the manifest, resolved as CloudFormation would.
 */
async function deploy(
  options: {
    receivers?: string[];
    props?: (stack: Stack) => Partial<BankWebhookReceiverProps>;
    manifest?: (written: OperatorManifest) => OperatorManifest;
  } = {},
): Promise<Deployed> {
  const n = ++deployments;
  const stackName = `Billing${n}`;
  const outputs: Record<string, { Description: string; Value: string }> = {};
  let first: OperatorManifest | undefined;
  for (const [index, receiverName] of (options.receivers ?? [`Billing${n}/BankWebhooks`]).entries()) {
    const { template } = synthReceiver({ receiverName, paymentRegistration: {} }, options.props);
    const json = template.toJSON() as {
      Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
      Outputs: Record<string, { Description?: string; Value: unknown }>;
    };
    const [[outputId, output]] = Object.entries(json.Outputs).filter(
      ([, o]) => o.Description === OPERATOR_MANIFEST_DESCRIPTION,
    );
    const made = new Map<string, string>();
    // Short enough for every kind (archives take 48 characters, buckets 63 in lower case).
    const name = (id: string) =>
      `r${n}x${index}-${id}`.slice(0, json.Resources[id]?.Type === 'AWS::CloudWatch::Alarm' ? 255 : 40);
    const values = {
      region: LOCAL_AWS.region,
      accountId: ACCOUNT_ID,
      stackName,
      ref: (id: string) =>
        made.get(id) ??
        (() => {
          throw new Error(`Ref ${id} (${json.Resources[id]?.Type}) was not made in moto`);
        })(),
      getAtt: (id: string, attribute: string) => {
        const type = json.Resources[id]?.Type;
        if (type === 'AWS::SQS::Queue' && attribute === 'Arn')
          return `arn:aws:sqs:${LOCAL_AWS.region}:${ACCOUNT_ID}:${name(id)}`;
        if (type === 'AWS::Events::EventBus' && attribute === 'Arn')
          return `arn:aws:events:${LOCAL_AWS.region}:${ACCOUNT_ID}:event-bus/${name(id)}`;
        throw new Error(`GetAtt ${id}.${attribute} is not made in moto`);
      },
    };
    const referenced = new Set<string>();
    JSON.stringify(output.Value, (key, value: unknown) => {
      if (key === 'Ref' && typeof value === 'string' && json.Resources[value]) referenced.add(value);
      if (key === 'Fn::GetAtt' && Array.isArray(value)) referenced.add(String(value[0]));
      return value;
    });
    for (const id of referenced) {
      const { Type: type, Properties: properties = {} } = json.Resources[id];
      if (type === 'AWS::SQS::Queue')
        made.set(id, (await sqs.send(new CreateQueueCommand({ QueueName: name(id) }))).QueueUrl!);
      else if (type === 'AWS::DynamoDB::Table') {
        await dynamo.send(
          new CreateTableCommand({
            TableName: name(id),
            BillingMode: 'PAY_PER_REQUEST',
            KeySchema: [{ AttributeName: IdempotencyTable.KEY, KeyType: 'HASH' }],
            AttributeDefinitions: [{ AttributeName: IdempotencyTable.KEY, AttributeType: 'S' }],
          }),
        );
        made.set(id, name(id));
      } else if (type === 'AWS::S3::Bucket') {
        await s3.send(new CreateBucketCommand({ Bucket: name(id).toLowerCase() }));
        made.set(id, name(id).toLowerCase());
      } else if (type === 'AWS::Logs::LogGroup') {
        await logs.send(new CreateLogGroupCommand({ logGroupName: name(id) }));
        made.set(id, name(id));
      } else if (type === 'AWS::CloudWatch::Alarm') {
        const description = resolveIntrinsics(properties.AlarmDescription, {
          ...values,
          ref: (ref: string) => ref,
          getAtt: (ref: string) => ref,
        });
        await cloudWatch.send(
          new PutMetricAlarmCommand({
            AlarmName: name(id),
            AlarmDescription: String(description),
            Namespace: 'CdkBankWebhooks',
            MetricName: id,
            Statistic: 'Sum',
            Period: 60,
            EvaluationPeriods: 1,
            Threshold: 1,
            ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          }),
        );
        made.set(id, name(id));
      } else made.set(id, name(id));
    }
    const resolved = resolveIntrinsics(output.Value, values) as string;
    const value = options.manifest
      ? JSON.stringify(options.manifest(JSON.parse(resolved) as OperatorManifest))
      : resolved;
    outputs[`${outputId}${index}`] = { Description: OPERATOR_MANIFEST_DESCRIPTION, Value: value };
    first ??= JSON.parse(value) as OperatorManifest;
  }
  await cloudFormation.send(
    new CreateStackCommand({
      StackName: stackName,
      TemplateBody: JSON.stringify({ Resources: { Placeholder: { Type: 'AWS::SQS::Queue' } }, Outputs: outputs }),
    }),
  );
  return { stackName, manifest: first! };
}

/** Runs the CLI against moto; returns its exit status and what it printed. */
async function cli(argv: string[], now = Date.now()): Promise<{ status: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runCli(argv, {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    stopRequested: new Promise(() => undefined),
    aws: {
      region: LOCAL_AWS.region,
      credentials: LOCAL_AWS.credentials,
      endpoints: {
        CLOUDFORMATION: moto.endpoint,
        CLOUDWATCH: moto.endpoint,
        CLOUDWATCH_LOGS: moto.endpoint,
        DYNAMODB: moto.endpoint,
        EVENTBRIDGE: moto.endpoint,
        S3: moto.endpoint,
        SQS: moto.endpoint,
        STS: moto.endpoint,
      },
    },
    now: () => now,
  });
  return { status, out: out.join('\n'), err: err.join('\n') };
}

/** The processor's core writing into the deployed receiver's table, journal and dead-letter queues in moto. */
function processorOf(d: Deployed) {
  const m = d.manifest;
  const f = fakeDeps({
    store: new DynamoDbSubjectStore(dynamo, m.table, 86_400),
    journal: new S3NotificationJournal(s3, m.journalBucket!),
    quarantine: sqsQuarantine(sqs, {
      [ProcessorQueue.NOTIFICATIONS]: m.queues.notificationsDeadLetter.url,
      [ProcessorQueue.LOOKS]: m.queues.looksDeadLetter.url,
    }),
  });
  const run = async (records: SQSRecord[]) => processBatch({ Records: records }, contextWith(f.clock), f.deps);
  return { ...f, run };
}

const depth = async (url: string) => {
  const { Attributes: a = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return Number(a.ApproximateNumberOfMessages) + Number(a.ApproximateNumberOfMessagesNotVisible);
};

describe('the operator manifest', () => {
  it("names every resource the CLI acts on, and resolves to a JSON manifest well inside an output's size", async () => {
    const d = await deploy();
    const m = d.manifest;
    expect(m).toMatchObject({
      kind: OPERATOR_MANIFEST_KIND,
      receiverName: d.stackName + '/BankWebhooks',
      stage: 'PRODUCTION',
      codigoBeneficiario: '54321',
    });
    for (const q of Object.values(m.queues))
      expect(q).toEqual({ url: expect.stringContaining('/'), arn: expect.stringMatching(/^arn:aws:sqs:/) });
    expect(m.table).toBeTruthy();
    expect(m.journalBucket).toBeTruthy();
    expect(m.bus).toEqual({
      name: expect.any(String),
      arn: expect.stringMatching(/^arn:aws:events:/),
      archive: expect.any(String),
    });
    expect(m.functions).toEqual({
      receiver: expect.any(String),
      processor: expect.any(String),
      sweep: expect.any(String),
    });
    expect(m.registrations).toEqual([
      { label: 'payments', record: expect.stringMatching(/^\/cdk-bank-webhooks\/applied\//) },
    ]);
    // Every alarm of the receiver: the endpoint's, the processor's, the sweep's and watch's.
    expect(m.alarms.length).toBeGreaterThanOrEqual(12);
    expect(JSON.stringify(m).length).toBeLessThan(4096);
  });
});

describe('status', () => {
  it('on a quiet receiver: nothing in alarm, empty queues, the registration not watched yet; exit 0', async () => {
    const d = await deploy();
    const { status, out } = await cli(['status', '--stack', d.stackName]);
    expect(status).toBe(CliExit.OK);
    expect(out).toContain(`Receiver ${d.manifest.receiverName} (PRODUCTION), beneficiário 54321`);
    // The functions by name, for a runbook's metric of one (throttles) and its logs.
    const { receiver, processor, sweep } = d.manifest.functions;
    expect(out).toContain(
      `Functions: receiver ${receiver}, processor ${processor}, sweep ${sweep} (their logs: cdk-bank-webhooks logs <role>)`,
    );
    expect(out).toMatch(/Alarms: 0 of \d+ in ALARM/);
    expect(out).toMatch(/notifications dead-letter\s+0\s+0\s+0\s+n\/a \(no metric\)/);
    expect(out).toMatch(/payments\s+not watched yet/);
    expect(out).toContain('Reconciliation sweep: no run recorded yet (cdk-bank-webhooks sweep runs one now).');
    expect(out).toContain('Notifications stored in the last 24 h: 0');
    expect(out).toContain('Nothing needs attention.');
  });

  it("shows an alarm in ALARM with its runbook, a dead-letter queue's messages, the watch's last state and the day's notifications; exit 1", async () => {
    const d = await deploy();
    const p = processorOf(d);
    p.bank.settle('1001');
    expect((await p.run([sqsRecord('boleto', [boletoEvent('1001')])])).batchItemFailures).toEqual([]);
    p.bank.errors.set(
      '1002',
      new BankApiError('boleto query (nossoNumero 000001002)', 503, 'Serviço indisponível', true),
    );
    await p.run([sqsRecord('boleto', [boletoEvent('1002')], { receiveCount: 5 })]);
    const [dlqAlarm] = d.manifest.alarms.filter((a) => /ProcessorDeadLetterQueueAlarm/.test(a));
    await cloudWatch.send(new SetAlarmStateCommand({ AlarmName: dlqAlarm, StateValue: 'ALARM', StateReason: 'test' }));
    await new DynamoDbWatchStates(dynamo, d.manifest.table).write(d.manifest.registrations[0].record, {
      state: WatchState.DRIFT,
      drift: ['url'],
      watchedAt: p.clock.now() - 600_000,
    });
    await new DynamoDbSweepRuns(dynamo, d.manifest.table).write({
      at: p.clock.now() - 300_000,
      result: {
        bankCalls: 4,
        settlementsToVerify: 2,
        settlementsKnown: 10,
        paymentsToVerify: 1,
        paymentsGivenUp: 0,
        complete: false,
        days: [],
      },
    });

    const { status, out } = await cli(['status', '--stack', d.stackName], p.clock.now());
    expect(status).toBe(CliExit.ATTENTION);
    expect(out).toMatch(/Alarms: 1 of \d+ in ALARM/);
    expect(out).toMatch(
      new RegExp(`${dlqAlarm}\\s+\\d+ (s|min) ago\\s+cdk-bank-webhooks/docs/operations.md#deadletterqueuealarm`),
    );
    expect(out).toMatch(/notifications dead-letter\s+1\s/);
    expect(out).toMatch(/payments\s+drift\s+url\s+10 min ago/);
    expect(out).toContain(
      'Last sweep 5 min ago: INCOMPLETE, 4 listing call(s), 2 listed change(s) and 1 payment(s) sent to be verified.',
    );
    expect(out).toContain('Notifications stored in the last 24 h: 2');
    // Each thing that needs attention by its runbook: the alarm's, and the dead-letter queue's.
    expect(out).toContain('Needs attention: cdk-bank-webhooks/docs/operations.md#deadletterqueuealarm');
    expect(out.split('\n').at(-1)).toBe('Needs attention: cdk-bank-webhooks/docs/operations.md#deadletterqueuealarm');
  });

  it('names each dead-letter queue row by a runbook that exists', () => {
    for (const runbook of Object.values(DEAD_LETTER_RUNBOOKS)) expect(Object.values(Runbook)).toContain(runbook);
  });
});

describe("status of the stack's own configuration", () => {
  const sweep = {
    bankCalls: 1,
    settlementsToVerify: 0,
    settlementsKnown: 0,
    paymentsToVerify: 0,
    paymentsGivenUp: 0,
    complete: true,
    days: [],
  };

  it('names each drifted resource, its drift and properties (escaped), with the runbook; exit 1', async () => {
    const d = await deploy();
    const now = Date.now();
    await new DynamoDbSweepRuns(dynamo, d.manifest.table).write({
      at: now - 60_000,
      result: {
        ...sweep,
        configuration: {
          state: ConfigurationWatchState.READ,
          detectionId: 'd-1',
          checkedAt: now - 120_000,
          findings: [
            {
              logicalId: 'BankWebhooksSettledRule1234',
              type: 'AWS::Events::Rule',
              status: ConfigurationDriftStatus.MODIFIED,
              properties: ['/Targets/0/Input', '/Evil\u001b[2J'],
            },
            {
              logicalId: 'QueuePolicy99',
              type: 'AWS::SQS::QueuePolicy',
              status: ConfigurationDriftStatus.DELETED,
              properties: [],
            },
          ],
        },
      },
    });
    const { status, out } = await cli(['status', '--stack', d.stackName], now);
    expect(status).toBe(CliExit.ATTENTION);
    expect(out).toContain(
      'Configuration (CloudFormation drift detection, read, checked 2 min ago): 2 resource(s) differ from the template. Runbook: cdk-bank-webhooks/docs/operations.md#configurationdriftalarm',
    );
    expect(out).toMatch(
      /BankWebhooksSettledRule1234\s+AWS::Events::Rule\s+MODIFIED\s+\/Targets\/0\/Input, \/Evil\\u001b\[2J/,
    );
    expect(out).toMatch(/QueuePolicy99\s+AWS::SQS::QueuePolicy\s+DELETED\s+-/);
    expect(out).not.toContain('\u001b');
  });

  it('says a watch that could not look needs attention; and a clean one does not', async () => {
    const d = await deploy();
    const now = Date.now();
    const runs = new DynamoDbSweepRuns(dynamo, d.manifest.table);
    await runs.write({
      at: now,
      result: {
        ...sweep,
        configuration: {
          state: ConfigurationWatchState.WAITING,
          findings: [],
          failed: true,
          reason: 'the watch failed: AccessDenied on cloudformation:DetectStackDrift',
        },
      },
    });
    let { status, out } = await cli(['status', '--stack', d.stackName], now);
    expect(status).toBe(CliExit.ATTENTION);
    expect(out).toContain('NOT WATCHED (the watch failed: AccessDenied on cloudformation:DetectStackDrift)');
    await runs.write({
      at: now,
      result: {
        ...sweep,
        configuration: { state: ConfigurationWatchState.READ, checkedAt: now - 60_000, findings: [] },
      },
    });
    ({ status, out } = await cli(['status', '--stack', d.stackName], now));
    expect(out).toContain('the security-relevant resources match the template.');
    expect(status).toBe(CliExit.OK);
  });
});

describe('status of consumers in other stacks', () => {
  it("finds the dead-letter queue alarm of a consumer rule made in the consumer's own stack by its name's prefix, and says it needs attention", async () => {
    const d = await deploy();
    // What onVerifiedEvent with `scope` in a consumer's stack makes: an alarm the receiver's manifest cannot name.
    const consumerAlarm = `${consumerAlarmPrefix(d.manifest.receiverName)}Payables-Consumers-SettledDeadLetterQueueAlarm`;
    await cloudWatch.send(
      new PutMetricAlarmCommand({
        AlarmName: consumerAlarm,
        AlarmDescription:
          'Verified bank events are in the dead-letter queue of a consumer. Runbook: cdk-bank-webhooks/docs/operations.md#consumer-dead-letter-queue',
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Statistic: 'Maximum',
        Period: 60,
        EvaluationPeriods: 1,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      }),
    );
    // Another receiver's consumer is not this one's.
    await cloudWatch.send(
      new PutMetricAlarmCommand({
        AlarmName: `${consumerAlarmPrefix('Someone/Else')}Other-DeadLetterQueueAlarm`,
        Namespace: 'AWS/SQS',
        MetricName: 'X',
        Statistic: 'Maximum',
        Period: 60,
        EvaluationPeriods: 1,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      }),
    );
    await cloudWatch.send(
      new SetAlarmStateCommand({ AlarmName: consumerAlarm, StateValue: 'ALARM', StateReason: 'test' }),
    );
    const { status, out } = await cli(['status', '--stack', d.stackName]);
    expect(status).toBe(CliExit.ATTENTION);
    expect(out).toMatch(/Alarms: 1 of \d+ in ALARM/);
    expect(out).toContain(consumerAlarm);
    expect(out).not.toContain('Other-DeadLetterQueueAlarm');
  });
});

describe('trace', () => {
  it('tells what happened to a boleto: its verified state, its trail and where its raw notification is', async () => {
    const d = await deploy();
    const p = processorOf(d);
    p.bank.settle('1003', '88.10');
    const record = sqsRecord('boleto', [boletoEvent('1003', 'LIQUIDACAO_PIX', '88.10')], { requestId: 'req-trace-1' });
    expect((await p.run([record])).batchItemFailures).toEqual([]);

    const { status, out } = await cli(['trace', '1003', '--stack', d.stackName]);
    expect(status).toBe(CliExit.OK);
    expect(out).toContain(`Subject boleto:54321:${nine('1003')}`);
    expect(out).toMatch(/verified state\s+LIQUIDADO \(settled\)/);
    expect(out).toMatch(/changes\s+1 published/);
    expect(out).toMatch(/notification\s+LIQUIDACAO_PIX matched the bank \(id [\w-]+, request req-trace-1\)/);
    expect(out).toMatch(/look\s+the bank showed LIQUIDADO \(webhook\)/);
    expect(out).toMatch(new RegExp(`published\\s+Boleto Settled #1 \\(boleto:54321:${nine('1003')}#1:settled:`));
    expect(out).toContain(`s3://${d.manifest.journalBucket}/notifications/2025-06-03/17-05-10.000Z-req-trace-1.json`);
  });

  it('tries each payment kind for an idTransacao, and says when the receiver knows nothing of it (exit 1)', async () => {
    const d = await deploy();
    const unknown = await cli(['trace', 'E2E-PIX-404', '--stack', d.stackName]);
    expect(unknown.status).toBe(CliExit.ATTENTION);
    expect(unknown.out).toContain('Subject payment:pix:E2E-PIX-404');
    expect(unknown.out).toContain('No record');
    expect(unknown.out).toContain('Raw notifications: none');

    // A subject id of any kind is taken as it is, a Pix Automático one too (never guessed as an idTransacao).
    const recurrence = await cli(['trace', 'pix-recurrence:RN0000000020261125abcdefghij1', '--stack', d.stackName]);
    expect(recurrence.out).toContain('Subject pix-recurrence:RN0000000020261125abcdefghij1\n');

    const bad = await cli(['trace', 'a.b', '--stack', d.stackName]);
    expect(bad.status).toBe(CliExit.USAGE);
    expect(bad.err).toContain('"a.b" is neither a nossoNumero');
  });

  it("finds a Pix refund by its own id in the journal's index (one: traced; several: each named; none: nothing known)", async () => {
    const d = await deploy();
    const bucket = d.manifest.journalBucket!;
    const index = async (subjectId: string, requestId: string) =>
      s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: journalSubjectKey(subjectId, { receivedAt: '2025-06-03T17:05:10.000Z', requestId }),
          Body: '',
        }),
      );
    await index('pix-refund:E00038166202506031705abcdef12345:D1', 'req-refund-1');
    await index('pix-refund:E00038166202506031705abcdef12345:D2', 'req-refund-2');
    await index('pix-refund:E99999999202506031705abcdef99999:D2', 'req-refund-3');
    await index('pix-refund:E00038166202506031705abcdef12345:XD1', 'req-refund-4');

    const one = await cli(['trace', 'D1', '--stack', d.stackName]);
    expect(one.out).toContain('Subject pix-refund:E00038166202506031705abcdef12345:D1');
    expect(one.out).toContain(`s3://${bucket}/notifications/2025-06-03/17-05-10.000Z-req-refund-1.json`);
    expect(one.out).not.toContain('req-refund-4');
    expect(one.status).toBe(CliExit.OK);

    const two = await cli(['trace', 'D2', '--stack', d.stackName]);
    expect(two.status).toBe(CliExit.ATTENTION);
    expect(two.out).toContain('"D2" names 2 subjects in the journal');
    expect(two.out).toContain(
      '  pix-refund:E00038166202506031705abcdef12345:D2\n  pix-refund:E99999999202506031705abcdef99999:D2',
    );

    const none = await cli(['trace', 'D3', '--stack', d.stackName]);
    expect(none.status).toBe(CliExit.ATTENTION);
    expect(none.out).toContain('No record');
  });
});

describe('logs', () => {
  it("reads a function's log by the group its manifest names: the window, the filter, the limit; a message's control characters escaped", async () => {
    const d = await deploy();
    const group = d.manifest.logGroups!.processor!;
    // Recent events (CloudWatch Logs refuses events older than 14 days): ten minutes ago, on the minute.
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    const at = minute - 600_000;
    const iso = (ms: number) => new Date(ms).toISOString();
    await logs.send(new CreateLogStreamCommand({ logGroupName: group, logStreamName: 's' }));
    await logs.send(
      new PutLogEventsCommand({
        logGroupName: group,
        logStreamName: 's',
        logEvents: [
          { timestamp: at, message: '{"level":"ERROR","message":"Notification quarantined","messageId":"m-1"}' },
          { timestamp: at + 1_000, message: '{"level":"INFO","message":"Published","messageId":"m-2"}' },
          { timestamp: at + 2_000, message: 'a line with\u001b[31m an escape\nand a break' },
        ],
      }),
    );
    const window = ['--from', iso(at - 60_000), '--to', iso(at + 60_000)];

    const all = await cli(['logs', 'processor', ...window, '--stack', d.stackName]);
    expect(all.status).toBe(CliExit.OK);
    expect(all.out.split('\n')).toEqual([
      `${group}, ${iso(at - 60_000)} to ${iso(at + 60_000)}:`,
      `${iso(at)}  {"level":"ERROR","message":"Notification quarantined","messageId":"m-1"}`,
      `${iso(at + 1_000)}  {"level":"INFO","message":"Published","messageId":"m-2"}`,
      `${iso(at + 2_000)}  a line with\\u001b[31m an escape\\nand a break`,
    ]);
    const one = await cli(['logs', 'processor', ...window, '--filter', 'ERROR', '--stack', d.stackName]);
    expect(one.out).toContain('"messageId":"m-1"');
    expect(one.out).not.toContain('m-2');
    const limited = await cli(['logs', 'processor', ...window, '--limit', '1', '--stack', d.stackName]);
    expect(limited.out).toContain('… more events matched');
    // An hour before the events (the default window is the last hour): nothing, exit 1.
    const none = await cli(['logs', 'processor', '--to', iso(at - 1_000), '--stack', d.stackName]);
    expect(none).toMatchObject({ status: CliExit.ATTENTION });
    expect(none.out).toContain(`No event in ${group} from ${iso(at - 3_601_000)} to ${iso(at - 1_000)}.`);
  });

  it('refuses a source it does not know, a bad limit or window before asking AWS; a stack from an older release is told to deploy again', async () => {
    const d = await deploy({ manifest: ({ logGroups: _gone, ...written }) => written });
    const bad = await cli(['logs', 'journal', '--stack', d.stackName]);
    expect(bad).toMatchObject({ status: CliExit.USAGE });
    expect(bad.err).toContain('logs takes one of receiver, processor, sweep, access (got journal)');
    expect((await cli(['logs', 'processor', '--limit', '0', '--stack', d.stackName])).err).toContain(
      '--limit must be a whole number from 1 to 10000 (got 0)',
    );
    expect(
      (await cli(['logs', 'processor', '--from', '2025-06-03', '--to', '2025-06-02', '--stack', d.stackName])).status,
    ).toBe(CliExit.USAGE);
    const old = await cli(['logs', 'processor', '--stack', d.stackName]);
    expect(old).toMatchObject({ status: CliExit.NOT_FOUND });
    expect(old.err).toContain('deployed by a release before `logs`. Deploy it again');
  });
});

describe('dlq', () => {
  it('lists each quarantined message with its subject, reason and age, and gives them back to the queue after reading', async () => {
    const d = await deploy();
    const p = processorOf(d);
    p.bank.errors.set(
      '1004',
      new BankApiError('boleto query (nossoNumero 000001004)', 503, 'Serviço indisponível', true),
    );
    await p.run([sqsRecord('boleto', [boletoEvent('1004')], { receiveCount: 5, requestId: 'req-dlq-1004' })]);

    const { status, out } = await cli(['dlq', 'list', '--stack', d.stackName]);
    expect(out).toMatch(/req-dlq-1004$/m);
    expect(status).toBe(CliExit.OK);
    expect(out).toContain('1 message(s) in the notifications dead-letter queue.');
    expect(out).toMatch(
      new RegExp(`boleto:54321:${nine('1004')}\\s+failed on its last receive \\(5 of 5\\): boleto query`),
    );
    // Read, not taken: the message is visible again for the next reader.
    const again = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: d.manifest.queues.notificationsDeadLetter.url,
        MessageAttributeNames: ['All'],
        WaitTimeSeconds: 1,
      }),
    );
    expect(again.Messages?.[0]?.MessageAttributes?.[QuarantineAttribute.REASON]?.StringValue).toContain(
      'failed on its last receive',
    );
  });

  it('deletes a message only once it is recorded under the journal (who, when, what), by its message id; a dry run and a missing filter delete nothing', async () => {
    const d = await deploy();
    const p = processorOf(d);
    for (const id of ['1011', '1012'])
      p.bank.errors.set(
        id,
        new BankApiError(`boleto query (nossoNumero ${nine(id)})`, 503, 'Serviço indisponível', true),
      );
    await p.run([sqsRecord('boleto', [boletoEvent('1011')], { receiveCount: 5, requestId: 'req-del-1011' })]);
    await p.run([sqsRecord('boleto', [boletoEvent('1012')], { receiveCount: 5, requestId: 'req-del-1012' })]);
    const listed = await cli(['dlq', 'list', '--subject', '1011', '--stack', d.stackName]);
    const messageId = /(\S+)\s+req-del-1011$/m.exec(listed.out)![1];

    const refused = await cli(['dlq', 'delete', '--stack', d.stackName]);
    expect(refused.status).toBe(CliExit.USAGE);
    expect(refused.err).toContain('dlq delete needs a filter: --message-id <id>, --reason <text> or --subject <id>');
    const dry = await cli(['dlq', 'delete', '--message-id', messageId, '--dry-run', '--stack', d.stackName]);
    expect(dry.status).toBe(CliExit.OK);
    expect(dry.out).toContain('Dry run: would record under s3://');
    expect((await cli(['dlq', 'list', '--stack', d.stackName])).out).toContain('2 message(s)');

    const done = await cli(['dlq', 'delete', '--message-id', messageId, '--stack', d.stackName]);
    expect(done.err).toBe('');
    expect(done.status).toBe(CliExit.OK);
    expect(done.out).toContain(
      `Deleted 1 of 1 message(s), each recorded first under s3://${d.manifest.journalBucket}/deletions/`,
    );
    const after = await cli(['dlq', 'list', '--stack', d.stackName]);
    expect(after.out).toContain('1 message(s)');
    expect(after.out).toMatch(/req-del-1012$/m);
    expect(after.out).not.toContain('req-del-1011');
    // The record: create-only under deletions/, naming the message, its request id, subject, reason, who and when.
    const { Contents: records = [] } = await s3.send(
      new ListObjectsV2Command({ Bucket: d.manifest.journalBucket, Prefix: 'deletions/' }),
    );
    expect(records).toHaveLength(1);
    const record = JSON.parse(
      await (
        await s3.send(new GetObjectCommand({ Bucket: d.manifest.journalBucket, Key: records[0].Key }))
      ).Body!.transformToString(),
    ) as DeadLetterDeletion;
    expect(record).toMatchObject({
      kind: 'dead-letter-deletion',
      queue: 'notifications',
      messageId,
      requestId: 'req-del-1011',
      subjects: [`boleto:54321:${nine('1011')}`],
      reason: expect.stringContaining('failed on its last receive'),
      deletedBy: expect.stringMatching(/^arn:aws:(iam|sts)::/),
    });
    expect(record.body).toBeUndefined();
  });

  it('deletes nothing when the record cannot be written: the message stays, named with why (exit 5)', async () => {
    // A journal bucket that does not exist: no record can be written there.
    const d = await deploy({ manifest: (m) => ({ ...m, journalBucket: `missing-${m.journalBucket}` }) });
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: d.manifest.queues.notificationsDeadLetter.url,
        MessageBody: 'not a notification',
      }),
    );
    const run = await cli(['dlq', 'delete', '--reason', '', '--stack', d.stackName]);
    expect(run.status).toBe(CliExit.FAILED);
    expect(run.out).toContain('Deleted 0 of 1 message(s)');
    expect(run.err).toMatch(/not recorded, so not deleted: NoSuchBucket/);
    expect((await cli(['dlq', 'list', '--stack', d.stackName])).out).toContain('1 message(s)');
  });

  it('redrives by subject once the bank is back: the notification is published once, the others stay; a second copy publishes nothing', async () => {
    const d = await deploy();
    const p = processorOf(d);
    const down = (id: string) =>
      p.bank.errors.set(
        id,
        new BankApiError(`boleto query (nossoNumero ${nine(id)})`, 503, 'Serviço indisponível', true),
      );
    down('1005');
    down('1006');
    p.bank.settle('1005');
    await p.run([
      sqsRecord('boleto', [boletoEvent('1005')], { receiveCount: 5 }),
      sqsRecord('boleto', [boletoEvent('1006')], { receiveCount: 5 }),
    ]);
    expect(await depth(d.manifest.queues.notificationsDeadLetter.url)).toBe(2);
    expect(p.published).toHaveLength(0);

    const refused = await cli(['dlq', 'redrive', '--stack', d.stackName]);
    expect(refused.status).toBe(CliExit.USAGE);
    expect(refused.err).toContain('dlq redrive needs --all, or a filter');

    const dry = await cli(['dlq', 'redrive', '--subject', '1005', '--dry-run', '--stack', d.stackName]);
    expect(dry.out).toContain('Dry run: would send back 1 of 2 message(s) in the notifications dead-letter queue.');
    const none = await cli(['dlq', 'redrive', '--subject', '999999', '--dry-run', '--stack', d.stackName]);
    expect(none.out).toContain(
      'Dry run: none of 2 message(s) in the notifications dead-letter queue matches; nothing would be sent back.',
    );
    expect(await depth(d.manifest.queues.notifications.url)).toBe(0);

    p.bank.errors.delete('1005');
    const { status, out } = await cli(['dlq', 'redrive', '--subject', nine('1005'), '--stack', d.stackName]);
    expect(status).toBe(CliExit.OK);
    expect(out).toContain('Sent 1 of 1 message(s) back to the notifications queue');
    expect(await depth(d.manifest.queues.notificationsDeadLetter.url)).toBe(1);

    const received = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: d.manifest.queues.notifications.url, WaitTimeSeconds: 1 }),
    );
    expect(received.Messages).toHaveLength(1);
    // The processor reads it as new: first receive, no quarantine attributes.
    const body = received.Messages![0].Body!;
    expect((await p.run([rawRecord(body)])).batchItemFailures).toEqual([]);
    expect(p.published.map((e) => e.detailType)).toEqual(['Boleto Settled']);

    // The same notification redriven again (a copy left in the dead-letter queue): nothing new is published.
    await sqs.send(
      new SendMessageCommand({ QueueUrl: d.manifest.queues.notificationsDeadLetter.url, MessageBody: body }),
    );
    expect((await cli(['dlq', 'redrive', '--subject', '1005', '--stack', d.stackName])).status).toBe(CliExit.OK);
    const copy = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: d.manifest.queues.notifications.url, WaitTimeSeconds: 1 }),
    );
    expect((await p.run([rawRecord(copy.Messages![0].Body!)])).batchItemFailures).toEqual([]);
    expect(p.published).toHaveLength(1);
    const trace = await cli(['trace', '1005', '--stack', d.stackName]);
    expect(trace.out).toMatch(/quarantined\s+failed on its last receive/);
    expect(trace.out).toMatch(/published\s+Boleto Settled #1/);
  });
});

describe('reverify', () => {
  it("asks the bank again about the window's subjects through the look queue: a settlement and a reversal whose notifications were lost are published once, and a second run publishes nothing", async () => {
    const d = await deploy();
    const p = processorOf(d);
    p.bank.settle('1007');
    p.bank.settle('1008');
    // 1009: a settlement notified before the bank shows it (not confirmed then).
    p.bank.open('1009');
    // On its last verification attempt, so that what the bank does not bear out is published as not confirmed.
    expect(
      (
        await p.run([
          sqsRecord('boleto', [boletoEvent('1007'), boletoEvent('1008'), boletoEvent('1009')], {
            requestId: 'req-reverify',
            receiveCount: 3,
          }),
        ])
      ).batchItemFailures,
    ).toEqual([]);
    expect(p.published.map((e) => e.detailType)).toEqual([
      'Boleto Settled',
      'Boleto Settled',
      'Notification Not Confirmed',
    ]);
    // The bank reverses 1007's settlement and settles 1009, and notifies neither.
    p.bank.open('1007');
    p.bank.settle('1009');

    const dry = await cli(
      ['reverify', '--from', '2025-06-03', '--to', '2025-06-03', '--dry-run', '--stack', d.stackName],
      p.clock.now(),
    );
    expect(dry.status).toBe(CliExit.OK);
    expect(dry.out).toContain(
      '1 notification(s) in the journal between 2025-06-03T00:00:00.000Z and 2025-06-03T23:59:59.999Z name 3 subject(s).',
    );
    expect(dry.out).toContain('Dry run: no look requested.');
    expect(await depth(d.manifest.queues.looks.url)).toBe(0);

    const looks = async () => {
      const received = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: d.manifest.queues.looks.url,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
        }),
      );
      return (received.Messages ?? []).map((m) => rawRecord(m.Body!));
    };
    const run = await cli(
      ['reverify', '--from', '2025-06-03T17:00:00Z', '--to', '2025-06-03T18:00:00Z', '--stack', d.stackName],
      p.clock.now(),
    );
    expect(run.out).toContain('Sent 3 look request(s) to the look queue');
    const requests = await looks();
    expect(requests).toHaveLength(3);
    expect((await p.run(requests)).batchItemFailures).toEqual([]);
    const found = p.published.slice(3);
    expect(found.map((e) => [e.detailType, e.detail.subject.nossoNumero, e.detail.trigger]).sort()).toEqual([
      ['Boleto Settled', nine('1009'), 'reconciliation'],
      ['Boleto Settlement Reversed', nine('1007'), 'reconciliation'],
    ]);

    await cli(['reverify', '--from', '2025-06-03', '--to', '2025-06-03', '--stack', d.stackName], p.clock.now());
    expect((await p.run(await looks())).batchItemFailures).toEqual([]);
    expect(p.published).toHaveLength(5);
    // A window with no notification asks nothing.
    const empty = await cli(
      ['reverify', '--from', '2025-06-04', '--to', '2025-06-05', '--stack', d.stackName],
      p.clock.now(),
    );
    expect(empty.out).toContain('0 notification(s) in the journal');
  });

  it('refuses a window older than the records remember, and with --past-records sends replays that publish what an expired record no longer holds', async () => {
    const d = await deploy();
    expect(d.manifest.recordsLifetimeSeconds).toBe(30 * 86_400);
    const p = processorOf(d);
    p.bank.settle('1011');
    expect(
      (await p.run([sqsRecord('boleto', [boletoEvent('1011')], { requestId: 'req-old' })])).batchItemFailures,
    ).toEqual([]);
    expect(p.published).toHaveLength(1);
    // 40 days later the subject's record is gone (its TTL), the journal still has the notification.
    const later = Date.UTC(2025, 6, 13, 18);
    await dynamo.send(
      new DeleteItemCommand({
        TableName: d.manifest.table,
        Key: { [IdempotencyTable.KEY]: { S: 'boleto:54321:000001011' } },
      }),
    );
    const refused = await cli(
      ['reverify', '--from', '2025-06-03', '--to', '2025-06-03', '--stack', d.stackName],
      later,
    );
    expect(refused.status).toBe(CliExit.USAGE);
    expect(refused.err).toContain(
      "--from (2025-06-03T00:00:00.000Z) is before what the receiver's records remember (its 30-day idempotencyTtl less a day: from 2025-06-14T18:00:00.000Z)",
    );
    expect(refused.err).toContain('add --past-records to publish what it finds as replays');
    expect(await depth(d.manifest.queues.looks.url)).toBe(0);
    // A look that is not a replay (a sweep's, a Track Payment's) publishes nothing, and trace says why.
    p.clock.advance(later - p.clock.now());
    const sweepLook = encodeLookRequest({
      trigger: EventTrigger.RECONCILIATION,
      subject: { kind: 'boleto', nossoNumero: '1011' },
      requestedAt: new Date(later).toISOString(),
      reason: 'listed as settled',
    });
    expect((await p.run([rawRecord(sweepLook)])).batchItemFailures).toEqual([]);
    expect(p.published).toHaveLength(1);
    expect((await cli(['trace', '1011', '--stack', d.stackName], later)).out).toMatch(
      /look\s+the bank showed LIQUIDADO \(reconciliation: listed as settled\); not published: its state is dated 2025-06-03T14:05:09.000-03:00, before what records remember/,
    );
    await dynamo.send(
      new DeleteItemCommand({
        TableName: d.manifest.table,
        Key: { [IdempotencyTable.KEY]: { S: 'boleto:54321:000001011' } },
      }),
    );
    // Asked explicitly: replays, published as such.
    const replayed = await cli(
      ['reverify', '--from', '2025-06-03', '--to', '2025-06-03', '--past-records', '--stack', d.stackName],
      later,
    );
    expect(replayed.status).toBe(CliExit.OK);
    expect(replayed.out).toContain('Sent 1 replay look request(s)');
    expect(replayed.out).toContain('consumers dedupe on the idempotencyKey without its #sequence');
    const received = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: d.manifest.queues.looks.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    expect(received.Messages?.map((m) => (JSON.parse(m.Body!) as { trigger: string }).trigger)).toEqual(['replay']);
    expect((await p.run(received.Messages!.map((m) => rawRecord(m.Body!)))).batchItemFailures).toEqual([]);
    expect(p.published.map((e) => [e.detailType, e.detail.trigger, e.detail.idempotencyKey])).toEqual([
      ['Boleto Settled', 'webhook', 'boleto:54321:000001011#1:settled:2025-06-03:15025'],
      ['Boleto Settled', 'replay', 'boleto:54321:000001011#1:settled:2025-06-03:15025'],
    ]);
  });

  it("refuses a stack whose manifest does not say how long its records live (an earlier release's processor would publish again)", async () => {
    const d = await deploy({ manifest: ({ recordsLifetimeSeconds: _gone, ...written }) => written });
    const old = await cli(
      ['reverify', '--from', '2025-06-03', '--to', '2025-06-03', '--stack', d.stackName],
      Date.UTC(2025, 5, 4),
    );
    expect(old.status).toBe(CliExit.ATTENTION);
    expect(old.err).toContain(
      'was deployed by an earlier release of cdk-bank-webhooks, whose processor publishes again what a look finds once a record expired. Deploy the stack with this release',
    );
    const alsoOld = await cli(
      ['reverify', '--from', '2025-06-03', '--to', '2025-06-03', '--past-records', '--stack', d.stackName],
      Date.UTC(2025, 5, 4),
    );
    expect(alsoOld.status).toBe(CliExit.ATTENTION);
    expect(await depth(d.manifest.queues.looks.url)).toBe(0);
  });

  it('refuses a window too wide, backwards, or not a time, before asking AWS anything', async () => {
    const wide = await cli(['reverify', '--from', '2025-06-01', '--to', '2025-06-30', '--stack', 'NoSuchStack']);
    expect(wide.status).toBe(CliExit.USAGE);
    expect(wide.err).toContain('The window is 30.0 days wide; reverify takes at most 7 days at a time');
    const backwards = await cli(['reverify', '--from', '2025-06-05', '--to', '2025-06-01', '--stack', 'NoSuchStack']);
    expect(backwards.err).toContain('--to (2025-06-01T23:59:59.999Z) is before --from (2025-06-05T00:00:00.000Z).');
    const junk = await cli(['reverify', '--from', 'yesterday', '--to', '2025-06-01', '--stack', 'NoSuchStack']);
    expect(junk.err).toContain(
      '--from must be a day (2026-11-25, UTC) or an ISO 8601 time with its zone (2026-11-25T14:00:00Z, 2026-11-25T11:00:00-03:00), got "yesterday".',
    );
    // A time without its zone (read in the machine's own zone before) and a date the calendar does not have.
    const local = await cli(['reverify', '--from', '2025-06-01T14:00', '--to', '2025-06-01', '--stack', 'NoSuchStack']);
    expect(local.status).toBe(CliExit.USAGE);
    expect(local.err).toContain(
      'got "2025-06-01T14:00": a time needs its zone (Z for UTC, or an offset such as -03:00).',
    );
    const impossible = await cli(['reverify', '--from', '2026-02-30', '--to', '2026-03-01', '--stack', 'NoSuchStack']);
    expect(impossible.status).toBe(CliExit.USAGE);
    expect(impossible.err).toContain('got "2026-02-30": 2026-02 has no day 30.');
    expect(
      (
        await cli([
          'replay',
          '--from',
          '2026-11-25T25:00:00Z',
          '--to',
          '2026-11-26',
          '--rule',
          'R',
          '--stack',
          'NoSuchStack',
        ])
      ).err,
    ).toContain(': no such time of day.');
    expect((await cli(['reverify', '--stack', 'NoSuchStack'])).err).toContain('reverify needs --from and --to');
  });
});

describe('replay', () => {
  it("replays the archive's window to the one rule named, never to every rule", async () => {
    const d = await deploy();
    const { bus } = d.manifest;
    await eventBridge.send(new CreateEventBusCommand({ Name: bus.name }));
    await eventBridge.send(new CreateArchiveCommand({ ArchiveName: bus.archive!, EventSourceArn: bus.arn }));
    const pattern = JSON.stringify({ source: ['cdk-bank-webhooks'] });
    const { RuleArn: billing } = await eventBridge.send(
      new PutRuleCommand({ Name: 'Billing-Settled', EventBusName: bus.name, EventPattern: pattern }),
    );
    await eventBridge.send(
      new PutRuleCommand({ Name: 'Ledger-Settled', EventBusName: bus.name, EventPattern: pattern }),
    );

    const now = Date.parse('2026-11-26T12:00:00Z');
    const { status, out } = await cli(
      [
        'replay',
        '--from',
        '2026-11-20',
        '--to',
        '2026-11-26',
        '--rule',
        'Billing-Settled',
        '--wait',
        '--stack',
        d.stackName,
      ],
      now,
    );
    expect(status).toBe(CliExit.OK);
    expect(out).toContain('to the rule Billing-Settled alone');
    const name = /Replay (\S+) started/.exec(out)![1];
    expect(out).toContain(`Replay ${name}: COMPLETED`);
    // What EventBridge was asked: this archive, this window (a day in progress ends now), and the one rule as the only filter.
    const replay = await eventBridge.send(new DescribeReplayCommand({ ReplayName: name }));
    expect(replay.Destination).toEqual({ Arn: bus.arn, FilterArns: [billing] });
    expect(replay.EventSourceArn).toMatch(new RegExp(`archive/${bus.archive}$`));
    expect([replay.EventStartTime?.toISOString(), replay.EventEndTime?.toISOString()]).toEqual([
      '2026-11-20T00:00:00.000Z',
      '2026-11-26T12:00:00.000Z',
    ]);

    const unknown = await cli(
      ['replay', '--from', '2026-11-20', '--to', '2026-11-21', '--rule', 'Nope', '--stack', d.stackName],
      now,
    );
    expect(unknown.status).toBe(CliExit.NOT_FOUND);
    // (EventBridge's own rule of the archive is among them, as in AWS.)
    expect(unknown.err).toMatch(
      new RegExp(
        `No rule "Nope" on the receiver's bus ${bus.name} \\(its rules: .*Billing-Settled, Ledger-Settled\\)\\.`,
      ),
    );
  });

  it('is refused on a bus the receiver did not create (no archive), and without --rule', async () => {
    const d = await deploy({
      props: (stack) => ({ eventBus: events.EventBus.fromEventBusName(stack, 'Shared', 'shared-bus') }),
    });
    expect(d.manifest.bus.archive).toBeUndefined();
    const { status, err } = await cli(
      ['replay', '--from', '2026-11-20', '--to', '2026-11-21', '--rule', 'Billing-Settled', '--stack', d.stackName],
      Date.parse('2026-11-26T12:00:00Z'),
    );
    expect(status).toBe(CliExit.NOT_FOUND);
    expect(err).toContain('publishes on a bus it did not create (the eventBus prop), so it has no archive to replay');
    const every = await cli(['replay', '--from', '2026-11-20', '--to', '2026-11-21', '--stack', d.stackName]);
    expect(every.status).toBe(CliExit.USAGE);
    expect(every.err).toContain('replay needs --rule <the one rule to replay to>: never every rule');
    const wide = await cli(
      ['replay', '--from', '2026-09-01', '--to', '2026-11-21', '--rule', 'x', '--stack', d.stackName],
      Date.parse('2026-11-26T12:00:00Z'),
    );
    expect(wide.err).toContain('replay takes at most 30 days');
  });
});

describe('errors an operator can meet', () => {
  it('a stack that does not exist: exit 4, naming it and what to check', async () => {
    const { status, err } = await cli(['status', '--stack', 'NoSuchStack']);
    expect(status).toBe(CliExit.NOT_FOUND);
    expect(err).toContain(
      'Stack "NoSuchStack" was not found in this account and region: check --stack, --region and --profile.',
    );
    // A name with a control character (a terminal escape) is printed escaped, never raw.
    const escaped = await cli(['status', '--stack', 'No\u001b[2JSuch']);
    expect(escaped.err).toContain('Stack "No\\u001b[2JSuch"');
    expect(escaped.err).not.toContain('\u001b');
  });

  it('a stack with two receivers needs --receiver; a wrong one is named with those there', async () => {
    const d = await deploy({ receivers: ['Two/Boletos', 'Two/Payments'] });
    const none = await cli(['status', '--stack', d.stackName]);
    expect(none.status).toBe(CliExit.NOT_FOUND);
    expect(none.err).toContain(
      `Stack "${d.stackName}" has 2 receivers (Two/Boletos, Two/Payments): name one with --receiver.`,
    );
    const wrong = await cli(['status', '--stack', d.stackName, '--receiver', 'Two/Pix']);
    expect(wrong.err).toContain('has no receiver named "Two/Pix" (it has: Two/Boletos, Two/Payments)');
    expect((await cli(['status', '--stack', d.stackName, '--receiver', 'Two/Payments'])).status).toBe(CliExit.OK);
  });

  it('no credentials: exit 3, saying how to sign in', async () => {
    const home = mkdtempSync(join(tmpdir(), 'no-aws-'));
    const saved = { ...process.env };
    for (const key of Object.keys(process.env)) if (key.startsWith('AWS_')) delete process.env[key];
    Object.assign(process.env, {
      HOME: home,
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_CONFIG_FILE: join(home, 'config'),
      AWS_SHARED_CREDENTIALS_FILE: join(home, 'credentials'),
    });
    try {
      const err: string[] = [];
      const status = await runCli(['status', '--stack', 'Billing', '--region', 'sa-east-1'], {
        out: () => undefined,
        err: (text) => err.push(text),
        stopRequested: new Promise(() => undefined),
        aws: { endpoints: { CLOUDFORMATION: moto.endpoint } },
      });
      expect(status).toBe(CliExit.AWS_ACCESS);
      expect(err.join('\n')).toMatch(
        /No AWS credentials for reading stack "Billing": Could not load credentials from any providers\. Sign in \(aws sso login, or set AWS_PROFILE/,
      );
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('usage errors: exit 2 with what was wrong', async () => {
    expect((await cli(['status'])).err).toContain("status needs --stack <the receiver's stack name>.");
    expect((await cli(['dlq', 'purge', '--stack', 'x'])).status).toBe(CliExit.USAGE);
    const queue = await cli(['dlq', 'list', '--stack', 'x', '--queue', 'other']);
    expect(queue.status).toBe(CliExit.USAGE);
    expect(queue.err).toContain('--queue must be notifications or looks (got "other").');
  });
});
