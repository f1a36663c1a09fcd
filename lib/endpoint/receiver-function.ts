import type { Construct } from 'constructs';
import { BundledFunction, type BundledFunctionProps } from '../core/bundled-function';

/** The receiver handler (`lambda/receiver`): checks the bank's token and stores the request in SQS. */
export class ReceiverFunction extends BundledFunction {
  constructor(scope: Construct, id: string, props: BundledFunctionProps) {
    super(
      scope,
      id,
      {
        bundle: 'receiver',
        whyNoDeadLetterQueue:
          'API Gateway invokes the receiver synchronously, and a dead-letter queue only catches asynchronous invocations: a failure is answered 5xx to the bank, and the reconciliation sweep finds the change the bank then never resends.',
        whyNoReservedConcurrency:
          "The stage's throttling (throttlingRateLimit, throttlingBurstLimit) bounds the receiver; a reserved concurrency below the bank's peak would refuse notifications the bank never resends.",
      },
      props,
    );
  }
}
