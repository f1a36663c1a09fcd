/**
 * What both example apps share: the bank connection and boleto contract from CDK context (with
 * placeholders so they synthesize as is), an encrypted alarm topic, and the choice of rotating
 * the tokens by deploy rather than on a schedule.
 */
import { Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { CooperativeConnectionProps, BankWebhookReceiver, BoletoWebhookContractOptions } from '../lib';

/** A value from CDK context (cdk.json or -c key=value), or the placeholder. */
function context(scope: Construct, key: string, placeholder: string): string {
  return (scope.node.tryGetContext(key) as string | undefined) ?? placeholder;
}

/** A number from CDK context (given as text with -c), or undefined. */
function optionalNumber(scope: Construct, key: string): number | undefined {
  const value: unknown = scope.node.tryGetContext(key);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new Error(`${key} must be a number, got ${JSON.stringify(value)}`);
  return n;
}

/** The bank connection: account values from CDK context (see docs/usage.md). */
export function exampleBank(scope: Construct): CooperativeConnectionProps {
  return {
    baseUrl: context(scope, 'bankBaseUrl', 'https://api.bank.example'),
    registrationBaseUrl: context(scope, 'bankRegistrationBaseUrl', 'https://api.bank.example/pagamentos'),
    credentials: secretsmanager.Secret.fromSecretNameV2(
      scope,
      'BankCredentials',
      context(scope, 'bankCredentialsSecretName', 'cdk-bank-webhooks/bank-credentials'),
    ),
    account: {
      cooperativa: context(scope, 'bankCooperativa', '0101'),
      posto: context(scope, 'bankPosto', '02'),
      conta: context(scope, 'bankConta', '123456'),
      documento: context(scope, 'bankDocumento', '12345678000199'),
      codigoBeneficiario: context(scope, 'bankCodigoBeneficiario', '54321'),
    },
    // What the bank allows these credentials; leave it out for the library's default (10/s).
    queriesPerSecond: optionalNumber(scope, 'bankQueriesPerSecond'),
    // Items of a full page of the settled-boletos listing; leave it out for the manual's 500.
    listingPageSize: optionalNumber(scope, 'bankListingPageSize'),
  };
}

/** The boleto webhook contract's contact, from CDK context. */
export function exampleBoletoContract(scope: Construct): BoletoWebhookContractOptions {
  return {
    nomeResponsavel: context(scope, 'bankContactName', 'Finance Operations'),
    email: context(scope, 'bankContactEmail', 'finance@example.com'),
    telefone: context(scope, 'bankContactPhone', '+55 11 3003-0000'),
  };
}

/**
 * An SNS topic for the alarms, encrypted with a key CloudWatch may use (the AWS-managed SNS key
 * would refuse it). Subscribe the on-call.
 */
export function encryptedAlarmTopic(scope: Construct): sns.Topic {
  const key = new kms.Key(scope, 'AlarmsKey', {
    enableKeyRotation: true,
    description: 'Encrypts the bank webhook alarms topic',
  });
  key.grant(new iam.ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
  return new sns.Topic(scope, 'Alarms', { displayName: 'Bank webhook alarms', masterKey: key, enforceSSL: true });
}

const ROTATION_REASON =
  'No automatic rotation: a new token must be registered with the bank as it becomes current, which a deploy does (put the new value, then bump tokenVersion; the receiver accepts AWSCURRENT and AWSPENDING meanwhile). This company rotates on its own schedule that way (docs/security.md).';

/**
 * The company's choice not to schedule rotation of the generated tokens, acknowledged in every
 * pack that asks for it (`packs`: the cdk-nag pack prefixes the app runs).
 */
export function acknowledgeTokenRotationByDeploy(
  receiver: BankWebhookReceiver,
  packs: { readonly awsSolutions?: boolean; readonly nist?: boolean; readonly hipaa?: boolean } = {
    awsSolutions: true,
  },
): void {
  const ids = [
    ...(packs.awsSolutions ? ['AwsSolutions::AwsSolutions-SMG4'] : []),
    ...(packs.nist ? ['NIST.800.53.R5::NIST.800.53.R5-SecretsManagerRotationEnabled'] : []),
    ...(packs.hipaa ? ['HIPAA.Security::HIPAA.Security-SecretsManagerRotationEnabled'] : []),
  ];
  for (const token of [receiver.paymentCallbackToken, receiver.boletoToken]) {
    for (const id of ids) Validations.of(token).acknowledge({ id, reason: ROTATION_REASON });
  }
}
