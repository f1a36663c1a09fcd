import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { LOOK_RATE_NAME, PROCESSOR_SERVICE_NAME, ProcessorMetric } from '../../contracts/processor';
import { METRICS_NAMESPACE } from '../../contracts/receiver';
import { BankClient, credentialsFromSecret, readBankConnection } from '../bank/cooperative';
import type { BankPacer } from '../bank/pacing';
import { PixClient, pixCredentialsFromSecret, readPixConnection } from '../bank/pix';
import type { BankQueries } from './deps';
import { metricCounter } from '../shared/metrics';
import { AWS_CLIENT_CONFIG, createLogger } from '../shared/runtime';
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
const count = metricCounter({ namespace: METRICS_NAMESPACE, serviceName: PROCESSOR_SERVICE_NAME, receiverName: settings.receiverName });
const connection = readBankConnection(process.env, 'SettlementProcessor');
const sqs = new SQSClient(AWS_CLIENT_CONFIG);
const dynamo = new DynamoDBClient(AWS_CLIENT_CONFIG);
const store = new DynamoDbSubjectStore(dynamo, settings.idempotencyTableName, settings.idempotencyTtlSeconds, Date.now, settings.recordTtlSecondsByKind);
const markers = new DynamoDbLookMarkers(dynamo, settings.idempotencyTableName);
// Looks book their share of the query budget on a schedule of their own, shared by every environment.
const looks = { schedule: new DynamoDbSlotSchedule(dynamo, settings.idempotencyTableName, LOOK_RATE_NAME), ratePerSecond: settings.lookQueryShare * connection.queriesPerSecond };
// Every environment (and the reconciliation sweep) takes its slots from one schedule in the table;
// look requests only its idle time. Token requests go to the token endpoints: this environment's
// own schedule, not the query rate.
// One Secrets Manager client for the bank's credentials and the Pix API's.
const secretsManager = new SecretsManagerClient(AWS_CLIENT_CONFIG);
const pacers = sharedBankPacers(dynamo, settings.idempotencyTableName, connection);
const bank = new BankClient({
  settings: connection,
  pacer: pacers.calls,
  onThrottled: () => count(ProcessorMetric.BANK_THROTTLED),
  credentials: credentialsFromSecret(secretsManager, connection.credentialsSecretArn),
  onRetry: (info) => {
    count(ProcessorMetric.BANK_RETRIES);
    logger.warn('Retrying a bank call', { ...info });
  },
});
// The standard Pix API, when the receiver has a Pix route: its queries share the bank's budget.
const pixConnection = readPixConnection(process.env, 'SettlementProcessor');
const pixCredentials = pixConnection && pixCredentialsFromSecret(secretsManager, pixConnection.credentialsSecretArn);
const pixClient = (pacer: BankPacer) => pixConnection && pixCredentials && new PixClient({
  settings: pixConnection, credentials: pixCredentials, pacer,
  onThrottled: () => count(ProcessorMetric.BANK_THROTTLED),
  onRetry: (info) => {
    count(ProcessorMetric.BANK_RETRIES);
    logger.warn('Retrying a Pix API call', { ...info });
  },
});
/** The bank's client with the other families' clients beside it. */
function queries(client: BankClient, pacer: BankPacer): BankQueries {
  const pix = pixClient(pacer);
  return {
    clients: { cooperative: client, ...(pix ? { pix } : {}) },
  };
}
const lookBank = bank.withPacer(pacers.looks);
// Made once: a Pix client keeps its token and its mutual-TLS connection between invocations.
const bankQueries = queries(bank, pacers.calls);
const lookQueries = queries(lookBank, pacers.looks);
const publish = eventBridgePublisher(new EventBridgeClient(AWS_CLIENT_CONFIG), settings.eventBusName, settings.eventSource);
const quarantine = sqsQuarantine(sqs, { [ProcessorQueue.NOTIFICATIONS]: settings.quarantineQueueUrl, [ProcessorQueue.LOOKS]: settings.lookQuarantineQueueUrl });
const journal = settings.journalBucketName ? new S3NotificationJournal(new S3Client(AWS_CLIENT_CONFIG), settings.journalBucketName) : undefined;
const requeue = sqsRequeue(sqs, { [ProcessorQueue.NOTIFICATIONS]: settings.queueUrl, [ProcessorQueue.LOOKS]: settings.lookQueueUrl });

export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  return processBatch(event, context, {
    settings,
    account: connection.account,
    zuluTimestamps: connection.zuluTimestamps,
    bank: bankQueries,
    lookBank: lookQueries,
    ...(settings.pixKeys ? { pixKeys: settings.pixKeys } : {}),
    ...(settings.pixKeyless ? { pixKeyless: true } : {}),
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
