import type { Construct } from 'constructs';
import { BundledFunction, type BundledFunctionProps } from '../core/bundled-function';

/** The reconciliation handler (`lambda/reconciliation`): the sweep and the registration watch. */
export class SweepFunction extends BundledFunction {
  constructor(scope: Construct, id: string, props: BundledFunctionProps) {
    super(
      scope,
      id,
      {
        bundle: 'reconciliation',
        whyNoDeadLetterQueue:
          'Its schedule invokes it with no retry: a failed run is made up by the next, which reads from the same cursors and look-back, and two failures in a row raise the sweep errors alarm; a dead-letter queue would only hold empty schedule events.',
        whyNoReservedConcurrency:
          "Only its schedule invokes it, once per interval, and a run ends within its timeout; the bank's query rate is paced by the shared pacer, not by concurrency.",
      },
      props,
    );
  }
}
