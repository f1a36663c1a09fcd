import { DynamoDBClient, GetItemCommand, PutItemCommand, QueryCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DescribeRuleCommand, EventBridgeClient, ResourceNotFoundException } from '@aws-sdk/client-eventbridge';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { BankClient, credentialsFromSecret } from '../shared/bank-client';

import { readBankConnection } from '../shared/bank-connection';
import { sharedBankPacer } from '../shared/dynamodb-slot-schedule';
import { metricCounter, MetricUnit } from '../shared/metrics';
import { IdempotencyTable, ProcessorMetric } from '../../contracts/processor';
import { METRICS_NAMESPACE } from '../../contracts/receiver';
import { boletoDayCursorId } from '../shared/look-request';
import { PENDING_PAYMENTS_PARTITION, PendingPaymentIndex, RECONCILIATION_SERVICE_NAME } from '../../contracts/reconciliation';
import { readSweepSettings } from './settings';
import { DynamoDbSubjectStore } from '../processor/subject-store';
import { loadAcceptedTokens } from '../shared/secret-tokens';
import { sleep } from '../shared/retry';
import { type DayCursor, type PendingPayment, sweep, type SweepReport } from './sweep';
import { type WatchFinding, watchRegistrations } from './watch';
import { AWS_CLIENT_CONFIG, createLogger } from '../shared/runtime';

const logger = createLogger(RECONCILIATION_SERVICE_NAME);
const counter = metricCounter({ namespace: METRICS_NAMESPACE, serviceName: RECONCILIATION_SERVICE_NAME });
const settings = readSweepSettings(process.env);
const connection = readBankConnection(process.env);
const dynamo = new DynamoDBClient(AWS_CLIENT_CONFIG);
const sqs = new SQSClient(AWS_CLIENT_CONFIG);
const table = settings.idempotencyTableName;
/** A cursor lives as long as its day is read again, and a little more. */
const cursorTtlSeconds = (settings.lookbackDays + 2) * 86_400;
const store = new DynamoDbSubjectStore(dynamo, table, 0);
const secretsManager = new SecretsManagerClient(AWS_CLIENT_CONFIG);
const eventBridge = new EventBridgeClient(AWS_CLIENT_CONFIG);
const bank = new BankClient({
  settings: connection,
  // The sweep's listings take their slots from the processor's schedule: one rate for both.
  pacer: sharedBankPacer(dynamo, table, connection),
  onThrottled: () => counter(ProcessorMetric.BANK_THROTTLED),
  credentials: credentialsFromSecret(secretsManager, connection.credentialsSecretArn),
  onRetry: (info) => logger.warn('Retrying a bank call', { ...info }),
});

const key = (id: string) => ({ [IdempotencyTable.KEY]: { S: id } });

const cursors = {
  async read(isoDay: string): Promise<DayCursor | undefined> {
    const { Item } = await dynamo.send(new GetItemCommand({ TableName: table, Key: key(boletoDayCursorId(connection.account.codigoBeneficiario, isoDay)), ConsistentRead: true }));
    if (!Item?.page?.N) return undefined;
    return { page: Number(Item.page.N), handledOnPage: Number(Item.handledOnPage?.N ?? 0), ...(Item.lastNossoNumero?.S ? { lastNossoNumero: Item.lastNossoNumero.S } : {}) };
  },
  async write(isoDay: string, cursor: DayCursor): Promise<void> {
    await dynamo.send(new PutItemCommand({
      TableName: table,
      Item: {
        ...key(boletoDayCursorId(connection.account.codigoBeneficiario, isoDay)),
        page: { N: String(cursor.page) },
        handledOnPage: { N: String(cursor.handledOnPage) },
        ...(cursor.lastNossoNumero ? { lastNossoNumero: { S: cursor.lastNossoNumero } } : {}),
        [IdempotencyTable.TTL]: { N: String(Math.floor(Date.now() / 1000) + cursorTtlSeconds) },
      },
    }));
  },
};

