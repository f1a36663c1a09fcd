/**
 * Staging beside production (examples/two-stages): staging is NON_PRODUCTION and has no
 * registration, no sweep and no watch; production has all three; both pass cdk-nag; a receiver
 * that registers nothing is NON_PRODUCTION by default, with a warning; and a NON_PRODUCTION
 * receiver refuses what would act on the bank.
 */
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { buildTwoStageApp } from '../../examples/two-stages/app';
import { BankStage, BankWebhookReceiver } from '../../lib';
import { temporaryApps, testBankConnection, testStack } from '../support/cdk';

const newApp = temporaryApps('two-stages-');

describe('the two-stage app', () => {
  const { app, staging, production } = buildTwoStageApp(newApp());
  // Throws, listing each finding, if either stack has an unacknowledged one.
  const assembly = app.synth();
  const templateOf = (stack: typeof staging) =>
    Template.fromJSON(assembly.getStackByName(stack.stackName).template as Record<string, unknown>);
  const kinds = (template: Template) => ({
    registrations: Object.keys({
      ...template.findResources('Custom::BankPaymentWebhookRegistration'),
      ...template.findResources('Custom::BankBoletoWebhookContract'),
    }).length,
    sweeps: Object.keys(
      template.findResources('AWS::Lambda::Function', {
        Properties: {
          Description:
            'Finds settlements and payment changes the bank never notified, and has the processor verify and publish them',
        },
      }),
    ).length,
    schedules: Object.keys(
      template.findResources('AWS::Events::Rule', {
        Properties: { Description: 'Runs the bank reconciliation sweep and the registration watch' },
      }),
    ).length,
    watchPermissions: JSON.stringify(template.findResources('AWS::IAM::Policy')).includes(
      'cloudformation:DescribeStacks',
    ),
  });

  it('staging has no registration, no sweep and no watch; production has them', () => {
    expect(staging.receiver.stage).toBe(BankStage.NON_PRODUCTION);
    expect(kinds(templateOf(staging))).toEqual({ registrations: 0, sweeps: 0, schedules: 0, watchPermissions: false });
    expect(staging.receiver.reconciliation).toBeUndefined();
    expect(production.receiver.stage).toBe(BankStage.PRODUCTION);
    expect(kinds(templateOf(production))).toEqual({
      registrations: 2,
      sweeps: 1,
      schedules: 1,
      watchPermissions: true,
    });
  });

  it('gives each stage metrics and alarms of its own', () => {
    expect([staging.receiver.receiverName, production.receiver.receiverName]).toEqual([
      'BankWebhooksStaging/BankWebhooks',
      'BankWebhooksProduction/BankWebhooks',
    ]);
    // Every alarm on the library's metrics in a stack watches that stage's receiver only.
    const receiversAlarmed = (stack: typeof staging) => [
      ...new Set(
        Object.values(templateOf(stack).findResources('AWS::CloudWatch::Alarm'))
          .map(
            (alarm) => alarm.Properties as { Namespace?: string; Dimensions?: Array<{ Name: string; Value: string }> },
          )
          .filter((p) => p.Namespace === 'CdkBankWebhooks')
          .map((p) => p.Dimensions?.find((d) => d.Name === 'receiver')?.Value),
      ),
    ];
    expect(receiversAlarmed(staging)).toEqual(['BankWebhooksStaging/BankWebhooks']);
    expect(receiversAlarmed(production)).toEqual(['BankWebhooksProduction/BankWebhooks']);
  });
});

it('makes a receiver that registers nothing NON_PRODUCTION by default, and says so at synth', () => {
  const stack = testStack('Quiet');
  const receiver = new BankWebhookReceiver(stack, 'Webhooks', { bank: testBankConnection(stack) });
  expect(receiver.stage).toBe(BankStage.NON_PRODUCTION);
  expect(receiver.reconciliation).toBeUndefined();
  Annotations.fromStack(stack).hasWarning(
    '/Quiet/Webhooks',
    Match.stringLikeRegexp(
      'registers nothing with the bank, so it is NON_PRODUCTION.*set stage: BankStage.PRODUCTION to keep the sweep',
    ),
  );
  // Stated, it is silent; PRODUCTION without registrations keeps the sweep (URLs registered by hand).
  const stated = testStack('Stated');
  const production = new BankWebhookReceiver(stated, 'Webhooks', {
    bank: testBankConnection(stated),
    stage: BankStage.PRODUCTION,
  });
  expect(production.reconciliation).toBeDefined();
  expect(Annotations.fromStack(stated).findWarning('*', Match.stringLikeRegexp('NON_PRODUCTION'))).toEqual([]);
});

it('refuses, in NON_PRODUCTION, everything that would act on the bank, in one error', () => {
  const stack = testStack('Staging');
  expect(
    () =>
      new BankWebhookReceiver(stack, 'Webhooks', {
        bank: testBankConnection(stack),
        stage: BankStage.NON_PRODUCTION,
        paymentRegistration: {},
        boletoContracts: [{}],
        reconciliation: { enabled: true, trackPaymentSources: ['acme.payments'] },
      }),
  ).toThrow(
    new RegExp(
      [
        'paymentRegistration: must be left out: a NON_PRODUCTION stack does nothing against the bank, which has only production',
        'boletoContracts: must be left out',
        'reconciliation.enabled: must not be true',
        'reconciliation.trackPaymentSources: must be left out',
      ].join('[^]*'),
    ),
  );
});
