import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { BankClient, cooperativeRegistrations, credentialsFromSecret } from '../bank/cooperative';
import { CallKind, MemorySlotSchedule, PacerByKind, RatePacer } from '../bank/pacing';
import { combinedRegistrations } from '../bank/family';
import { PixClient, pixCredentialsFromSecret, pixRegistrations } from '../bank/pix';
import type { PixConnectionSettings } from '../../contracts/pix-connection';
import type { BankConnectionSettings } from '../../contracts/bank-connection';
import { RegistrationDefaults } from '../../contracts/registration';
import { SSMClient } from '@aws-sdk/client-ssm';
import { loadTokenToRegister } from '../shared/secret-tokens';
import { SsmAppliedRegistrations } from '../store/applied-registrations';
import { type CustomResourceEvent, type CustomResourceResult, onEvent } from './lifecycle';
import { redriveAllowLifecycle } from './redrive-allow';
import { REDRIVE_ALLOW_RESOURCE_TYPE } from '../../contracts/redrive-allow';
import { AWS_CLIENT_CONFIG, createLogger } from '../shared/runtime';

const logger = createLogger('bank-webhook-registration');
const secretsManager = new SecretsManagerClient(AWS_CLIENT_CONFIG);
const sqs = new SQSClient(AWS_CLIENT_CONFIG);
const records = new SsmAppliedRegistrations(new SSMClient(AWS_CLIENT_CONFIG));
/** One client per bank connection: the provider serves every registration of the stack. */
const clients = new Map<string, BankClient>();

function bankFor(settings: BankConnectionSettings): BankClient {
  const key = JSON.stringify(settings);
  let client = clients.get(key);
  if (!client) {
    const load = credentialsFromSecret(secretsManager, settings.credentialsSecretArn, 60_000);
    client = new BankClient({
      settings,
      credentials: async () => {
        return load();
      },
      onRetry: (info) => logger.warn('Retrying a bank call', { ...info }),
      // One environment handles one registration at a time: its own schedules keep the rates.
      pacer: new PacerByKind(
        { [CallKind.CREATION]: new RatePacer(new MemorySlotSchedule(), { ratePerSecond: settings.registrationCallsPerSecond, name: 'bank registration creations' }) },
        new RatePacer(new MemorySlotSchedule(), { ratePerSecond: settings.queriesPerSecond, name: 'bank registration calls' }),
      ),
    });
    clients.set(key, client);
  }
  return client;
}

/** One Pix client per Pix connection (a key's webhook at the standard Pix API). */
const pixClients = new Map<string, PixClient>();
function pixFor(settings: PixConnectionSettings): PixClient {
  const key = JSON.stringify(settings);
  let client = pixClients.get(key);
  if (!client) {
    client = new PixClient({
      settings,
      credentials: pixCredentialsFromSecret(secretsManager, settings.credentialsSecretArn, 60_000),
      onRetry: (info) => logger.warn('Retrying a Pix API call', { ...info }),
      pacer: new RatePacer(new MemorySlotSchedule(), { ratePerSecond: 5, name: 'Pix registration calls' }),
    });
    pixClients.set(key, client);
  }
  return client;
}

const registrations = combinedRegistrations(cooperativeRegistrations(bankFor), pixRegistrations(pixFor));

export async function handler(event: CustomResourceEvent, context: Context): Promise<CustomResourceResult> {
  if (event.ResourceType === REDRIVE_ALLOW_RESOURCE_TYPE) return redriveAllowLifecycle(event, sqs, logger);
  const remaining = context.getRemainingTimeInMillis();
  const deadline = Date.now() + remaining - Math.min(RegistrationDefaults.safetyMarginMs, remaining / 4);
  return onEvent(event, { registrations, token: (arn) => loadTokenToRegister(secretsManager, arn, 10_000), records, log: logger, deadline });
}