const pendingPayments = {
  async *list(): AsyncIterable<PendingPayment> {
    let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
    do {
      const page = await dynamo.send(new QueryCommand({
        TableName: table,
        IndexName: PendingPaymentIndex.NAME,
        KeyConditionExpression: '#p = :p',
        ExpressionAttributeNames: { '#p': PendingPaymentIndex.PARTITION },
        ExpressionAttributeValues: { ':p': { S: PENDING_PAYMENTS_PARTITION } },
        ExclusiveStartKey,
      }));
      for (const item of page.Items ?? []) {
        const subjectId = item[IdempotencyTable.KEY]?.S;
        const since = Number(item[PendingPaymentIndex.SINCE]?.N);
        if (subjectId && Number.isFinite(since)) yield { subjectId, pendingSince: since };
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  },
  async giveUp(payment: PendingPayment): Promise<void> {
    await dynamo.send(new UpdateItemCommand({
      TableName: table,
      Key: key(payment.subjectId),
      UpdateExpression: 'REMOVE #p, #s',
      ConditionExpression: '#s = :s',
      ExpressionAttributeNames: { '#p': PendingPaymentIndex.PARTITION, '#s': PendingPaymentIndex.SINCE },
      ExpressionAttributeValues: { ':s': { N: String(payment.pendingSince) } },
    })).catch((error: unknown) => {
      // Written again since it was listed (the processor saw it change): nothing to give up.
      if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
    });
  },
};

/** SendMessageBatch takes at most 10 entries. */
async function send(messageBodies: readonly string[]): Promise<void> {
  for (let start = 0; start < messageBodies.length; start += 10) {
    const entries = messageBodies.slice(start, start + 10).map((MessageBody, i) => ({ Id: String(i), MessageBody }));
    const result = await sqs.send(new SendMessageBatchCommand({ QueueUrl: settings.queueUrl, Entries: entries }));
    if (result.Failed?.length) {
      throw new Error(`SQS did not take ${result.Failed.length} look request(s): ${result.Failed[0].Code ?? ''} ${result.Failed[0].Message ?? ''}; the next sweep reads them again`);
    }
  }
}

/**
 * A repair is wanted only while the stack is steady: its schedule rule exists (CloudFormation
 * deletes it before the registrations) and is enabled (an update or an operator can disable it).
 */
async function repairAllowed(ruleName: string): Promise<boolean> {
  try {
    const rule = await eventBridge.send(new DescribeRuleCommand({ Name: ruleName }));
    return rule.State === 'ENABLED';
  } catch (error) {
    if (error instanceof ResourceNotFoundException || (error as { name?: string }).name === 'ResourceNotFoundException') return false;
    throw error;
  }
}

async function watch(deadline: number): Promise<WatchFinding[]> {
  const w = settings.watch!;
  return watchRegistrations({
    settings: w,
    ctx: {
      bank,
      deadline,
      tokenValue: async (arn) => {
        const accepted = await loadAcceptedTokens(secretsManager, arn, 10_000);
        return accepted[accepted.length - 1];
      },
      log: logger,
      sleep,
    },
    acceptedTokens: (arn) => loadAcceptedTokens(secretsManager, arn, 10_000),
    repairAllowed: () => repairAllowed(w.scheduleRuleName),
    count: (metric, details) => counter(metric, {}, details),
  });
}

export async function handler(event: ScheduledEvent, context: Context): Promise<SweepReport & { registrations?: WatchFinding[] }> {
  const deadline = Date.now() + context.getRemainingTimeInMillis() - settings.safetyMarginMs;
  // The schedule's time names the days to read (a sweep that starts late still reads its own day).
  const scheduledAt = Date.parse(event?.time ?? '');
  const report = await sweep({
    settings,
    codigoBeneficiario: connection.account.codigoBeneficiario,
    bank,
    readRecord: (subjectId) => store.read(subjectId),
    cursors,
    pendingPayments,
    send,
    count: (metric, value, milliseconds) => counter(metric, {}, undefined, value, milliseconds ? MetricUnit.MILLISECONDS : MetricUnit.COUNT),
    logger,
  }, deadline, Number.isFinite(scheduledAt) ? scheduledAt : undefined);
  logger.info('Reconciliation sweep finished', { ...report, days: JSON.stringify(report.days) });
  if (!settings.watch) return report;
  const registrations = await watch(deadline);
  return { ...report, registrations };
}
