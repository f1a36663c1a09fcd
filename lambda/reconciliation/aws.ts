/** The AWS calls the sweep and the watch are given (their cores take them as functions). */
import {
  type CloudFormationClient,
  DescribeStackDriftDetectionStatusCommand,
  DescribeStackResourceDriftsCommand,
  DescribeStacksCommand,
  DetectStackDriftCommand,
} from '@aws-sdk/client-cloudformation';
import { ConfigurationDriftStatus } from '../../contracts/configuration-drift';
import type { ConfigurationWatchCalls, DriftDetection, ResourceDrift } from './configuration-watch';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { isErrorNamed } from '../shared/runtime';
import { SpanKind, startSpan, tracedAttributes } from '../shared/telemetry';

/** Sends look requests to the processor's queue, ten a request (SendMessageBatch's most). */
export function lookRequestSender(
  sqs: SQSClient,
  queueUrl: string,
): (messageBodies: readonly string[]) => Promise<void> {
  return async (messageBodies) => {
    for (let start = 0; start < messageBodies.length; start += 10) {
      // A span for each look sent: the processor's span for it continues from its traceparent.
      const spans = messageBodies.slice(start, start + 10).map(() => startSpan('send look', {}, SpanKind.PRODUCER));
      const entries = messageBodies
        .slice(start, start + 10)
        .map((MessageBody, i) => ({ Id: String(i), MessageBody, ...tracedAttributes(spans[i]) }));
      const result = await sqs
        .send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }))
        .finally(() => spans.forEach((span) => span.end()));
      if (result.Failed?.length) {
        throw new Error(
          `SQS did not take ${result.Failed.length} look request(s): ${result.Failed[0].Code ?? ''} ${result.Failed[0].Message ?? ''}; the next sweep reads them again`,
        );
      }
    }
  };
}

/**
 * The sweep's own stack (DescribeStacks by its ARN, which the construct passes from the
 * AWS::StackId pseudo-parameter): its status (the watch repairs only in a completed one) and its
 * outputs by key (what the stack itself deployed: nobody writes them but a stack update).
 */
export async function describeStack(
  cloudFormation: CloudFormationClient,
  stackId: string,
): Promise<{ status: string; updatedAt: number; outputs: ReadonlyMap<string, string> }> {
  const { Stacks: stacks } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackId }));
  const status = stacks?.[0]?.StackStatus;
  if (!status) throw new Error(`DescribeStacks answered no status for the stack ${stackId}`);
  return {
    status,
    updatedAt: (stacks?.[0]?.LastUpdatedTime ?? stacks?.[0]?.CreationTime)?.getTime() ?? 0,
    outputs: new Map(
      (stacks?.[0]?.Outputs ?? []).flatMap((o) =>
        o.OutputKey && o.OutputValue !== undefined ? [[o.OutputKey, o.OutputValue] as const] : [],
      ),
    ),
  };
}

/** The configuration watch's CloudFormation calls on the stack `stackId`, its DescribeStacks shared with the registration watch's. */
export function configurationWatchCalls(
  cloudFormation: CloudFormationClient,
  stackId: string,
  describe: () => ReturnType<typeof describeStack>,
): ConfigurationWatchCalls {
  return {
    stack: describe,
    detect: async () => {
      const { StackDriftDetectionId: id } = await cloudFormation.send(
        new DetectStackDriftCommand({ StackName: stackId }),
      );
      if (!id) throw new Error(`DetectStackDrift answered no detection id for the stack ${stackId}`);
      return id;
    },
    detection: async (id): Promise<DriftDetection | undefined> => {
      try {
        const answer = await cloudFormation.send(
          new DescribeStackDriftDetectionStatusCommand({ StackDriftDetectionId: id }),
        );
        return {
          stackId: answer.StackId ?? '',
          status: answer.DetectionStatus ?? '',
          reason: answer.DetectionStatusReason,
          at: answer.Timestamp?.getTime() ?? 0,
        };
      } catch (error) {
        // An id CloudFormation does not know (expired, or never ours): a new detection is started.
        if (isErrorNamed(error, 'ValidationError')) return undefined;
        throw error;
      }
    },
    drifts: async () => {
      const drifts: ResourceDrift[] = [];
      let NextToken: string | undefined;
      do {
        const page = await cloudFormation.send(
          new DescribeStackResourceDriftsCommand({
            StackName: stackId,
            StackResourceDriftStatusFilters: Object.values(ConfigurationDriftStatus),
            NextToken,
          }),
        );
        for (const d of page.StackResourceDrifts ?? [])
          drifts.push({
            logicalId: d.LogicalResourceId ?? '',
            type: d.ResourceType ?? '',
            status: d.StackResourceDriftStatus ?? '',
            properties: (d.PropertyDifferences ?? []).map((p) => p.PropertyPath ?? ''),
            at: d.Timestamp?.getTime() ?? 0,
          });
        NextToken = page.NextToken;
      } while (NextToken);
      return drifts;
    },
  };
}
