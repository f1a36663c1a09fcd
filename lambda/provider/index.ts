import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { bindFamilies } from '../bank/families';
import { RegistrationDefaults } from '../../contracts/registration';
import { SSMClient } from '@aws-sdk/client-ssm';
import { loadTokenToRegister } from '../shared/secret-tokens';
import { SsmAppliedRegistrations } from '../store/applied-registrations';
import { type CustomResourceEvent, type CustomResourceResult, onEvent } from './lifecycle';
import { redriveAllowLifecycle } from './redrive-allow';
import { REDRIVE_ALLOW_RESOURCE_TYPE } from '../../contracts/redrive-allow';
import { createLogger } from '../shared/logger';
import { AWS_CLIENT_CONFIG } from '../shared/runtime';

const logger = createLogger('bank-webhook-registration');
const secretsManager = new SecretsManagerClient(AWS_CLIENT_CONFIG);
const sqs = new SQSClient(AWS_CLIENT_CONFIG);
const records = new SsmAppliedRegistrations(new SSMClient(AWS_CLIENT_CONFIG));
// The provider serves every registration of the stack: each family makes a client per connection a
// custom resource names, on its own registration rates (one environment handles one at a time).
const registrations = bindFamilies({
  env: process.env,
  setBy: 'the registration provider',
  secretsManager,
  credentialsTtlMs: 60_000,
  onRetry: (message, info) => logger.warn(message, { ...info }),
}).registrations();

export async function handler(event: CustomResourceEvent, context: Context): Promise<CustomResourceResult> {
  if (event.ResourceType === REDRIVE_ALLOW_RESOURCE_TYPE) return redriveAllowLifecycle(event, sqs, logger);
  const remaining = context.getRemainingTimeInMillis();
  const deadline = Date.now() + remaining - Math.min(RegistrationDefaults.safetyMarginMs, remaining / 4);
  return onEvent(event, {
    registrations,
    token: (arn) => loadTokenToRegister(secretsManager, arn, 10_000),
    records,
    log: logger,
    deadline,
  });
}
