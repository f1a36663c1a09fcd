/**
 * What a webhook at the standard Pix API makes in its construct's scope, a key's ({@link PixKeyWebhook})
 * or one of the account's ({@link PixAccountWebhook}): the shared registration provider granted the
 * Pix credentials and the applied record, and the custom resource carrying the connection and the
 * spec; and what the registration watch reads of it.
 */
import { CustomResource, Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { WatchedRegistration } from '../../contracts/reconciliation';
import {
  compactDeployed,
  type PixAccountWebhookSpec,
  type PixKeyWebhookSpec,
  RegistrationDefaults,
  RegistrationProperty,
  type RegistrationResourceType,
} from '../../contracts/registration';
import { type PixConnectionProps, pixConnectionSettings } from '../families/pix/connection';
import type { PropsValidation } from '../core/props-validation';
import { RegistrationProvider, type RegistrationProviderSettings } from '../core/registration-provider';
import { appliedRecordNameOf } from './registration-resource';

/** What both kinds of Pix webhook take besides their own fields. */
export interface PixWebhookResourceProps extends RegistrationProviderSettings {
  readonly connection: PixConnectionProps;
  readonly removalPolicy?: RemovalPolicy;
}

/** Makes the custom resource of a Pix webhook in `scope` (its id `Resource`), with what the watch reads of it. */
export function pixWebhookResource(
  scope: Construct,
  props: PixWebhookResourceProps,
  resourceType: RegistrationResourceType,
  spec: PixKeyWebhookSpec | PixAccountWebhookSpec,
  label: string,
): { resource: CustomResource; appliedRecordName: string; watched: WatchedRegistration } {
  const provider = RegistrationProvider.of(scope, {
    logEncryptionKey: props.logEncryptionKey,
    vpc: props.vpc,
    vpcSubnets: props.vpcSubnets,
    securityGroups: props.securityGroups,
  });
  provider.grantRead(props.connection.credentials);
  const appliedRecordName = appliedRecordNameOf(scope);
  provider.grantAppliedRecord(appliedRecordName);
  const stack = Stack.of(scope);
  const resource = new CustomResource(scope, 'Resource', {
    serviceToken: provider.serviceToken,
    resourceType,
    properties: {
      [RegistrationProperty.PIX]: stack.toJsonString(pixConnectionSettings(props.connection)),
      [RegistrationProperty.SPEC]: stack.toJsonString(spec),
      [RegistrationProperty.APPLIED_RECORD]: appliedRecordName,
    },
    serviceTimeout: Duration.seconds(RegistrationDefaults.serviceTimeoutSeconds),
    removalPolicy: props.removalPolicy ?? RemovalPolicy.DESTROY,
  });
  return {
    resource,
    appliedRecordName,
    watched: { label, appliedRecord: appliedRecordName, deployed: compactDeployed(spec) },
  };
}

/** Checks a Pix webhook's URL: the Pix API's, https, with no trailing slash, query or fragment (the provider appends `appended`). */
export function checkPixWebhookUrl(v: PropsValidation, url: string | undefined, appended: string): void {
  if (url === undefined || url === '') v.check(false, 'url', "is required: the Pix API's URL (pixUrl)");
  else if (!Token.isUnresolved(url))
    v.check(
      /^https:\/\/[^?#]*[^/?#]$/.test(url),
      'url',
      `must be an https URL without a trailing slash, query or fragment (the provider appends ${appended}), got "${url}"`,
    );
}
