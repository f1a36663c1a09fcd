/** The local runner's options and what it reports (counts, checkpoints, quarantined messages), and how a rule's target is handed an event. */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { App, Stack } from 'aws-cdk-lib';
import type { RecordedEvent } from '../local-aws/eventbridge-server';
import { LOCAL_AWS } from '../local-aws/local-env';
import type { MetricDatapoint } from './alarms';
import type { BankSimulatorOptions } from '../../simulator/simulator';
import type { LocalEventBridge } from '../local-aws/eventbridge-server';
import type { OtlpCollector } from '../local-aws/otlp-collector';
import { WorkerEnv } from '../local-aws/lambda-worker-protocol';
import { ADOT_ENV } from '../../lib/core/open-telemetry-layers';

/** The name of the stack the runner synthesizes. */
export const LOCAL_STACK_ID = 'BankWebhooksLocal';

export interface LocalRunnerOptions {
  /**
   * Builds the stack to run inside `app`, whose context points the bank settings at the simulator
   * (RUNNER_CONTEXT_KEYS). The stack must hold exactly one BankWebhookReceiver.
   * @default LocalReceiverStack (local-stack.ts): a receiver as the basic example deploys it
   */
  readonly stack?: (app: App, id: string) => Stack;
  /** Options of the bank simulator (faults in force from the start, delivery deadline…); with `sandbox`, only its accounts count. @default a simulator with the sample account */
  readonly simulator?: Omit<BankSimulatorOptions, 'trustedCas'>;
  /**
   * Run the bank as a deployed BankSandbox: its bundle in two local environments behind a local
   * function URL, its state in dynalite, its control API by invoking it (no mutual TLS). @default false: the in-process simulator
   */
  readonly sandbox?: boolean;
  /**
   * A team's own consumer: a module (TypeScript or JavaScript) whose export receives every
   * verified event in the shape EventBridge gives a Lambda target, in its own process.
   * @default none
   */
  readonly consumer?: { readonly entry: string; readonly exportName?: string };
  /**
   * The logical ID (or its prefix, such as the rule's construct path) of an `AWS::Events::Rule` in
   * the template whose target the consumer stands for: the consumer then gets only the events
   * that rule's event pattern matches, as EventBridge would deliver them.
   * @default every event on the bus
   */
  readonly consumerRule?: string;
  /**
   * The visibility timeout of the consumer's own queue (a rule made with `consumer`) in place of
   * the template's, so that a message the consumer failed comes back sooner in tests.
   * @default the template's
   */
  readonly consumerVisibilityTimeoutSeconds?: number;
  /**
   * An EventBridge stand-in already started and shared with other runners (several receivers
   * publishing to one bus); the runner neither starts nor stops it.
   * @default a bus of the runner's own
   */
  readonly eventBridge?: LocalEventBridge;
  /**
   * The stack's name (its receiver's metrics are named after it by default).
   * @default LOCAL_STACK_ID
   */
  readonly stackName?: string;
  /**
   * The metric datapoints CloudWatch keeps for the account and region, shared with other
   * runners (several receivers in one account): each runner adds its functions' datapoints and
   * evaluates its own alarms over all of them, as CloudWatch would.
   * @default datapoints of the runner's own
   */
  readonly metrics?: MetricDatapoint[];
  /** Where the functions' log files go. @default a new temporary folder, removed by stop() */
  readonly logDir?: string;
  /** Pollers feeding the processor. @default the mapping's maximum concurrency, else 2 */
  readonly pollers?: number;
  /** Told of every line a function writes. */
  readonly onLog?: (functionName: string, line: string) => void;
  /**
   * The queue's visibility timeout in place of the template's, so that retried messages come back
   * sooner in tests. It must exceed the processor's timeout (an IN_PROGRESS idempotency record of
   * a crashed invocation lasts that long).
   * @default the template's
   */
  readonly visibilityTimeoutSeconds?: number;
  /**
   * Leave quarantined messages in the dead-letter queues for an operator (`npm run local`): settle()
   * does not drain them into `quarantined`, so `status` and `dlq list` see them.
   * @default false (the demo and the tests read them back)
   */
  readonly keepQuarantine?: boolean;
  /**
   * Rules of the template whose SQS target the runner delivers to, by the rule's construct id
   * (such as `BoletoSettledRule`): matched events, and a replay naming the rule, become messages in
   * its queue. The rules and the bus's archive are then known to the local EventBridge (ListRules,
   * DescribeArchive, StartReplay), as the operator CLI's `replay` reads them.
   * @default none
   */
  readonly queueRules?: readonly string[];
  /**
   * A collector (started by the caller: an `OtlpCollector`, or `{ tracesUrl }` of any OTLP/HTTP
   * JSON traces endpoint on 127.0.0.1) that the traced functions send their spans to: those the
   * template gives AWS's OpenTelemetry layer (`tracing: TracingMode.OPENTELEMETRY`), and the
   * consumer, as if you had given it the layer too (docs/tracing.md, "Seeing a trace locally").
   * @default spans are not collected
   */
  readonly traces?: Pick<OtlpCollector, 'tracesUrl'>;
}

