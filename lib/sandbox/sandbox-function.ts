import type { Construct } from 'constructs';
import { BundledFunction, type BundledFunctionProps } from '../core/bundled-function';

/** The deployed bank simulator's handler (`lambda/sandbox`): the bank's API, the control API and the credentials resource. */
export class SandboxFunction extends BundledFunction {
  constructor(scope: Construct, id: string, props: BundledFunctionProps) {
    super(
      scope,
      id,
      {
        bundle: 'sandbox',
        whyNoDeadLetterQueue:
          "Its function URL, Lambda Invoke of the control API and CloudFormation's custom resource all invoke it synchronously: a failure is answered to the caller, and a dead-letter queue only catches asynchronous invocations.",
        whyNoReservedConcurrency:
          'A sandbox serves one staging receiver and its tests; its state is one DynamoDB item written over its version, so concurrent invocations cannot lose a change.',
      },
      props,
    );
  }
}
