import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { IdempotencyTable } from '../../lambda/shared/processor-contract';
import { TEST_AWS } from './aws-env';

export interface Dynalite {
  readonly endpoint: string;
  readonly client: DynamoDBClient;
  /** Creates a table laid out like the construct's idempotency table. */
  createIdempotencyTable(name: string): Promise<void>;
  stop(): Promise<void>;
}

/** Starts dynalite (DynamoDB's API, in memory) on 127.0.0.1 and a free port. */
export async function startDynalite(): Promise<Dynalite> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new DynamoDBClient({ ...TEST_AWS, endpoint });
  return {
    endpoint,
    client,
    async createIdempotencyTable(name) {
      await client.send(new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: IdempotencyTable.KEY, AttributeType: 'S' }],
        KeySchema: [{ AttributeName: IdempotencyTable.KEY, KeyType: 'HASH' }],
      }));
    },
    async stop() {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
