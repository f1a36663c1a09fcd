import type { Construct } from 'constructs';
import { BundledFunction, type BundledFunctionProps } from './bundled-function';

/** The deploy-time provider's handler (`lambda/provider`): the bank registrations and the dead-letter queues' redrive-allow policy. */
export class ProviderFunction extends BundledFunction {
  constructor(scope: Construct, id: string, props: BundledFunctionProps) {
    super(
      scope,
      id,
      {
        bundle: 'provider',
        whyNoDeadLetterQueue:
          "CloudFormation's provider framework invokes it synchronously during a deploy; a failure fails the stack operation, which shows the reason.",
        whyNoReservedConcurrency:
          'Only the provider framework invokes it, during deploys, once per custom resource of the stack.',
      },
      props,
    );
  }
}
