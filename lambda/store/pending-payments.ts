/**
 * The index of payments not final yet (PendingPaymentIndex, sparse): the processor puts a payment
 * record in it by writing its attributes with the record, and takes it out by leaving them off;
 * the reconciliation sweep lists it, oldest first, and gives up a payment pending too long.
 */
import { type AttributeValue, type DynamoDBClient, QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { IdempotencyTable } from '../../contracts/processor';
import { PENDING_PAYMENTS_PARTITION, PendingPaymentIndex } from '../../contracts/reconciliation';
import { isConditionFailure } from './conditions';

/** A payment in the index. */
export interface PendingPayment {
  readonly subjectId: string;
  readonly pendingSince: number;
}

/** The attributes that put a subject's record in the index (written with the record). */
export function pendingPaymentAttributes(pendingSince: number): Record<string, { S: string } | { N: string }> {
  return {
    [PendingPaymentIndex.PARTITION]: { S: PENDING_PAYMENTS_PARTITION },
    [PendingPaymentIndex.SINCE]: { N: String(pendingSince) },
  };
}

/** Since when a record's payment is pending (epoch ms), when the record is in the index. */
export function pendingSinceOf(item: Record<string, AttributeValue>): number | undefined {
  const since = item[PendingPaymentIndex.SINCE]?.N;
  return since ? Number(since) : undefined;
}

/** The index as the sweep reads it. */
export class DynamoDbPendingPayments {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  /** Every payment in the index, oldest first. */
  async *list(): AsyncIterable<PendingPayment> {
    let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: PendingPaymentIndex.NAME,
          KeyConditionExpression: '#p = :p',
          ExpressionAttributeNames: { '#p': PendingPaymentIndex.PARTITION },
          ExpressionAttributeValues: { ':p': { S: PENDING_PAYMENTS_PARTITION } },
          ExclusiveStartKey,
        }),
      );
      for (const item of page.Items ?? []) {
        const subjectId = item[IdempotencyTable.KEY]?.S;
        const since = Number(item[PendingPaymentIndex.SINCE]?.N);
        if (subjectId && Number.isFinite(since)) yield { subjectId, pendingSince: since };
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  }

  /** Takes a payment out of the index (it stays pending at the bank, past the maximum age). */
  async giveUp(payment: PendingPayment): Promise<void> {
    await this.client
      .send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { [IdempotencyTable.KEY]: { S: payment.subjectId } },
          UpdateExpression: 'REMOVE #p, #s',
          ConditionExpression: '#s = :s',
          ExpressionAttributeNames: { '#p': PendingPaymentIndex.PARTITION, '#s': PendingPaymentIndex.SINCE },
          ExpressionAttributeValues: { ':s': { N: String(payment.pendingSince) } },
        }),
      )
      .catch((error: unknown) => {
        // Written again since it was listed (the processor saw it change): nothing to give up.
        if (!isConditionFailure(error)) throw error;
      });
  }
}
