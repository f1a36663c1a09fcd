// The configuration probe (integ.configuration.ts): a principal of the account whose own policy
// allows events:*, s3:* and sqs:* on everything tries to change the stack's own configuration, each
// call harmless if it were let through (a rule enabled that is enabled, its targets put back as they
// are, a bus statement that does not exist removed, the journal's versioning, policy and lifecycle
// put back as they are). It answers each call's outcome ("denied" when refused) and the journal's
// Object Lock configuration; asked with phase "drift", the watched resources a drift detection of
// the stack did not check or found drifted.
import {
  CloudFormationClient,
  DescribeStackResourceDriftsCommand,
  DescribeStacksCommand,
  DetectStackDriftCommand,
} from '@aws-sdk/client-cloudformation';
import {
  EnableRuleCommand,
  EventBridgeClient,
  ListTargetsByRuleCommand,
  PutTargetsCommand,
  RemovePermissionCommand,
} from '@aws-sdk/client-eventbridge';
import {
  GetBucketLifecycleConfigurationCommand,
  GetBucketPolicyCommand,
  GetObjectLockConfigurationCommand,
  PutBucketLifecycleConfigurationCommand,
  PutBucketPolicyCommand,
  PutBucketVersioningCommand,
  S3Client,
} from '@aws-sdk/client-s3';

const outcome = async (call) => {
  try {
    await call();
    return 'allowed';
  } catch (error) {
    return /AccessDenied/.test(error.name ?? '') || /not authorized|explicit deny/i.test(error.message ?? '')
      ? 'denied'
      : `error ${error.name}`;
  }
};

export async function handler(event) {
  if (event.phase === 'drift') return drift(event);
  const events = new EventBridgeClient({});
  const s3 = new S3Client({});
  const { Targets: targets = [] } = await events.send(
    new ListTargetsByRuleCommand({ Rule: event.rule, EventBusName: event.bus }),
  );
  const { Policy: policy } = await s3.send(new GetBucketPolicyCommand({ Bucket: event.bucket }));
  const lifecycle = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: event.bucket }));
  const calls = {
    'events:EnableRule': () => events.send(new EnableRuleCommand({ Name: event.rule, EventBusName: event.bus })),
    'events:PutTargets': () =>
      events.send(new PutTargetsCommand({ Rule: event.rule, EventBusName: event.bus, Targets: targets })),
    'events:RemovePermission': () =>
      events.send(
        new RemovePermissionCommand({ EventBusName: event.bus, StatementId: 'cdk-bank-webhooks-probe-none' }),
      ),
    's3:PutBucketVersioning': () =>
      s3.send(new PutBucketVersioningCommand({ Bucket: event.bucket, VersioningConfiguration: { Status: 'Enabled' } })),
    's3:PutBucketPolicy': () => s3.send(new PutBucketPolicyCommand({ Bucket: event.bucket, Policy: policy })),
    's3:PutLifecycleConfiguration': () =>
      s3.send(
        new PutBucketLifecycleConfigurationCommand({
          Bucket: event.bucket,
          LifecycleConfiguration: { Rules: lifecycle.Rules },
        }),
      ),
  };
  const denies = {};
  for (const [action, call] of Object.entries(calls)) denies[action] = await outcome(call);
  const lock = await s3.send(new GetObjectLockConfigurationCommand({ Bucket: event.bucket }));
  return { denies, objectLock: lock.ObjectLockConfiguration };
}

/**
 * The drift phase, asked again until it answers a completed detection: none since the stack's last
 * deploy starts one (or finds one running) and answers in progress; then the watched resources
 * CloudFormation did not check or found drifted.
 */
async function drift(event) {
  const cloudFormation = new CloudFormationClient({});
  const {
    Stacks: [stack],
  } = await cloudFormation.send(new DescribeStacksCommand({ StackName: event.stack }));
  const deployed = (stack.LastUpdatedTime ?? stack.CreationTime).getTime();
  const checked = stack.DriftInformation?.LastCheckTimestamp?.getTime() ?? 0;
  if (checked < deployed) {
    await cloudFormation.send(new DetectStackDriftCommand({ StackName: event.stack })).catch(() => undefined);
    return { detection: 'DETECTION_IN_PROGRESS' };
  }
  const notInSync = [];
  let NextToken;
  do {
    const page = await cloudFormation.send(
      new DescribeStackResourceDriftsCommand({
        StackName: event.stack,
        StackResourceDriftStatusFilters: ['MODIFIED', 'DELETED', 'NOT_CHECKED'],
        NextToken,
      }),
    );
    for (const d of page.StackResourceDrifts ?? [])
      if (event.types.includes(d.ResourceType))
        notInSync.push(`${d.LogicalResourceId} ${d.ResourceType} ${d.StackResourceDriftStatus}`);
    NextToken = page.NextToken;
  } while (NextToken);
  return { detection: 'DETECTION_COMPLETE', notInSync };
}
