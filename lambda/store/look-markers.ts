/**
 * Look markers: one item per subject with a look in flight (queued, deferred or being processed),
 * naming the look that holds it and until when. The sweep takes one before it sends a pending
 * payment's look, the processor before it asks the bank about a Track Payment; a look that finds
 * the marker held by another is not sent (or not started). The expiry is checked in the write's
 * condition, never left to DynamoDB's TTL (which deletes late, days late at worst).
 */
import { type DynamoDBClient, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { isConditionFailure } from './conditions';
import { IdempotencyTable } from '../../contracts/processor';

export interface LookMarkers {
  /**
   * Takes the subject's marker for `owner` until `until` (epoch ms), when no look holds it, the
   * look that held it expired (by `now`), or `owner` holds it already; false when another holds it.
   */
  claim(subjectId: string, owner: string, until: number, now: number): Promise<boolean>;
  /** Frees the subject's marker, if `owner` still holds it. */
  release(subjectId: string, owner: string): Promise<void>;
}

/** The marker's key: beside the subject's record, never one (a record's key is `boleto:` or `payment:`). */
export function lookMarkerKey(subjectId: string): string {
  return `look-marker:${subjectId}`;
}

/** Markers removed by DynamoDB's TTL this long after they expired (only to keep the table clean). */
const CLEANUP_AFTER_SECONDS = 86_400;

export class DynamoDbLookMarkers implements LookMarkers {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async claim(subjectId: string, owner: string, until: number, now: number): Promise<boolean> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            [IdempotencyTable.KEY]: { S: lookMarkerKey(subjectId) },
            owner: { S: owner },
            until: { N: String(until) },
            [IdempotencyTable.TTL]: { N: String(Math.ceil(until / 1000) + CLEANUP_AFTER_SECONDS) },
          },
          ConditionExpression: 'attribute_not_exists(#k) OR #o = :owner OR #u < :now',
          ExpressionAttributeNames: { '#k': IdempotencyTable.KEY, '#o': 'owner', '#u': 'until' },
          ExpressionAttributeValues: { ':owner': { S: owner }, ':now': { N: String(now) } },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async release(subjectId: string, owner: string): Promise<void> {
    try {
      // Expired rather than deleted: the processor and the sweep never delete from the table (its TTL removes the item).
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { [IdempotencyTable.KEY]: { S: lookMarkerKey(subjectId) } },
          UpdateExpression: 'SET #u = :zero',
          ConditionExpression: '#o = :owner',
          ExpressionAttributeNames: { '#o': 'owner', '#u': 'until' },
          ExpressionAttributeValues: { ':owner': { S: owner }, ':zero': { N: '0' } },
        }),
      );
    } catch (error) {
      // Another look holds it now (this one's expired): it is theirs to release.
      if (!isConditionFailure(error)) throw error;
    }
  }
}
