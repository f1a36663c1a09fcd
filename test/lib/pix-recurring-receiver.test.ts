/**
 * A receiver given `pix.recurring` (issue 66): Pix Automático's routes `/rec` and `/cobr` on the Pix
 * API beside `/pix`, the account's two webhooks registered at deploy on the same URL and watched,
 * the processor told so; only on the account's receiver for keyless Pix; and a receiver without it
 * synthesizes exactly as before.
 */
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { App, Stack } from 'aws-cdk-lib';
import type { BankWebhookReceiverProps } from '../../lib/bank-webhook-receiver-props';
import { BankStage } from '../../lib/core/bank-stage';
import { PixAccountWebhook } from '../../lib/registration/pix-account-webhook';
import { RecurringWebhookKind } from '../../contracts/pix-recurring';
import { PROCESSOR_SETTINGS_ENV, type ProcessorSettings } from '../../contracts/processor';
import { SWEEP_SETTINGS_ENV, type SweepSettings } from '../../contracts/reconciliation';
import { settingsIn, synthReceiver } from '../support/cdk';

const PIX_ARN = 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:pix-credentials-AbCdEf';
const LEAF = 'ab'.repeat(32);

const receiving =
  (pix: Record<string, unknown> = { keylessPix: true, recurring: true }) =>
  (stack: Stack): Partial<BankWebhookReceiverProps> => ({
    pix: {
      connection: {
        baseUrl: 'https://api-pix.provider.example',
        credentials: secretsmanager.Secret.fromSecretCompleteArn(stack, 'PixCredentials', PIX_ARN),
      },
      keys: ['financeiro@example.com.br'],
      domain: {
        domainName: 'pix-webhooks.example.com',
        certificate: acm.Certificate.fromCertificateArn(
          stack,
          'Cert',
          'arn:aws:acm:sa-east-1:111111111111:certificate/abc',
        ),
        truststore: { bucket: s3.Bucket.fromBucketName(stack, 'Truststores', 'truststores-bucket'), key: 'chain.pem' },
        pinnedCertificates: { fingerprints: [LEAF] },
      },
      ...pix,
    },
  });

const processorSettings = (template: Template) =>
  settingsIn<ProcessorSettings>(
    Object.values(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Description: Match.stringLikeRegexp('^Verifies each stored') },
      }),
    )[0],
    PROCESSOR_SETTINGS_ENV,
  );

it('serves /rec and /cobr on the Pix API beside /pix, to the same receiver, behind the same domain', () => {
  const { template } = synthReceiver({}, receiving());
  const pixApiId = Object.keys(template.findResources('AWS::ApiGateway::RestApi')).find((id) =>
    id.startsWith('WebhooksPixApi'),
  )!;
  for (const path of ['pix', 'rec', 'cobr'])
    template.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: path, RestApiId: { Ref: pixApiId } });
  const methods = Object.values(
    template.findResources('AWS::ApiGateway::Method', { Properties: { RestApiId: { Ref: pixApiId } } }),
  ) as Array<{ Properties: { Integration: { Uri: unknown } } }>;
  expect(methods).toHaveLength(4);
  expect(new Set(methods.map((m) => JSON.stringify(m.Properties.Integration.Uri))).size).toBe(1);
  expect(processorSettings(template).pixRecurring).toBe(true);
  // The dashboard shows the routes and the two detail types; a receiver without recurring does not.
  const dashboard = JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'));
  for (const shown of ['stored /rec', 'stored /cobr', 'Pix Recurrence Changed', 'Pix Recurring Charge Changed'])
    expect(dashboard).toContain(shown);
  const without = JSON.stringify(
    synthReceiver({}, receiving({ keylessPix: true })).template.findResources('AWS::CloudWatch::Dashboard'),
  );
  expect(without).not.toContain('Pix Recurrence Changed');
});

it("registers the account's webhookrec and webhookcobr on the Pix API's URL, and has the watch read them from the keys' output", () => {
  const { template } = synthReceiver({}, receiving());
  const webhooks = template.findResources('Custom::BankPixAccountWebhook') as Record<
    string,
    { Properties: Record<string, string> }
  >;
  expect(Object.keys(webhooks).sort()).toEqual([
    expect.stringMatching(/^WebhooksPixRecurringcobr/),
    expect.stringMatching(/^WebhooksPixRecurringrec/),
  ]);
  expect(Object.values(webhooks).map((w) => JSON.parse(w.Properties.Registration))).toEqual(
    expect.arrayContaining([
      { accountWebhook: 'rec', url: 'https://pix-webhooks.example.com' },
      { accountWebhook: 'cobr', url: 'https://pix-webhooks.example.com' },
    ]),
  );
  const [output] = Object.values(
    template.findOutputs('*', { Description: Match.stringLikeRegexp('^The Pix keys whose webhooks') }),
  ) as Array<{ Value: unknown }>;
  const watched = JSON.parse(JSON.stringify(output.Value)) as unknown;
  const text = JSON.stringify(watched);
  expect(text).toContain('\\"accounts\\":[[\\"rec\\"');
  expect(text).toContain('[\\"cobr\\"');
});

it('refuses pix.recurring on a receiver that is not the account’s receiver for keyless Pix, saying what to do', () => {
  expect(() => synthReceiver({}, receiving({ recurring: true }))).toThrow(
    /pix\.recurring: is the account's, not a key's .*set it on the account's receiver for keyless Pix, with pix\.keylessPix: true/,
  );
});

it('registers nothing from a NON_PRODUCTION stack against the real provider, and changes nothing without pix.recurring', () => {
  const staging = synthReceiver({ stage: BankStage.NON_PRODUCTION }, receiving()).template;
  expect(staging.findResources('Custom::BankPixAccountWebhook')).toEqual({});
  const keyless = synthReceiver({}, receiving({ keylessPix: true })).template;
  expect(keyless.findResources('Custom::BankPixAccountWebhook')).toEqual({});
  expect(keyless.findResources('AWS::ApiGateway::Resource', { Properties: { PathPart: 'rec' } })).toEqual({});
  expect(processorSettings(keyless)).not.toHaveProperty('pixRecurring');
  expect(JSON.stringify(keyless.toJSON())).not.toContain('accounts');
});

it('PixAccountWebhook names every problem of its props', () => {
  const stack = new Stack(new App(), 'S');
  expect(
    () =>
      new PixAccountWebhook(stack, 'W', {
        connection: {
          baseUrl: 'https://api-pix.provider.example',
          credentials: secretsmanager.Secret.fromSecretCompleteArn(stack, 'C', PIX_ARN),
        },
        webhook: 'pix' as RecurringWebhookKind,
        url: 'https://pix-webhooks.example.com/',
      }),
  ).toThrow(
    /webhook: must be RecurringWebhookKind\.REC or RecurringWebhookKind\.COBR, got "pix"[\s\S]*url: must be an https URL without a trailing slash/,
  );
});

it("has the sweep read Pix Automático's listings by creation, the charges' window a day or two a sweep", () => {
  const sweepPix = (template: Template) =>
    settingsIn<SweepSettings>(
      Object.values(
        template.findResources('AWS::Lambda::Function', {
          Properties: { Description: Match.stringLikeRegexp('^Finds settlements') },
        }),
      )[0],
      SWEEP_SETTINGS_ENV,
    ).pix;
  expect(sweepPix(synthReceiver({}, receiving()).template)?.recurring).toEqual({
    chargeCreationDays: 14,
    chargeDaysPerSweep: 1,
  });
  expect(sweepPix(synthReceiver({}, receiving({ keylessPix: true })).template)).not.toHaveProperty('recurring');
});
