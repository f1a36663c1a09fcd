/** The AWS calls the sweep and the watch are given (their cores take them as functions). */
import { type CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
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
): Promise<{ status: string; outputs: ReadonlyMap<string, string> }> {
  const { Stacks: stacks } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackId }));
  const status = stacks?.[0]?.StackStatus;
  if (!status) throw new Error(`DescribeStacks answered no status for the stack ${stackId}`);
  return {
    status,
    outputs: new Map(
      (stacks?.[0]?.Outputs ?? []).flatMap((o) =>
        o.OutputKey && o.OutputValue !== undefined ? [[o.OutputKey, o.OutputValue] as const] : [],
      ),
    ),
  };
}
