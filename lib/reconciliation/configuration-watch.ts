import { Aws, Stack, Token, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { ConfigurationWatchDefaults, type ConfigurationWatchSettings } from '../../contracts/configuration-drift';

/**
 * The read actions CloudFormation's drift detection makes, as the caller, for the security-relevant
 * types (contracts/configuration-drift.ts): the `read` handler permissions of their resource
 * schemas, but for `iam:PassRole` and `kms:Decrypt`, which read nothing a detection compares and
 * would let the sweep hand a role to a service or decrypt (a test holds this list to the schemas).
 */
export const DRIFT_READ_ACTIONS: readonly string[] = [
  'events:DescribeEventBus',
  'events:DescribeRule',
  'events:ListTagsForResource',
  'events:ListTargetsByRule',
  'iam:GetRole',
  'iam:GetRolePolicy',
  'iam:ListAttachedRolePolicies',
  'iam:ListRolePolicies',
  'lambda:GetFunction',
  'lambda:GetFunctionCodeSigningConfig',
  'lambda:GetFunctionRecursionConfig',
  'lambda:GetFunctionScalingConfig',
  'lambda:GetPolicy',
  'lambda:GetRuntimeManagementConfig',
  's3:GetAccelerateConfiguration',
  's3:GetAnalyticsConfiguration',
  's3:GetBucketAbac',
  's3:GetBucketCORS',
  's3:GetBucketLogging',
  's3:GetBucketMetadataTableConfiguration',
  's3:GetBucketNotification',
  's3:GetBucketObjectLockConfiguration',
  's3:GetBucketOwnershipControls',
  's3:GetBucketPolicy',
  's3:GetBucketPublicAccessBlock',
  's3:GetBucketTagging',
  's3:GetBucketVersioning',
  's3:GetBucketWebsite',
  's3:GetEncryptionConfiguration',
  's3:GetIntelligentTieringConfiguration',
  's3:GetInventoryConfiguration',
  's3:GetLifecycleConfiguration',
  's3:GetMetricsConfiguration',
  's3:GetReplicationConfiguration',
  's3:ListBucket',
  's3:ListTagsForResource',
  'sqs:GetQueueAttributes',
  'sqs:ListQueueTags',
];

/** The settings of the configuration watch of the stack `scope` is in. */
export function configurationWatchSettings(): ConfigurationWatchSettings {
  return { stackId: Aws.STACK_ID, intervalMinutes: ConfigurationWatchDefaults.intervalMinutes };
}

/**
 * Lets `role` detect drift on its own stack and read what a detection compares: the drift calls on
 * the stack, and {@link DRIFT_READ_ACTIONS} on the account's resources of each service (a detection
 * reads every resource of the stack as its caller; the stack's resources take generated names).
 */
export function allowConfigurationWatch(scope: Construct, role: iam.IRole): void {
  const { account, region, partition } = Stack.of(scope);
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: [
        'cloudformation:DescribeStacks',
        'cloudformation:DetectStackDrift',
        'cloudformation:DetectStackResourceDrift',
        'cloudformation:DescribeStackResourceDrifts',
      ],
      resources: [Aws.STACK_ID],
    }),
  );
  // DescribeStackDriftDetectionStatus names no resource (IAM's service authorization reference).
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({ actions: ['cloudformation:DescribeStackDriftDetectionStatus'], resources: ['*'] }),
  );
  const resources: Record<string, string[]> = {
    events: [`arn:${partition}:events:${region}:${account}:*`],
    iam: [`arn:${partition}:iam::${account}:role/*`],
    lambda: [`arn:${partition}:lambda:${region}:${account}:function:*`],
    s3: [`arn:${partition}:s3:::*`],
    sqs: [`arn:${partition}:sqs:${region}:${account}:*`],
  };
  for (const [service, arns] of Object.entries(resources)) {
    const actions = DRIFT_READ_ACTIONS.filter((action) => action.startsWith(`${service}:`));
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions, resources: arns }));
  }
  const reason =
    "Drift detection reads each of the stack's resources as its caller, and they take generated names: the read actions of the drift-checked types are granted on the account's resources of each service, reads only (no PassRole, no Decrypt). DescribeStackDriftDetectionStatus names no resource.";
  // cdk-nag names a resource as the template has it: a reference as <AWS::...>, a known account or region as itself.
  const named = (value: string, ref: string) => (Token.isUnresolved(value) ? `<${ref}>` : value);
  const [a, r] = [named(account, 'AWS::AccountId'), named(region, 'AWS::Region')];
  for (const finding of [
    'Resource::*',
    `Resource::arn:<AWS::Partition>:events:${r}:${a}:*`,
    `Resource::arn:<AWS::Partition>:iam::${a}:role/*`,
    `Resource::arn:<AWS::Partition>:lambda:${r}:${a}:function:*`,
    'Resource::arn:<AWS::Partition>:s3:::*',
    `Resource::arn:<AWS::Partition>:sqs:${r}:${a}:*`,
  ])
    Validations.of(role).acknowledge({ id: `AwsSolutions::AwsSolutions-IAM5[${finding}]`, reason });
}
