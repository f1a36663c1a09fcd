/**
 * A team's consumer as the local runner runs it: a module in a process of its own, given every
 * verified event its rule matches, either straight from the bus (a Lambda target) or through the
 * rule's SQS target and the function's event source mapping, as the template wires them.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { LocalEventBridge, RecordedEvent } from '../local-aws/eventbridge-server';
import { matchesEventPattern } from '../local-aws/event-pattern';
import { createQueueWithDlq } from '../local-aws/fauxqs';
import { LOCAL_AWS } from '../local-aws/local-env';
import { LocalFunction } from '../local-aws/local-function';
import { SqsEventSource } from '../local-aws/sqs-event-source';
import type { LocalResolver } from './local-resolver';
import { delivered, type LocalRunnerOptions, sendToQueue } from './runner-types';
import {
  type CloudFormationTemplate,
  describeQueueConsumer,
  type QueueConsumerDescription,
  ruleLogicalId,
  settingsIn,
} from './template';
import { BANK_CONNECTION_ENV, type BankConnectionSettings } from '../../contracts/bank-connection';
import { PROCESSOR_SETTINGS_ENV, type ProcessorSettings } from '../../contracts/processor';

/**
 * What the shipped consumer checks each event against (examples/local-consumer/consumer.ts): the
 * receiver's `source` and account (`cooperativa/posto`), from the processor's environment.
 */
export function consumerExpectations(processorEnvironment: unknown): Record<string, string> {
  const environment = processorEnvironment as Record<string, unknown>;
  const { eventSource } = settingsIn<ProcessorSettings>(environment, PROCESSOR_SETTINGS_ENV);
  const { account } = settingsIn<BankConnectionSettings>(environment, BANK_CONNECTION_ENV);
  return {
    BANK_WEBHOOKS_EVENT_SOURCE: eventSource,
    BANK_WEBHOOKS_ACCOUNT: `${account.cooperativa}/${account.posto}`,
  };
}

/** A function's time to handle one delivery, locally. */
const CONSUMER_TIMEOUT_MS = 30_000;

/** What the consumer runs beside: the stand-ins it reads from and where it logs. */
export interface ConsumerSurroundings {
  readonly template: CloudFormationTemplate;
  readonly resolver: LocalResolver;
  readonly sqs: SQSClient;
  readonly events: LocalEventBridge;
  /** The environment the consumer's process gets. */
  readonly environment: Record<string, string>;
  /** Writes one line of a process's log (`consumer`, or `eventbridge` for a failed SQS target). */
  readonly log: (name: string, line: string) => void;
}

/** The consumer, its rule's queue when the rule targets one, and what it was given. */
export class LocalConsumer {
  /**
   * Starts the consumer of `options.consumer` on the events of `options.consumerRule` (every event
   * without one); a rule whose target is a queue gets that queue and its dead-letter queue made.
   */
  static async start(
    options: LocalRunnerOptions & Required<Pick<LocalRunnerOptions, 'consumer'>>,
    around: ConsumerSurroundings,
  ): Promise<LocalConsumer> {
    const described = options.consumerRule
      ? describeQueueConsumer(around.template, ruleLogicalId(around.template, options.consumerRule))
      : undefined;
    let queue: { queueUrl: string; dlqUrl: string } | undefined;
    if (described) {
      const q = described.queue;
      queue = await createQueueWithDlq(
        around.sqs,
        q.logicalId,
        q.maxReceiveCount,
        options.consumerVisibilityTimeoutSeconds ?? q.visibilityTimeoutSeconds,
        q.deadLetterQueue,
      );
    }
    return new LocalConsumer(options, around, described, queue);
  }

  /** The consumer's process. */
  readonly fn: LocalFunction;
  /** The rule's target queue and its dead-letter queue, when the rule targets a queue. */
  readonly queueUrl?: string;
  readonly dlqUrl?: string;
  /** Invocations of the consumer, and those that failed. */
  invocations = 0;
  errors = 0;
  private readonly calls: Array<Promise<void>> = [];
  private readonly source?: SqsEventSource;

  private constructor(
    options: LocalRunnerOptions & Required<Pick<LocalRunnerOptions, 'consumer'>>,
    private readonly around: ConsumerSurroundings,
    described: QueueConsumerDescription | undefined,
    queue: { queueUrl: string; dlqUrl: string } | undefined,
  ) {
    this.queueUrl = queue?.queueUrl;
    this.dlqUrl = queue?.dlqUrl;
    this.fn = new LocalFunction({
      name: 'consumer',
      entry: options.consumer.entry,
      exportName: options.consumer.exportName,
      environment: around.environment,
      timeoutMs: CONSUMER_TIMEOUT_MS,
      onLog: (line) => around.log('consumer', line),
    });
    const pattern = options.consumerRule ? around.resolver.rulePattern(options.consumerRule) : undefined;
    around.events.subscribe((event) => {
      if (
        pattern &&
        !matchesEventPattern(pattern, { source: event.source, 'detail-type': event.detailType, detail: event.detail })
      )
        return;
      if (this.queueUrl) this.calls.push(sendToQueue(around.sqs, this.queueUrl, event, 'consumer rule', around.log));
      else this.deliver(event);
    });
    if (this.queueUrl && described) this.source = this.mapping(this.queueUrl, described);
  }

  /** Waits for every delivery made so far. */
  async settled(): Promise<void> {
    await Promise.all(this.calls);
  }

  /** Stops the event source mapping's pollers, then the process. */
  async stop(): Promise<void> {
    await this.source?.stop();
    await this.fn.stop();
  }

  /** The function's event source mapping on the rule's queue, as the template wires it. */
  private mapping(queueUrl: string, described: QueueConsumerDescription): SqsEventSource {
    const source = new SqsEventSource({
      sqs: this.around.sqs,
      queueUrl,
      queueArn: `arn:aws:sqs:${LOCAL_AWS.region}:${LOCAL_AWS.accountId}:${described.queue.logicalId}`,
      handler: async (sqsEvent: SQSEvent) => {
        this.invocations++;
        try {
          return await this.fn.invoke<SQSBatchResponse>(sqsEvent);
        } catch (error) {
          this.failed(error);
          throw error;
        }
      },
      batchSize: described.eventSource.batchSize,
      reportBatchItemFailures: described.eventSource.reportBatchItemFailures,
      functionTimeoutMs: CONSUMER_TIMEOUT_MS,
      functionName: 'consumer',
      region: LOCAL_AWS.region,
    });
    source.start(1);
    return source;
  }

  /** A Lambda target: the event as EventBridge gives it to the function. */
  private deliver(event: RecordedEvent): void {
    this.invocations++;
    this.calls.push(
      this.fn.invoke(delivered(event)).then(
        () => undefined,
        (error: unknown) => this.failed(error),
      ),
    );
  }

  private failed(error: unknown): void {
    this.errors++;
    this.around.log('consumer', `consumer failed: ${(error as Error).message}`);
  }
}
