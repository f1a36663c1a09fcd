import { CustomResource, Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { REDRIVE_ALLOW_RESOURCE_TYPE, RedriveAllowProperty } from '../../contracts/redrive-allow';
import { RegistrationDefaults } from '../../contracts/registration';
import { QueueSenders } from './queue-senders';
import { RegistrationProvider, type RegistrationProviderSettings } from './registration-provider';

/** What {@link allowOnlySourceQueue} works on. */
export interface RedriveAllowOptions {
  readonly deadLetterQueue: sqs.IQueue;
  readonly sourceQueue: sqs.IQueue;
  /** The dead-letter queue's encryption key, if any: changing it updates the queue, and the policy is set again after. */
  readonly deadLetterQueueKey?: kms.IKey;
  /** How the stack's provider is made (it may be made here first). */
  readonly provider: RegistrationProviderSettings;
}

/**
 * A `RedriveAllowPolicy` on the dead-letter queue allowing only `sourceQueue` to use it, set by
 * the stack's provider once both queues exist (CloudFormation cannot: each queue would name the
 * other), and put back to SQS's default when removed.
 */
export function allowOnlySourceQueue(scope: Construct, id: string, options: RedriveAllowOptions): CustomResource {
  const provider = RegistrationProvider.of(scope, options.provider);
  provider.handler.addToRolePolicy(
    new iam.PolicyStatement({ actions: ['sqs:SetQueueAttributes'], resources: [options.deadLetterQueue.queueArn] }),
  );
  QueueSenders.of(options.deadLetterQueue)?.addConfigurer(provider.handler.role!);
  return new CustomResource(scope, id, {
    serviceToken: provider.serviceToken,
    resourceType: REDRIVE_ALLOW_RESOURCE_TYPE,
    properties: {
      [RedriveAllowProperty.DEAD_LETTER_QUEUE_URL]: options.deadLetterQueue.queueUrl,
      [RedriveAllowProperty.SOURCE_QUEUE_ARN]: options.sourceQueue.queueArn,
      [RedriveAllowProperty.DEAD_LETTER_QUEUE_SETTINGS]: options.deadLetterQueueKey?.keyArn ?? 'SSE-SQS',
    },
    serviceTimeout: Duration.seconds(RegistrationDefaults.serviceTimeoutSeconds),
  });
}
