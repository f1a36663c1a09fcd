/**
 * The processor's floor: a plain loop that makes the external calls the processor makes for a
 * verified boleto event, in the same order, with the processor's clients and record concurrency,
 * and nothing else: no parsing beyond the two ids, no verification, no logs or metrics.
 *
 * `writes: 2` (the processor's calls): the consistent read of the batch's subjects in one
 * request (the store's readMany, as the processor reads them before its records), the bank
 * query, the conditional write of the new state with its event in the outbox, PutEvents, and the
 * update clearing the outbox; with the raw journal on, its two PutObjects (the raw copy and the
 * subject's index entry, through the processor's S3NotificationJournal) while the bank is asked. The store calls are the very requests the processor's subject store
 * sends (DynamoDbSubjectStore, called directly), without the processor around them. `writes: 1`:
 * the query, one plain write and PutEvents, which is as little as any verifying publisher can
 * do, though without a conditional record it cannot publish exactly once. `pixHandler`: the
 * processor's calls for a Pix callback, its query `GET /pix/{e2eid}`; `recurringHandler`: for a
 * recurring charge's callback, `GET /cobr/{txid}`. Bundled like a handler
 * by `npm run bench`; never deployed.
 */
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SQSEvent } from 'aws-lambda';
import { CooperativeClient } from '../../../lambda/bank/cooperative/client';
import { MemorySlotSchedule, RatePacer } from '../../../lambda/bank/pacing';
import { PixClient, pixCredentialsFromSecret, readPixConnection } from '../../../lambda/bank/pix';
import { credentialsFromSecret, readBankConnection } from '../../../lambda/bank/cooperative/connection';
import { IdempotencyTable, PROCESSOR_SETTINGS_ENV, ProcessorDefaults, type ProcessorSettings } from '../../../contracts/processor';
import { decodeStoredNotification } from '../../../lambda/store/stored-notification';
import { BankEventDetailType, StatusClass } from '../../../contracts/events';
import { mapConcurrently } from '../../../lambda/shared/concurrency';
import { AWS_CLIENT_CONFIG } from '../../../lambda/shared/runtime';
import { DynamoDbSubjectStore, newOutboxId } from '../../../lambda/store/subject-store';
import { S3Client } from '@aws-sdk/client-s3';
import { journalKey, journalSubjectKey } from '../../../contracts/record';
import { S3NotificationJournal } from '../../../lambda/store/journal';
import { settingsIn } from './settings-in';

const settings = settingsIn<ProcessorSettings>(PROCESSOR_SETTINGS_ENV);
const connection = readBankConnection(process.env, 'SettlementProcessor');
const dynamo = new DynamoDBClient(AWS_CLIENT_CONFIG);

const store = new DynamoDbSubjectStore(dynamo, settings.idempotencyTableName, settings.idempotencyTtlSeconds);
const events = new EventBridgeClient(AWS_CLIENT_CONFIG);
const journal = settings.journalBucketName ? new S3NotificationJournal(new S3Client(AWS_CLIENT_CONFIG), settings.journalBucketName) : undefined;
const secretsManager = new SecretsManagerClient(AWS_CLIENT_CONFIG);
const bank = new CooperativeClient({ settings: connection, credentials: credentialsFromSecret(secretsManager, connection.credentialsSecretArn) });
const pixConnection = readPixConnection(process.env, 'SettlementProcessor');
// The Pix query as the processor's client makes it (a token over mutual TLS, the same pacing).
const pix = pixConnection && new PixClient({ settings: pixConnection, credentials: pixCredentialsFromSecret(secretsManager, pixConnection.credentialsSecretArn), pacer: new RatePacer(new MemorySlotSchedule(), { ratePerSecond: connection.queriesPerSecond, name: 'floor Pix queries' }) });

/** The processor's calls: read the record, query, write state and outbox, publish, clear the outbox. */
export function handler(event: SQSEvent): Promise<{ published: number }> {
  return verifyAll(event, 2);
}

/** The least a verifying publisher can do: query, one write, publish. */
export function oneWriteHandler(event: SQSEvent): Promise<{ published: number }> {
  return verifyAll(event, 1);
}

/** The processor's calls for a Pix callback of one Pix: read, `GET /pix/{e2eid}`, write state and outbox, publish, clear. */
export function pixHandler(event: SQSEvent): Promise<{ published: number }> {
  return verifyAll(event, 2, 'pix');
}

/** The processor's calls for a recurring charge's callback (Pix Automático): its query `GET /cobr/{txid}`. */
export function recurringHandler(event: SQSEvent): Promise<{ published: number }> {
  return verifyAll(event, 2, 'cobr');
}

async function verifyAll(event: SQSEvent, writes: 1 | 2, callbacks?: 'pix' | 'cobr'): Promise<{ published: number }> {
  const deadline = Date.now() + 30_000;
  let published = 0;
  const parsed = event.Records.map((record) => {
    const { notification: stored, body } = decodeStoredNotification(record.body);
    const raw = JSON.parse(body.toString('utf8')) as { idEventoWebhook: string; nossoNumero: string; pix?: Array<{ endToEndId: string }>; cobsr?: Array<{ txid: string }> };
    const id = callbacks === 'pix' ? raw.pix![0].endToEndId : callbacks === 'cobr' ? raw.cobsr![0].txid : undefined;
    const notification = id ? { idEventoWebhook: id, nossoNumero: id } : raw;
    return { record, stored, notification, key: `floor#${writes}#${notification.idEventoWebhook}` };
  });
  const subjects = writes === 2 ? await store.readMany(parsed.map((p) => p.key)) : undefined;
  await mapConcurrently(parsed, ProcessorDefaults.recordConcurrency, async ({ record, stored, notification, key }) => {
    const journaled = writes === 2 && journal ? journal.write(journalKey(stored), record.body, [journalSubjectKey(key, stored)]) : undefined;
    const subject = writes === 2 ? subjects!.get(key) ?? await store.read(key) : undefined;
    const verified: Record<string, unknown> = callbacks === 'pix'
      ? { situacao: 'RECEBIDO', pix: await pix!.getPix(notification.nossoNumero, deadline) }
      : callbacks === 'cobr'
        ? { situacao: 'ATIVA', cobr: await pix!.getRecurringCharge(notification.nossoNumero, deadline) }
        : await bank.queryBoleto(connection.account.codigoBeneficiario, notification.nossoNumero, deadline);
    await journaled;
    const detail = JSON.stringify({ verified, notification });
    const outbox = { id: newOutboxId(), leaseUntil: deadline, entries: [{ detailType: BankEventDetailType.BOLETO_SETTLED, detail }] };
    // A recurring charge scheduled is not final: the processor keeps it in the index the sweep follows (the same write, with the index's attributes).
    const pending = callbacks === 'cobr' ? { pendingSince: Date.now() } : {};
    if (writes === 2) await store.write(key, subject!.version, { sequence: 1, state: { status: String(verified.situacao), statusClass: StatusClass.SETTLED }, history: [], seen: [notification.idEventoWebhook], outbox, ...pending });
    else await dynamo.send(new PutItemCommand({ TableName: settings.idempotencyTableName, Item: { [IdempotencyTable.KEY]: { S: key }, status: { S: 'COMPLETED' } } }));
    await events.send(new PutEventsCommand({ Entries: [{ EventBusName: settings.eventBusName, Source: settings.eventSource, DetailType: 'floor', Detail: detail }] }));
    if (writes === 2) await store.clearOutbox(key, outbox.id);
    published++;
  });
  return { published };
}
