import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

/** Whether a DynamoDB write failed only because its condition did not hold (by class, or by name across SDK copies). */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException || (error as { name?: string } | undefined)?.name === 'ConditionalCheckFailedException';
}
