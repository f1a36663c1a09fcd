/** The AWS calls the sweep and the watch are given (their cores take them as functions). */
import { DescribeRuleCommand, type EventBridgeClient, ResourceNotFoundException } from '@aws-sdk/client-eventbridge';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** Sends look requests to the processor's queue, ten a request (SendMessageBatch's most). */
export function lookRequestSender(sqs: SQSClient, queueUrl: string): (messageBodies: readonly string[]) => Promise<void> {
  return async (messageBodies) => {
    for (let start = 0; start < messageBodies.length; start += 10) {
      const entries = messageBodies.slice(start, start + 10).map((MessageBody, i) => ({ Id: String(i), MessageBody }));
      const result = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
      if (result.Failed?.length) {
        throw new Error(`SQS did not take ${result.Failed.length} look request(s): ${result.Failed[0].Code ?? ''} ${result.Failed[0].Message ?? ''}; the next sweep reads them again`);
      }
    }
  };
}

/**
 * A repair is wanted only while the stack is steady: its schedule rule exists (CloudFormation
 * deletes it before the registrations) and is enabled (an update or an operator can disable it).
 */
export async function scheduleRuleEnabled(eventBridge: EventBridgeClient, ruleName: string): Promise<boolean> {
  try {
    const rule = await eventBridge.send(new DescribeRuleCommand({ Name: ruleName }));
    return rule.State === 'ENABLED';
  } catch (error) {
    if (error instanceof ResourceNotFoundException || (error as { name?: string }).name === 'ResourceNotFoundException') return false;
    throw error;
  }
}
