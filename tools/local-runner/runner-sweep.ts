/**
 * The reconciliation sweep, locally: its function invoked by name as the operator CLI's `sweep`
 * does, on its schedule as EventBridge Scheduler would (a run never overlapping the one before),
 * and its Track Payment rule delivering to the processor's look queue.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SweepResult } from '../../contracts/reconciliation';
import type { LocalEventBridge } from '../local-aws/eventbridge-server';
import { matchesEventPattern } from '../local-aws/event-pattern';
import type { LocalLambda } from '../local-aws/lambda-server';
import { LOCAL_AWS } from '../local-aws/local-env';
import type { LocalFunction } from '../local-aws/local-function';
import { sendToQueue } from './runner-types';
import type { LocalResolver } from './local-resolver';
import type { ReceiverDeployment } from './template';

/** What the sweep runs beside. */
export interface SweepSurroundings {
  readonly reconciliation: NonNullable<ReceiverDeployment['reconciliation']>;
  readonly lambda: LocalLambda;
  readonly events: LocalEventBridge;
  readonly resolver: LocalResolver;
  readonly sqs: SQSClient;
  /** The processor's look queue, the Track Payment rule's target. */
  readonly lookQueueUrl: string;
  readonly log: (name: string, line: string) => void;
}

/** The sweep's function and its schedule. */
export class LocalSweep {
  private running?: Promise<SweepResult | undefined>;
  private timer?: NodeJS.Timeout;

  constructor(
    readonly fn: LocalFunction,
    private readonly around: SweepSurroundings,
  ) {
    // The operator CLI's `sweep` invokes it by name (its logical id locally), as the schedule would.
    around.lambda.serve(around.reconciliation.sweep.logicalId, (payload) => this.invoke(payload));
    const rule = around.reconciliation.trackPaymentRule;
    if (rule) {
      // The rule's SQS target: the event, as EventBridge delivers it, becomes a message in the queue.
      const pattern = around.resolver.rulePattern(rule);
      around.events.subscribe((event) => {
        if (
          !matchesEventPattern(pattern, { source: event.source, 'detail-type': event.detailType, detail: event.detail })
        )
          return;
        void sendToQueue(around.sqs, around.lookQueueUrl, event, 'Track Payment rule', around.log);
      });
    }
  }

  /** Runs the sweep once as its schedule would at `at` (after a run in progress ends); answers its report. */
  run(at = new Date()): Promise<SweepResult> {
    return this.invoke({
      version: '0',
      id: `sweep-${Date.now()}`,
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: LOCAL_AWS.accountId,
      time: at.toISOString(),
      region: LOCAL_AWS.region,
      resources: [],
      detail: {},
    });
  }

  /** Runs the sweep every `intervalMs`, a run never overlapping the one before, until stopSchedules(). */
  startSchedules(intervalMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.run().catch((error: unknown) =>
        this.around.log('reconciliation', `scheduled sweep failed: ${(error as Error).message}`),
      );
    }, intervalMs);
  }

  stopSchedules(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Stops the schedule and waits for a run in progress. */
  async stop(): Promise<void> {
    this.stopSchedules();
    await this.running?.catch(() => undefined);
  }

  private async invoke<T = SweepResult>(payload: unknown): Promise<T> {
    await this.running?.catch(() => undefined);
    const run = this.fn.invoke<T>(payload);
    this.running = run as Promise<SweepResult | undefined>;
    return run;
  }
}
