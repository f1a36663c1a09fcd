import { isErrorNamed } from '../shared/runtime';

/** Whether a DynamoDB write failed only because its condition did not hold. */
export function isConditionFailure(error: unknown): boolean {
  return isErrorNamed(error, 'ConditionalCheckFailedException');
}
