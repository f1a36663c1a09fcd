/**
 * Reads the properties of the redrive-allow policy (contracts/redrive-allow.ts) with the one
 * settings reader: every field checked, errors naming the construct that writes them. A
 * registration's properties are its family's to read (RegistrationKinds.fromProperties).
 */
import { REDRIVE_ALLOW_RESOURCE_TYPE, RedriveAllowProperty } from '../../contracts/redrive-allow';
import { readSettings, type SettingsSource } from '../shared/settings';

/** The redrive-allow policy's properties: the dead-letter queue, and (but on Delete) the one queue it allows. */
export interface RedriveAllowRequest {
  readonly [RedriveAllowProperty.DEAD_LETTER_QUEUE_URL]: string;
  readonly [RedriveAllowProperty.SOURCE_QUEUE_ARN]: string;
}

const REDRIVE_ALLOW_SOURCE: SettingsSource = {
  where: `The custom resource ${REDRIVE_ALLOW_RESOURCE_TYPE}`,
  setBy: 'BankWebhookEndpoint',
};
const QUEUE_URL = { pattern: /^https?:\/\/\S+$/, what: 'an SQS queue URL' };
const QUEUE_ARN = { pattern: /^arn:aws[a-z-]*:sqs:[a-z0-9-]+:\d{12}:\S+$/, what: 'an SQS queue ARN' };

/** Reads the redrive-allow policy's properties; a Delete needs only the dead-letter queue's URL. */
export function readRedriveAllowProperties(
  properties: Record<string, unknown>,
  deleting: boolean,
): RedriveAllowRequest {
  return readSettings<RedriveAllowRequest>(properties, REDRIVE_ALLOW_SOURCE, {
    patterns: {
      [RedriveAllowProperty.DEAD_LETTER_QUEUE_URL]: QUEUE_URL,
      ...(deleting ? {} : { [RedriveAllowProperty.SOURCE_QUEUE_ARN]: QUEUE_ARN }),
    },
  });
}
