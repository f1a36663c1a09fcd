/**
 * Reads the properties of the custom resources the stack's provider serves (the registrations of
 * contracts/registration.ts, the redrive-allow policy of contracts/redrive-allow.ts) with the one
 * settings reader: every field checked, errors naming the construct that writes them.
 */
import type { BankConnectionSettings } from '../../contracts/bank-connection';
import { REDRIVE_ALLOW_RESOURCE_TYPE, RedriveAllowProperty } from '../../contracts/redrive-allow';
import { type BoletoContractSpec, type PaymentWebhookSpec, RegistrationProperty, RegistrationResourceType } from '../../contracts/registration';
import { parseBankConnection } from '../bank/cooperative';
import { readSettings, type SettingsSource } from '../shared/settings';

/** The construct that writes each registration's properties. */
const REGISTRATION_CONSTRUCT: Record<RegistrationResourceType, string> = {
  [RegistrationResourceType.PAYMENT_WEBHOOK]: 'PaymentWebhookRegistration',
  [RegistrationResourceType.BOLETO_CONTRACT]: 'BoletoWebhookContract',
};

export type RegistrationRequest =
  | { readonly kind: 'payment'; readonly bank: BankConnectionSettings; readonly spec: PaymentWebhookSpec }
  | { readonly kind: 'contract'; readonly bank: BankConnectionSettings; readonly spec: BoletoContractSpec };

/** The bank connection and the registration a custom resource event carries, checked. */
export function readRegistrationProperties(resourceType: string, properties: Record<string, unknown>): RegistrationRequest {
  const type = resourceType as RegistrationResourceType;
  const setBy = REGISTRATION_CONSTRUCT[type];
  if (!setBy) throw new Error(`Unknown resource type ${resourceType}: this handler serves ${Object.values(RegistrationResourceType).join(' and ')}`);
  const property = (name: string): { raw: string | undefined; source: SettingsSource } => ({
    raw: typeof properties[name] === 'string' ? properties[name] : undefined,
    source: { where: `The custom resource property ${name}`, setBy },
  });
  const bankProperty = property(RegistrationProperty.BANK);
  const bank = parseBankConnection(bankProperty.raw, bankProperty.source);
  const { raw, source } = property(RegistrationProperty.SPEC);
  if (type === RegistrationResourceType.PAYMENT_WEBHOOK) {
    return { kind: 'payment', bank, spec: readSettings<PaymentWebhookSpec>(raw, source, { strings: ['url', 'tokenSecretArn'] }) };
  }
  return {
    kind: 'contract',
    bank,
    spec: readSettings<BoletoContractSpec>(raw, source, {
      strings: ['cooperativa', 'posto', 'codBeneficiario', 'url', 'urlStatus', 'contratoStatus'],
      lists: ['eventos'],
    }),
  };
}

/** The redrive-allow policy's properties: the dead-letter queue, and (but on Delete) the one queue it allows. */
export interface RedriveAllowRequest {
  readonly [RedriveAllowProperty.DEAD_LETTER_QUEUE_URL]: string;
  readonly [RedriveAllowProperty.SOURCE_QUEUE_ARN]: string;
}

const REDRIVE_ALLOW_SOURCE: SettingsSource = { where: `The custom resource ${REDRIVE_ALLOW_RESOURCE_TYPE}`, setBy: 'BankWebhookEndpoint' };
const QUEUE_URL = { pattern: /^https?:\/\/\S+$/, what: 'an SQS queue URL' };
const QUEUE_ARN = { pattern: /^arn:aws[a-z-]*:sqs:[a-z0-9-]+:\d{12}:\S+$/, what: 'an SQS queue ARN' };

/** Reads the redrive-allow policy's properties; a Delete needs only the dead-letter queue's URL. */
export function readRedriveAllowProperties(properties: Record<string, unknown>, deleting: boolean): RedriveAllowRequest {
  return readSettings<RedriveAllowRequest>(properties, REDRIVE_ALLOW_SOURCE, {
    patterns: {
      [RedriveAllowProperty.DEAD_LETTER_QUEUE_URL]: QUEUE_URL,
      ...(deleting ? {} : { [RedriveAllowProperty.SOURCE_QUEUE_ARN]: QUEUE_ARN }),
    },
  });
}
