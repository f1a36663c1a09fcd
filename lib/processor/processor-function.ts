import type { Construct } from 'constructs';
import { BundledFunction, type BundledFunctionProps } from '../core/bundled-function';

/** The processor handler (`lambda/processor`): verifies stored notifications with the bank and publishes verified events. */
export class ProcessorFunction extends BundledFunction {
  constructor(scope: Construct, id: string, props: BundledFunctionProps) {
    super(
      scope,
      id,
      {
        bundle: 'processor',
        whyNoDeadLetterQueue:
          "Its SQS event source invokes it synchronously: a notification it cannot verify goes to the queue's own dead-letter queue (maxReceiveCount, and quarantine), which is alarmed.",
        whyNoReservedConcurrency:
          "The event source's maxConcurrency bounds it, with the queue holding the backlog; reserved concurrency on an SQS-triggered function makes throttled batches be received again and reach the dead-letter queue, which AWS advises against.",
      },
      props,
    );
  }
}
