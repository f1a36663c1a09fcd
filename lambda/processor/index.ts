import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { BankClient, credentialsFromSecret } from '../bank/client';
import { sharedBankPacer } from '../store/slot-schedule';
import { readBankConnection } from '../bank/connection';
import { metricCounter } from '../shared/metrics';
import { PROCESSOR_SERVICE_NAME, ProcessorMetric, QuarantineAttribute } from '../../contracts/processor';
import { readProcessorSettings } from './settings';
import { METRICS_NAMESPACE, QUARANTINE_REASON_BYTES } from '../../contracts/receiver';
import { sqsAttributeText } from '../store/stored-notification';
import { sleep } from '../shared/retry';
import { processBatch, type PublishEntry } from './processor';
import { DynamoDbSubjectStore } from '../store/subject-store';
import { AWS_CLIENT_CONFIG, createLogger } from '../shared/runtime';

const logger = createLogger(PROCESSOR_SERVICE_NAME);
const count = metricCounter({ namespace: METRICS_NAMESPACE, serviceName: PROCESSOR_SERVICE_NAME });
const settings = readProcessorSettings(process.env);
const connection = readBankConnection(process.env, 'SettlementProcessor');
const sqs = new SQSClient(AWS_CLIENT_CONFIG);
const events = new EventBridgeClient(AWS_CLIENT_CONFIG);
const dynamo = new DynamoDBClient(AWS_CLIENT_CONFIG);
const store = new DynamoDbSubjectStore(dynamo, settings.idempotencyTableName, settings.idempotencyTtlSeconds);
const bank = new BankClient({
  settings: connection,
  // Every environment (and the reconciliation sweep) takes its slots from one schedule in the table.
  // Token requests go to the token endpoints: this environment's own schedule, not the query rate.
  pacer: sharedBankPacer(dynamo, settings.idempotencyTableName, connection),
  onThrottled: () => count(ProcessorMetric.BANK_THROTTLED),
  credentials: credentialsFromSecret(new SecretsManagerClient(AWS_CLIENT_CONFIG), connection.credentialsSecretArn),
  onRetry: (info) => {
    count(ProcessorMetric.BANK_RETRIES);
    logger.warn('Retrying a bank call', { ...info });
  },
});

/** PutEvents takes at most 10 entries and 256 KB per request. */
const MAX_ENTRIES = 10;
const MAX_REQUEST_BYTES = 256_000;
/** Sends of the entries EventBridge did not accept, inside one publish. */
const PUBLISH_ATTEMPTS = 3;

function chunks(entries: readonly PutEventsRequestEntry[]): PutEventsRequestEntry[][] {
  const result: PutEventsRequestEntry[][] = [];
  let size = 0;
  for (const entry of entries) {
    const bytes = Buffer.byteLength(entry.Detail ?? '') + Buffer.byteLength(entry.DetailType ?? '') + Buffer.byteLength(entry.Source ?? '');
    const last = result[result.length - 1];
    if (!last || last.length >= MAX_ENTRIES || size + bytes > MAX_REQUEST_BYTES) {
      result.push([entry]);
      size = bytes;
    } else {
      last.push(entry);
      size += bytes;
    }
  }
  return result;
}

/** Publishes every entry, sending again (twice at most) only the ones EventBridge did not accept. */
async function publish(entries: readonly PublishEntry[]): Promise<void> {
  let remaining: PutEventsRequestEntry[] = entries.map((entry) => ({
    EventBusName: settings.eventBusName,
    Source: settings.eventSource,
    DetailType: entry.detailType,
    Detail: entry.detail,
  }));
  for (let attempt = 1; ; attempt++) {
    const failed: { entry: PutEventsRequestEntry; why: string }[] = [];
    for (const chunk of chunks(remaining)) {
      const result = await events.send(new PutEventsCommand({ Entries: chunk }));
      chunk.forEach((entry, i) => {
        const answer = result.Entries?.[i];
        if (!answer?.EventId) failed.push({ entry, why: `${answer?.ErrorCode ?? 'no event id'}${answer?.ErrorMessage ? ` (${answer.ErrorMessage})` : ''}` });
      });
    }
    if (!failed.length) return;
    if (attempt >= PUBLISH_ATTEMPTS) throw new Error(`EventBridge did not accept ${failed.length} event(s): ${failed[0].why}`);
    remaining = failed.map((f) => f.entry);
    await sleep(100 * attempt);
  }
}

async function quarantine(record: SQSRecord, reason: string): Promise<void> {
  await sqs.send(new SendMessageCommand({
    QueueUrl: settings.quarantineQueueUrl,
    MessageBody: record.body,
    MessageAttributes: {
      [QuarantineAttribute.REASON]: { DataType: 'String', StringValue: sqsAttributeText(reason, QUARANTINE_REASON_BYTES) || 'quarantined' },
      [QuarantineAttribute.AT]: { DataType: 'String', StringValue: new Date().toISOString() },
      [QuarantineAttribute.SOURCE_MESSAGE_ID]: { DataType: 'String', StringValue: record.messageId },
    },
  }));
}

async function requeue(messageBody: string, delaySeconds: number): Promise<void> {
  await sqs.send(new SendMessageCommand({ QueueUrl: settings.queueUrl, MessageBody: messageBody, DelaySeconds: delaySeconds }));
}

export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  return processBatch(event, context, {
    settings,
    account: connection.account,
    bank,
    store,
    publish,
    quarantine,
    requeue,
    logger,
    count,
  });
}
