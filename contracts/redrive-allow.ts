/**
 * The contract between the receiver construct and the registration provider's handler for the
 * dead-letter queue's redrive-allow policy: which queues may use the DLQ as their dead-letter
 * queue. CloudFormation cannot say it (the DLQ would name the queue whose redrive policy names
 * the DLQ: a cycle), so a custom resource sets it once both queues exist.
 */

/** The custom resource's type. */
export const REDRIVE_ALLOW_RESOURCE_TYPE = 'Custom::BankWebhooksRedriveAllowPolicy';

/** Names of the custom resource's properties. */
export const RedriveAllowProperty = {
  /** URL of the dead-letter queue the policy is set on. */
  DEAD_LETTER_QUEUE_URL: 'DeadLetterQueueUrl',
  /** ARN of the one queue allowed to use it. */
  SOURCE_QUEUE_ARN: 'SourceQueueArn',
  /**
   * The dead-letter queue's own settings (its encryption): when CloudFormation updates the
   * queue, this changes too, so the policy is set again after the update.
   */
  DEAD_LETTER_QUEUE_SETTINGS: 'DeadLetterQueueSettings',
} as const;

/** SQS's default, put back when the resource is deleted. */
export const REDRIVE_ALLOW_ALL = JSON.stringify({ redrivePermission: 'allowAll' });
