import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { DynamoDBPersistenceOptions } from '@aws-lambda-powertools/idempotency/dynamodb/types';
import type { Context } from 'aws-lambda';
import { IdempotencyTable } from '../shared/processor-contract';

/** How the processor's table holds idempotency records (the benchmark's floor writes the same). */
export function persistenceLayerOptions(client: DynamoDBClient, tableName: string): DynamoDBPersistenceOptions {
  return { tableName, awsSdkV3Client: client, keyAttr: IdempotencyTable.KEY, expiryAttr: IdempotencyTable.TTL };
}

/**
 * "Once per key" on Powertools' idempotency utility: a record per key in DynamoDB, written
 * conditionally as IN_PROGRESS before the work and COMPLETED after it, deleted when the work
 * fails so a retry runs it again. A key already COMPLETED skips the work; a key IN_PROGRESS in
 * another invocation throws IdempotencyAlreadyInProgressError (the record is retried later),
 * and an IN_PROGRESS record left by a crashed invocation expires with that invocation's timeout.
 */
export function dynamoDbOnce(client: DynamoDBClient, tableName: string, ttlSeconds: number) {
  const config = new IdempotencyConfig({ expiresAfterSeconds: ttlSeconds });
  const persistenceStore = new DynamoDBPersistenceLayer(persistenceLayerOptions(client, tableName));
  const run = makeIdempotent(
    async (_identity: { key: string }, work: () => Promise<void>): Promise<{ done: true }> => {
      await work();
      return { done: true };
    },
    // A fixed prefix, not the function's name: a replaced function keeps recognising old keys.
    { persistenceStore, config, keyPrefix: IdempotencyTable.KEY_PREFIX },
  );
  return {
    /** Call once per invocation: an IN_PROGRESS record lasts as long as the invocation can. */
    registerContext(context: Context): void {
      config.registerLambdaContext(context);
    },
    async once(key: string, work: () => Promise<void>): Promise<{ duplicate: boolean }> {
      let ran = false;
      await run({ key }, async () => {
        ran = true;
        await work();
      });
      return { duplicate: !ran };
    },
  };
}
