import { SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { REDRIVE_ALLOW_ALL, RedriveAllowProperty } from '../../contracts/redrive-allow';
import { isErrorNamed, type Log } from '../shared/runtime';
import type { CustomResourceEvent, CustomResourceResult } from './lifecycle';
import { readRedriveAllowProperties } from './settings';

/** The SQS calls the lifecycle makes. */
export interface QueueAttributesClient {
  send(command: SetQueueAttributesCommand): Promise<unknown>;
}

/**
 * Create and Update allow only the source queue to use the dead-letter queue (set again on
 * every update, so a queue update that reset it is corrected); Delete puts back SQS's default,
 * and is done when the queue is already gone. The physical ID is the dead-letter queue's URL.
 */
export async function redriveAllowLifecycle(
  event: CustomResourceEvent,
  sqs: QueueAttributesClient,
  log: Log,
): Promise<CustomResourceResult> {
  const properties = readRedriveAllowProperties(event.ResourceProperties, event.RequestType === 'Delete');
  const queueUrl = properties[RedriveAllowProperty.DEAD_LETTER_QUEUE_URL];
  if (event.RequestType === 'Delete') {
    try {
      await sqs.send(
        new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { RedriveAllowPolicy: REDRIVE_ALLOW_ALL } }),
      );
      log.info('Dead-letter queue open to any source queue again (SQS default)', { queueUrl });
    } catch (error) {
      if (!isQueueGone(error)) throw error;
      log.info('Dead-letter queue already deleted', { queueUrl });
    }
    return { PhysicalResourceId: event.PhysicalResourceId ?? queueUrl };
  }
  const sourceQueueArn = properties[RedriveAllowProperty.SOURCE_QUEUE_ARN];
  await sqs.send(
    new SetQueueAttributesCommand({
      QueueUrl: queueUrl,
      Attributes: { RedriveAllowPolicy: redriveAllowOnly(sourceQueueArn) },
    }),
  );
  log.info('Dead-letter queue allows only its source queue', { queueUrl, sourceQueueArn });
  return { PhysicalResourceId: queueUrl };
}

function isQueueGone(error: unknown): boolean {
  return isErrorNamed(error, 'QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue');
}

/** The `RedriveAllowPolicy` attribute allowing only `sourceQueueArn`. */
export function redriveAllowOnly(sourceQueueArn: string): string {
  return JSON.stringify({ redrivePermission: 'byQueue', sourceQueueArns: [sourceQueueArn] });
}
