/**
 * The processor's floor: a plain loop that makes the external calls the processor makes for a
 * verified boleto event, in the same order, with the processor's clients and record concurrency,
 * and nothing else: no parsing beyond the two ids, no verification, no logs or metrics.
 *
 * `writes: 2` (the processor's calls): the conditional write claiming the key, the bank query,
 * PutEvents, and the write marking the key done. The two writes are the very requests the
 * processor's idempotency layer sends (Powertools' DynamoDB persistence layer, called directly:
 * the same condition, which also takes over an expired or abandoned claim, and the same update),
 * without the handler around them. `writes: 1`: the query, one plain write and PutEvents, which
 * is as little as any verifying publisher can do, though without a claim it cannot publish
 * exactly once. Bundled like a handler by `npm run bench`; never deployed.
 */
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { IdempotencyRecordStatus } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import type { SQSEvent } from 'aws-lambda';
import { BankClient, credentialsFromSecret } from '../../../lambda/shared/bank-client';
import { readBankConnection } from '../../../lambda/shared/bank-connection';
import { IdempotencyTable, ProcessorDefaults, readProcessorSettings } from '../../../lambda/shared/processor-contract';
import { decodeStoredNotification } from '../../../lambda/shared/receiver-contract';
import { mapConcurrently } from '../../../lambda/processor/processor';
import { PROCESSOR_CLIENT_CONFIG } from '../../../lambda/processor/clients';
import { persistenceLayerOptions } from '../../../lambda/processor/idempotency';

const settings = readProcessorSettings(process.env);
const connection = readBankConnection(process.env);
const dynamo = new DynamoDBClient(PROCESSOR_CLIENT_CONFIG);

/** The persistence layer's two writes, as the processor's `dynamoDbOnce` configures it. */
class IdempotencyWrites extends DynamoDBPersistenceLayer {
  claim(key: string, deadline: number): Promise<void> {
    return this._putRecord(new IdempotencyRecord({
      idempotencyKey: key, status: IdempotencyRecordStatus.INPROGRESS, expiryTimestamp: this.expiresAt(), inProgressExpiryTimestamp: deadline,
    }));
  }

  complete(key: string): Promise<void> {
    return this._updateRecord(new IdempotencyRecord({
      idempotencyKey: key, status: IdempotencyRecordStatus.COMPLETED, expiryTimestamp: this.expiresAt(), responseData: { done: true },
    }));
  }

  private expiresAt(): number {
    return Math.round(Date.now() / 1000 + settings.idempotencyTtlSeconds);
  }
}

const idempotency = new IdempotencyWrites(persistenceLayerOptions(dynamo, settings.idempotencyTableName));
const events = new EventBridgeClient(PROCESSOR_CLIENT_CONFIG);
const bank = new BankClient({ settings: connection, credentials: credentialsFromSecret(new SecretsManagerClient(PROCESSOR_CLIENT_CONFIG), connection.credentialsSecretArn) });

/** The processor's calls: claim, query, publish, mark done. */
export function handler(event: SQSEvent): Promise<{ published: number }> {
  return verifyAll(event, 2);
}

/** The least a verifying publisher can do: query, one write, publish. */
export function oneWriteHandler(event: SQSEvent): Promise<{ published: number }> {
  return verifyAll(event, 1);
}

async function verifyAll(event: SQSEvent, writes: 1 | 2): Promise<{ published: number }> {
  const deadline = Date.now() + 30_000;
  let published = 0;
  await mapConcurrently(event.Records, ProcessorDefaults.recordConcurrency, async (record) => {
    const { body } = decodeStoredNotification(record.body);
    const notification = JSON.parse(body.toString('utf8')) as { idEventoWebhook: string; nossoNumero: string };
    const key = `floor#${writes}#${notification.idEventoWebhook}`;
    if (writes === 2) await idempotency.claim(key, deadline);
    const verified = await bank.queryBoleto(connection.account.codigoBeneficiario, notification.nossoNumero, deadline);
    if (writes === 1) await dynamo.send(new PutItemCommand({ TableName: settings.idempotencyTableName, Item: { [IdempotencyTable.KEY]: { S: key }, status: { S: 'COMPLETED' } } }));
    await events.send(new PutEventsCommand({ Entries: [{ EventBusName: settings.eventBusName, Source: settings.eventSource, DetailType: 'floor', Detail: JSON.stringify({ verified, notification }) }] }));
    if (writes === 2) await idempotency.complete(key);
    published++;
  });
  return { published };
}
