import { CustomResource, Duration, Names, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { BankConnectionSettings } from '../../contracts/bank-connection';
import {
  appliedRecordName,
  type BoletoContractSpec,
  type PaymentWebhookSpec,
  RegistrationDefaults,
  RegistrationProperty,
} from '../../contracts/registration';
import { type CooperativeConnectionProps, bankConnectionSettings } from '../families/cooperative/connection';
import { checkFunctionNetwork } from '../core/function-network';
import { isHttpsUrl, type PropsValidation } from '../core/props-validation';
import { RegistrationProvider, type RegistrationProviderSettings } from '../core/registration-provider';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as kms from 'aws-cdk-lib/aws-kms';

/** What every registration with the bank takes, in a receiver and standalone alike. */
export interface RegistrationOptions {
  /**
   * Any text you change after putting a new value in the token secret (a date, a counter): the
   * next deploy registers the new value with the bank. CloudFormation cannot see a secret's
   * value, so this is how a rotation reaches the bank. While a rotation is under way (the
   * secret has an AWSPENDING version) the pending value is registered, which the receiver
   * already accepts.
   * @default '0'
   */
  readonly tokenVersion?: string;
  /**
   * What `cdk destroy` (or removing the construct) does at the bank. DESTROY removes the
   * registration when the bank still holds our URL; RETAIN leaves it. Set RETAIN before moving
   * the construct to another path or stack, since a move is a delete of the old one.
   * @default RemovalPolicy.DESTROY
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Replace what the bank holds when it is another URL. The bank has only Production, so a
   * staging and a production stack of one account register with the same bank: without this, a
   * deploy that finds another URL registered fails, naming it, and changes nothing.
   * @default false
   */
  readonly takeOverExisting?: boolean;
}

/** Props every standalone registration construct shares: the registration's own, and its provider's. */

export interface RegistrationResourceOptions extends RegistrationOptions, RegistrationProviderSettings {}

/**
 * The registration provider's settings as a receiver's registration entry (`paymentRegistration`,
 * each of `boletoContracts`) took them in earlier releases. The stack's provider is made with the
 * receiver's own settings; an entry's may only repeat them, so they are deprecated there.
 */
export interface RegistrationEntryProviderSettings {
  /**
   * The registration provider's VPC.
   * @deprecated set `vpc` on the receiver: its provider takes the receiver's; an entry's must equal it. Removed in 1.0
   * @default - the receiver's `vpc`
   */
  readonly vpc?: ec2.IVpc;
  /**
   * The registration provider's subnets.
   * @deprecated set `vpcSubnets` on the receiver: its provider takes the receiver's; an entry's must equal it. Removed in 1.0
   * @default - the receiver's `vpcSubnets`
   */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /**
   * The registration provider's security groups.
   * @deprecated set `securityGroups` on the receiver: its provider takes the receiver's; an entry's must equal them. Removed in 1.0
   * @default - the receiver's `securityGroups`
   */
  readonly securityGroups?: ec2.ISecurityGroup[];
  /**
   * The KMS key of the registration provider's log groups.
   * @deprecated set `logEncryptionKey` on the receiver: its provider takes the receiver's; an entry's must equal it. Removed in 1.0
   * @default - the receiver's `logEncryptionKey`
   */
  readonly logEncryptionKey?: kms.IKey;
}

/** The deprecated provider settings an entry sets (each named for its warning). */
export function entryProviderSettingsSet(entry: RegistrationEntryProviderSettings): string[] {
  return (['vpc', 'vpcSubnets', 'securityGroups', 'logEncryptionKey'] as const).filter((k) => entry[k] !== undefined);
}

/** Checks the URL a registration sends the bank. */
export function checkWebhookUrl(v: PropsValidation, url: string | undefined, prop: string): void {
  if (url === undefined || url === '') {
    v.check(false, prop, 'is required: the https URL the bank sends notifications to');
  } else if (!Token.isUnresolved(url)) {
    v.check(
      isHttpsUrl(url),
      prop,
      `must be an https URL without query or fragment (the bank delivers over HTTPS only), got "${url}"`,
    );
  }
}

/** Checks the options every registration shares; `prefix` names where they sit (such as `paymentRegistration.`). */
export function checkRegistrationOptions(
  v: PropsValidation,
  options: RegistrationResourceOptions,
  prefix: string,
): void {
  if (options.tokenVersion !== undefined && !Token.isUnresolved(options.tokenVersion)) {
    v.check(
      options.tokenVersion.length <= 256,
      `${prefix}tokenVersion`,
      `must be at most 256 characters, got ${options.tokenVersion.length}`,
    );
  }
  checkFunctionNetwork(v, options, prefix);
  if (options.removalPolicy !== undefined) {
    v.check(
      [RemovalPolicy.DESTROY, RemovalPolicy.RETAIN].includes(options.removalPolicy),
      `${prefix}removalPolicy`,
      `must be RemovalPolicy.DESTROY or RemovalPolicy.RETAIN, got ${options.removalPolicy}`,
    );
  }
}

/**
 * The SSM parameter where the provider records what the registration `scope` last applied
 * (contracts/registration.ts `AppliedRegistration`): under the stack's name and the construct's
 * unique id, so it stays put as long as the construct does.
 */
export function appliedRecordNameOf(scope: Construct): string {
  return appliedRecordName(Stack.of(scope).stackName, Names.uniqueId(scope));
}

/**
 * The custom resource of one registration, served by the stack's provider: its properties hold
 * the bank connection (non-secret settings and the credentials' ARN), the registration with the
 * token's ARN, the token version, and where the provider records what it applied. Grants the
 * handler read access to the secrets.
 */
export function createRegistrationResource(
  scope: Construct,
  options: RegistrationResourceOptions & {
    readonly bank: CooperativeConnectionProps;
    readonly resourceType: string;
    readonly spec: PaymentWebhookSpec | BoletoContractSpec;
    readonly token?: secretsmanager.ISecret;
  },
): CustomResource {
  const provider = RegistrationProvider.of(scope, {
    logEncryptionKey: options.logEncryptionKey,
    vpc: options.vpc,
    vpcSubnets: options.vpcSubnets,
    securityGroups: options.securityGroups,
  });
  provider.grantRead(options.bank.credentials);
  if (options.token) provider.grantRead(options.token);
  provider.grantAppliedRecord(appliedRecordNameOf(scope));
  const stack = Stack.of(scope);
  return new CustomResource(scope, 'Resource', {
    serviceToken: provider.serviceToken,
    resourceType: options.resourceType,
    properties: registrationProperties(
      bankConnectionSettings(options.bank),
      options.spec,
      options.tokenVersion ?? '0',
      appliedRecordNameOf(scope),
      (value) => stack.toJsonString(value),
    ),
    serviceTimeout: Duration.seconds(RegistrationDefaults.serviceTimeoutSeconds),
    removalPolicy: options.removalPolicy ?? RemovalPolicy.DESTROY,
  });
}

/** The custom resource's properties (without ServiceToken), with `stringify` turning objects into JSON. */
export function registrationProperties(
  bank: BankConnectionSettings,
  spec: PaymentWebhookSpec | BoletoContractSpec,
  tokenVersion: string,
  appliedRecord?: string,
  stringify: (value: unknown) => string = (value) => JSON.stringify(value),
): Record<string, string> {
  return {
    [RegistrationProperty.BANK]: stringify(bank),
    [RegistrationProperty.SPEC]: stringify(spec),
    [RegistrationProperty.TOKEN_VERSION]: tokenVersion,
    ...(appliedRecord ? { [RegistrationProperty.APPLIED_RECORD]: appliedRecord } : {}),
  };
}
