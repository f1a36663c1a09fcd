/**
 * Integ test of the stack's own configuration (docs/security.md, "The stack's own configuration"):
 * what only an account can settle. The basic example as a PRODUCTION receiver that registers
 * nothing and sweeps nothing (so it talks to no bank), its journal kept (RETAIN), hence locked by
 * default. Deploy it in an account (docs/development.md, "Integ tests in an account"):
 *
 *   npx cdk deploy --all --app "npx tsx test/integ/integ.configuration.ts" --require-approval never
 *
 * The assertions stack invokes a probe whose role allows `events:*`, `s3:*` and `sqs:*` on
 * everything (the broad grant docs/security.md names) and reads everything (ReadOnlyAccess), and
 * expects: each change to the consumer rule, the bus policy and the journal's versioning, policy
 * and lifecycle refused by the same-account denies (each call harmless had it been let through);
 * the journal's Object Lock on, GOVERNANCE for the journal's retention; and a drift detection that
 * checks every resource of the watched types and finds them in sync. integ-runner's update
 * workflow deploys the committed snapshot first, then this one: run across a release, the lock is
 * then turned on in place. Until run, each is marked unverified in the docs. The journal is
 * retained on destroy (empty: the probe writes nothing); remove it by hand.
 */
import { join } from 'node:path';
import { App, Duration } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { ExpectedResult, IntegTest, Match } from '@aws-cdk/integ-tests-alpha';
import { CONFIGURATION_DRIFT_TYPES } from '../../contracts/configuration-drift';
import { JournalDefaults } from '../../contracts/record';
import { BankWebhooksExampleStack } from '../../examples/basic-receiver/app';
import { BankStage } from '../../lib';
import {
  BUS_POLICY_ACTIONS,
  JOURNAL_CONFIGURATION_ACTIONS,
  RULE_CHANGE_ACTIONS,
} from '../../lib/core/configuration-guard';

/** The calls the probe makes (each harmless if let through), all of which the denies must refuse. */
export const PROBED_ACTIONS = [
  'events:EnableRule',
  'events:PutTargets',
  'events:RemovePermission',
  's3:PutBucketVersioning',
  's3:PutBucketPolicy',
  's3:PutLifecycleConfiguration',
];

export function buildConfigurationInteg(app: App = new App()): App {
  app.node.setContext('@aws-cdk/core:defaultCrossStackReferences', 'strong');
  const stack = new BankWebhooksExampleStack(app, 'BankWebhooksIntegConfiguration', {
    receiver: {
      stage: BankStage.PRODUCTION,
      paymentRegistration: undefined,
      boletoContracts: undefined,
      reconciliation: { enabled: false },
      createApiGatewayCloudWatchRole: app.node.tryGetContext('createApiGatewayCloudWatchRole') === 'true',
    },
  });
  const probe = new lambda.Function(stack, 'ConfigurationProbe', {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromAsset(join(__dirname, 'probe')),
    timeout: Duration.minutes(1),
    description: 'Tries to change the stack configuration as a broadly granted principal of the account',
  });
  probe.role!.addManagedPolicy(iam.ManagedPolicy.fromAwsManagedPolicyName('ReadOnlyAccess'));
  probe.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['events:*', 's3:*', 'sqs:*', 'cloudformation:DetectStackDrift'],
      resources: ['*'],
    }),
  );
  // The example's consumer rule (onVerifiedEvent 'BoletoSettledRule').
  const rule = stack.receiver.node.findChild('BoletoSettledRule') as events.Rule;
  const integ = new IntegTest(app, 'Configuration', { testCases: [stack] });
  const payload = {
    rule: rule.ruleName,
    bus: stack.receiver.eventBus.eventBusName,
    bucket: stack.receiver.processor.journalBucket!.bucketName,
    stack: stack.stackName,
    types: CONFIGURATION_DRIFT_TYPES,
  };
  integ.assertions.invokeFunction({ functionName: probe.functionName, payload: JSON.stringify(payload) }).expect(
    ExpectedResult.objectLike({
      Payload: Match.serializedJson({
        denies: Object.fromEntries(PROBED_ACTIONS.map((action) => [action, 'denied'])),
        objectLock: {
          ObjectLockEnabled: 'Enabled',
          Rule: { DefaultRetention: { Mode: 'GOVERNANCE', Days: JournalDefaults.retentionDays } },
        },
      }),
    }),
  );
  // Drift detection takes minutes: asked every 30 s until a detection since the deploy completed.
  integ.assertions
    .invokeFunction({ functionName: probe.functionName, payload: JSON.stringify({ ...payload, phase: 'drift' }) })
    .expect(
      ExpectedResult.objectLike({
        Payload: Match.serializedJson({ detection: 'DETECTION_COMPLETE', notInSync: [] }),
      }),
    )
    .waitForAssertions({ totalTimeout: Duration.minutes(15), interval: Duration.seconds(30) });
  return app;
}

/** Every probed action is one a guard deny names (a test holds them together). */
export const GUARDED_ACTIONS = [...RULE_CHANGE_ACTIONS, ...BUS_POLICY_ACTIONS, ...JOURNAL_CONFIGURATION_ACTIONS];

if (require.main === module) {
  buildConfigurationInteg().synth();
}
