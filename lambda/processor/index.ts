import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { LOOK_RATE_NAME, PROCESSOR_SERVICE_NAME, ProcessorMetric } from '../../contracts/processor';
import { METRICS_NAMESPACE } from '../../contracts/receiver';
import { bindFamilies, readAccountConnection } from '../bank/families';
import { metricCounter } from '../shared/metrics';
import { createLogger } from '../shared/logger';
import { AWS_CLIENT_CONFIG } from '../shared/runtime';
import { DynamoDbSlotSchedule, sharedBankPacers } from '../store/slot-schedule';
import { DynamoDbLookMarkers } from '../store/look-markers';
import { DynamoDbSubjectStore } from '../store/subject-store';
import { S3NotificationJournal } from '../store/journal';
import { eventBridgePublisher, sqsQuarantine, sqsRequeue } from './aws';
import { processBatch } from './batch';
import { ProcessorQueue } from './deps';
import { readProcessorSettings } from './settings';

const logger = createLogger(PROCESSOR_SERVICE_NAME);
const settings = readProcessorSettings(process.env);
const count = metricCounter({
  namespace: METRICS_NAMESPACE,
  serviceName: PROCESSOR_SERVICE_NAME,
  receiverName: settings.receiverName,
});
const connection = readAccountConnection(process.env, 'SettlementProcessor');
const sqs = new SQSClient(AWS_CLIENT_CONFIG);
const dynamo = new DynamoDBClient(AWS_CLIENT_CONFIG);
const store = new DynamoDbSubjectStore(
  dynamo,
  settings.idempotencyTableName,
  settings.idempotencyTtlSeconds,
  Date.now,
  settings.recordTtlSecondsByKind,
);
const markers = new DynamoDbLookMarkers(dynamo, settings.idempotencyTableName);
// Looks book their share of the query budget on a schedule of their own, shared by every environment.
const looks = {
  schedule: new DynamoDbSlotSchedule(dynamo, settings.idempotencyTableName, LOOK_RATE_NAME),
  ratePerSecond: settings.lookQueryShare * connection.queriesPerSecond,
};
// Every environment (and the reconciliation sweep) takes its slots from one schedule in the table;
// look requests only its idle time. Token requests go to the token endpoints: this environment's
// own schedule, not the query rate.
const pacers = sharedBankPacers(dynamo, settings.idempotencyTableName, connection);
// Every family's client, on one Secrets Manager client; made once, so a client keeps its token and
// its connections between invocations.
const families = bindFamilies({
  env: process.env,
  setBy: 'SettlementProcessor',
  secretsManager: new SecretsManagerClient(AWS_CLIENT_CONFIG),
  onThrottled: () => count(ProcessorMetric.BANK_THROTTLED),
  onRetry: (message, info) => {
    count(ProcessorMetric.BANK_RETRIES);
    logger.warn(message, { ...info });
  },
});
const bankQueries = families.queries(pacers.calls);
const lookQueries = families.queries(pacers.looks);
const publish = eventBridgePublisher(
  new EventBridgeClient(AWS_CLIENT_CONFIG),
  settings.eventBusName,
  settings.eventSource,
);
const quarantine = sqsQuarantine(sqs, {
  [ProcessorQueue.NOTIFICATIONS]: settings.quarantineQueueUrl,
  [ProcessorQueue.LOOKS]: settings.lookQuarantineQueueUrl,
});
const journal = settings.journalBucketName
  ? new S3NotificationJournal(new S3Client(AWS_CLIENT_CONFIG), settings.journalBucketName)
  : undefined;
const requeue = sqsRequeue(sqs, {
  [ProcessorQueue.NOTIFICATIONS]: settings.queueUrl,
  [ProcessorQueue.LOOKS]: settings.lookQueueUrl,
});

export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  return processBatch(event, context, {
    settings,
    account: connection.account,
    zuluTimestamps: connection.zuluTimestamps,
    bank: bankQueries,
    lookBank: lookQueries,
    store,
    markers,
    looks,
    journal,
    publish,
    quarantine,
    requeue,
    logger,
    count,
  });
}
