import type { AddressInfo } from 'node:net';
import { CreateTableCommand, type CreateTableCommandInput, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { IdempotencyTable } from '../../contracts/processor';
import { PendingPaymentIndex } from '../../contracts/reconciliation';
import { LOCAL_AWS } from './local-env';

export interface Dynalite {
  readonly endpoint: string;
  readonly client: DynamoDBClient;
  /** Creates a table laid out like the construct's idempotency table. */
  createIdempotencyTable(name: string): Promise<void>;
  /** Creates a table with the key schema and global secondary indexes of an `AWS::DynamoDB::Table` resource's properties. */
  createTableLike(name: string, properties: Record<string, unknown>): Promise<void>;
  stop(): Promise<void>;
}

/** Starts dynalite (DynamoDB's API, in memory) on 127.0.0.1 and a free port. */
export async function startDynalite(): Promise<Dynalite> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new DynamoDBClient({ region: LOCAL_AWS.region, credentials: LOCAL_AWS.credentials, endpoint });
  const local: Dynalite = {
    endpoint,
    client,
    createIdempotencyTable(name) {
      return local.createTableLike(name, {
        AttributeDefinitions: [
          { AttributeName: IdempotencyTable.KEY, AttributeType: 'S' },
          { AttributeName: PendingPaymentIndex.PARTITION, AttributeType: 'S' },
          { AttributeName: PendingPaymentIndex.SINCE, AttributeType: 'N' },
        ],
        KeySchema: [{ AttributeName: IdempotencyTable.KEY, KeyType: 'HASH' }],
        GlobalSecondaryIndexes: [
          {
            IndexName: PendingPaymentIndex.NAME,
            KeySchema: [
              { AttributeName: PendingPaymentIndex.PARTITION, KeyType: 'HASH' },
              { AttributeName: PendingPaymentIndex.SINCE, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'KEYS_ONLY' },
          },
        ],
      });
    },
    async createTableLike(name, properties) {
      await client.send(
        new CreateTableCommand({
          TableName: name,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: properties.AttributeDefinitions as CreateTableCommandInput['AttributeDefinitions'],
          KeySchema: properties.KeySchema as CreateTableCommandInput['KeySchema'],
          ...(properties.GlobalSecondaryIndexes
            ? {
                GlobalSecondaryIndexes:
                  properties.GlobalSecondaryIndexes as CreateTableCommandInput['GlobalSecondaryIndexes'],
              }
            : {}),
        }),
      );
    },
    async stop() {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return local;
}