/** Where a scenario starts in the runner's records (see `checkpoint()` and `audit()`). */
export interface RunnerCheckpoint {
  readonly exchanges: number;
  readonly events: number;
  readonly quarantined: number;
}

/** A message the processor quarantined, as read back from the dead-letter queue. */
export interface QuarantinedMessage {
  readonly messageId: string;
  readonly reason?: string;
  readonly body: string;
}

/** Counts of what the runner saw; the demo's progress line and summary come from here. */
export interface RunnerCounts {
  readonly answered: Readonly<Record<number, number>>;
  readonly enqueuedMessages: number;
  readonly processorInvocations: number;
  readonly processorInvocationErrors: number;
  readonly verifiedEvents: number;
  readonly quarantined: number;
  readonly consumerInvocations: number;
  readonly consumerErrors: number;
  /** Sums of the processor's and receiver's own metrics (their embedded-metric-format log lines). */
  readonly metrics: Readonly<Record<string, number>>;
}

/** An event as EventBridge hands it to a target (a Lambda function's payload, an SQS message's body). */
export function delivered(event: RecordedEvent): Record<string, unknown> {
  return {
    version: '0',
    id: event.id,
    'detail-type': event.detailType,
    source: event.source,
    account: LOCAL_AWS.accountId,
    time: event.time ?? new Date().toISOString(),
    region: LOCAL_AWS.region,
    resources: [],
    detail: event.detail,
    ...(event.replayName ? { 'replay-name': event.replayName } : {}),
  };
}

/** A rule's SQS target: the event, as EventBridge delivers it, becomes a message in the queue (a failure is logged, as EventBridge would retry it). */
export function sendToQueue(
  sqs: SQSClient,
  queueUrl: string,
  event: RecordedEvent,
  rule: string,
  log: (name: string, line: string) => void,
): Promise<void> {
  return sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(delivered(event)) })).then(
    () => undefined,
    (error: unknown) => log('eventbridge', `${rule}: SendMessage failed: ${(error as Error).message}`),
  );
}

/** Sums the counts of embedded-metric-format lines (Powertools Metrics) by metric name. */
export function addMetricLine(line: string, sums: Record<string, number>): void {
  if (!line.startsWith('{') || !line.includes('"_aws"')) return;
  try {
    const parsed = JSON.parse(line) as Record<string, unknown> & {
      _aws?: { CloudWatchMetrics?: Array<{ Metrics?: Array<{ Name: string }> }> };
    };
    for (const directive of parsed._aws?.CloudWatchMetrics ?? []) {
      for (const { Name } of directive.Metrics ?? []) {
        const value = parsed[Name];
        const values = Array.isArray(value) ? value : [value];
        sums[Name] =
          (sums[Name] ?? 0) + values.reduce((total: number, v) => total + (typeof v === 'number' ? v : 0), 0);
      }
    }
  } catch {
    // not a metric line
  }
}

/**
 * What a local function's environment gets when the runner collects spans: the collector's URL
 * (the worker's stand-in for AWS's layer sends there, for a function the template gives the
 * layer's wrapper) and, for the consumer, the wrapper too.
 */
export function tracedEnvironment(options: LocalRunnerOptions, consumer?: 'consumer'): Record<string, string> {
  if (!options.traces) return {};
  return {
    [WorkerEnv.OTLP_TRACES_URL]: options.traces.tracesUrl,
    ...(consumer ? { [ADOT_ENV.wrapper[0]]: ADOT_ENV.wrapper[1] } : {}),
  };
}
