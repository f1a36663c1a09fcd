/**
 * The processor's floor: a plain loop that makes the external calls the processor makes for a
 * verified boleto event, in the same order, with the processor's clients and record concurrency,
 * and nothing else: no parsing beyond the two ids, no verification, no logs or metrics.
 *
 * `writes: 2` (the processor's calls): a conditional write claiming the key, the bank query,
 * PutEvents, and the write marking the key done. `writes: 1`: the query, one write and
 * PutEvents, which is as little as any verifying publisher can do, though without a claim it
 * cannot publish exactly once. Bundled like a handler by `npm run bench`; never deployed.
 */
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SQSEvent } from 'aws-lambda';
import { BankClient, credentialsFromSecret } from '../../../lambda/shared/bank-client';
import { readBankConnection } from '../../../lambda/shared/bank-connection';
import { IdempotencyTable, ProcessorDefaults, readProcessorSettings } from '../../../lambda/shared/processor-contract';
import { decodeStoredNotification } from '../../../lambda/shared/receiver-contract';
import { mapConcurrently } from '../../../lambda/processor/processor';
import { PROCESSOR_CLIENT_CONFIG } from '../../../lambda/processor/clients';

const settings = readProcessorSettings(process.env);
const connection = readBankConnection(process.env);
const dynamo = new DynamoDBClient(PROCESSOR_CLIENT_CONFIG);
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
    const key = { [IdempotencyTable.KEY]: { S: `floor#${writes}#${notification.idEventoWebhook}` } };
    const write = (status: string, claim: boolean) => dynamo.send(new PutItemCommand({
      TableName: settings.idempotencyTableName,
      Item: { ...key, status: { S: status } },
      ...(claim ? { ConditionExpression: 'attribute_not_exists(#k)', ExpressionAttributeNames: { '#k': IdempotencyTable.KEY } } : {}),
    }));
    if (writes === 2) await write('INPROGRESS', true);
    const verified = await bank.queryBoleto(connection.account.codigoBeneficiario, notification.nossoNumero, deadline);
    if (writes === 1) await write('COMPLETED', false);
    await events.send(new PutEventsCommand({ Entries: [{ EventBusName: settings.eventBusName, Source: settings.eventSource, DetailType: 'floor', Detail: JSON.stringify({ verified, notification }) }] }));
    if (writes === 2) await write('COMPLETED', false);
    published++;
  });
  return { published };
}
