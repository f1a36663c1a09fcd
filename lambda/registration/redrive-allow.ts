import { SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { REDRIVE_ALLOW_ALL, RedriveAllowProperty } from '../../contracts/redrive-allow';
import type { Log } from '../shared/runtime';
import type { CustomResourceEvent, CustomResourceResult } from './lifecycle';

/** The SQS calls the lifecycle makes. */
export interface QueueAttributesClient {
  send(command: SetQueueAttributesCommand): Promise<unknown>;
}

function property(event: CustomResourceEvent, name: string, pattern: RegExp): string {
  const value = event.ResourceProperties[name];
  if (typeof value !== 'string' || !pattern.test(value)) {
    throw new Error(`Custom resource property ${name} must be ${name.endsWith('Url') ? 'an SQS queue URL' : 'an SQS queue ARN'}, got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * Create and Update allow only the source queue to use the dead-letter queue (set again on
 * every update, so a queue update that reset it is corrected); Delete puts back SQS's default,
 * and is done when the queue is already gone. The physical ID is the dead-letter queue's URL.
 */
export async function redriveAllowLifecycle(event: CustomResourceEvent, sqs: QueueAttributesClient, log: Log): Promise<CustomResourceResult> {
  const queueUrl = property(event, RedriveAllowProperty.DEAD_LETTER_QUEUE_URL, /^https?:\/\/\S+$/);
  if (event.RequestType === 'Delete') {
    try {
      await sqs.send(new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { RedriveAllowPolicy: REDRIVE_ALLOW_ALL } }));
      log.info('Dead-letter queue open to any source queue again (SQS default)', { queueUrl });
    } catch (error) {
      if (!isQueueGone(error)) throw error;
      log.info('Dead-letter queue already deleted', { queueUrl });
    }
    return { PhysicalResourceId: event.PhysicalResourceId ?? queueUrl };
  }
  const sourceQueueArn = property(event, RedriveAllowProperty.SOURCE_QUEUE_ARN, /^arn:aws[a-z-]*:sqs:[a-z0-9-]+:\d{12}:\S+$/);
  await sqs.send(new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { RedriveAllowPolicy: redriveAllowOnly(sourceQueueArn) } }));
  log.info('Dead-letter queue allows only its source queue', { queueUrl, sourceQueueArn });
  return { PhysicalResourceId: queueUrl };
}

function isQueueGone(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name ?? '';
  return name === 'QueueDoesNotExist' || name === 'AWS.SimpleQueueService.NonExistentQueue';
}

/** The `RedriveAllowPolicy` attribute allowing only `sourceQueueArn`. */
export function redriveAllowOnly(sourceQueueArn: string): string {
  return JSON.stringify({ redrivePermission: 'byQueue', sourceQueueArns: [sourceQueueArn] });
}

