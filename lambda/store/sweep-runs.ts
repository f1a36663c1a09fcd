/**
 * The reconciliation sweep's last run, one item beside the subject records: when it ran and what
 * it found, so an operator's `status` tells it without reading logs. Written at the end of each
 * sweep; a sweep that failed leaves the one before (its errors are the sweep's alarm).
 */
import { GetItemCommand, type DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { IdempotencyTable } from '../../contracts/processor';
import type { SweepResult } from '../../contracts/reconciliation';

/** The item's key: beside the subject records, never one (theirs start `boleto:`, `payment:`…). */
export const LAST_SWEEP_KEY = 'reconciliation:last-sweep';

/** What the last sweep found, as `status` prints it. */
export interface SweepRunRecord {
  /** When it finished (epoch ms). */
  readonly at: number;
  readonly result: SweepResult;
}

/** Kept this long after the last sweep (a receiver whose sweep is turned off stops writing it). */
const KEEP_SECONDS = 30 * 86_400;

export class DynamoDbSweepRuns {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async read(): Promise<SweepRunRecord | undefined> {
    const { Item: item } = await this.client.send(
      new GetItemCommand({
        TableName: this.tableName,
        Key: { [IdempotencyTable.KEY]: { S: LAST_SWEEP_KEY } },
        ConsistentRead: true,
      }),
    );
    if (!item?.data?.S || !item.at?.N) return undefined;
    return { at: Number(item.at.N), result: JSON.parse(item.data.S) as SweepResult };
  }

  async write(run: SweepRunRecord): Promise<void> {
    await this.client.send(
      new PutItemCommand({
        TableName: this.tableName,
        Item: {
          [IdempotencyTable.KEY]: { S: LAST_SWEEP_KEY },
          at: { N: String(run.at) },
          data: { S: JSON.stringify(run.result) },
          [IdempotencyTable.TTL]: { N: String(Math.ceil(run.at / 1000) + KEEP_SECONDS) },
        },
      }),
    );
  }
}
