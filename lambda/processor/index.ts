import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { BankClient, credentialsFromSecret } from '../shared/bank-client';
import { readBankConnection } from '../shared/bank-connection';
import { metricCounter } from '../shared/metrics';
import { ProcessorMetric, QuarantineAttribute, readProcessorSettings } from '../shared/processor-contract';
import { METRICS_NAMESPACE } from '../shared/receiver-contract';
import { PROCESSOR_CLIENT_CONFIG } from './clients';
import { dynamoDbOnce } from './idempotency';
import { processBatch, type VerifiedEvent } from './processor';

const logger = new Logger({ serviceName: 'bank-webhook-processor' });
const count = metricCounter({ namespace: METRICS_NAMESPACE, serviceName: 'bank-webhook-processor' });
const settings = readProcessorSettings(process.env);
const connection = readBankConnection(process.env);
const sqs = new SQSClient(PROCESSOR_CLIENT_CONFIG);
const events = new EventBridgeClient(PROCESSOR_CLIENT_CONFIG);
const idempotency = dynamoDbOnce(new DynamoDBClient(PROCESSOR_CLIENT_CONFIG), settings.idempotencyTableName, settings.idempotencyTtlSeconds);
const bank = new BankClient({
  settings: connection,
  credentials: credentialsFromSecret(new SecretsManagerClient(PROCESSOR_CLIENT_CONFIG), connection.credentialsSecretArn),
  onRetry: (info) => {
    count(ProcessorMetric.BANK_RETRIES);
    logger.warn('Retrying a bank call', { ...info });
  },
});

async function publish(event: VerifiedEvent): Promise<void> {
  const result = await events.send(new PutEventsCommand({
    Entries: [{
      EventBusName: settings.eventBusName,
      Source: settings.eventSource,
      DetailType: event.detailType,
      Detail: JSON.stringify(event.detail),
      Time: new Date(event.detail.verifiedAt),
    }],
  }));
  const entry = result.Entries?.[0];
  if ((result.FailedEntryCount ?? 0) > 0 || !entry?.EventId) {
    throw new Error(`EventBridge did not accept the event: ${entry?.ErrorCode ?? 'no event id'}${entry?.ErrorMessage ? ` (${entry.ErrorMessage})` : ''}`);
  }
}

async function quarantine(record: SQSRecord, reason: string): Promise<void> {
  await sqs.send(new SendMessageCommand({
    QueueUrl: settings.quarantineQueueUrl,
    MessageBody: record.body,
    MessageAttributes: {
      [QuarantineAttribute.REASON]: { DataType: 'String', StringValue: reason.slice(0, 4000) },
      [QuarantineAttribute.AT]: { DataType: 'String', StringValue: new Date().toISOString() },
      [QuarantineAttribute.SOURCE_MESSAGE_ID]: { DataType: 'String', StringValue: record.messageId },
    },
  }));
}

export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  idempotency.registerContext(context);
  return processBatch(event, context, {
    settings,
    bank,
    codigoBeneficiario: connection.account.codigoBeneficiario,
    publish,
    quarantine,
    once: (key, work) => idempotency.once(key, work),
    logger,
    count,
  });
}
