/**
 * The receiver's floor: a handler that only creates the SDK clients the receiver creates (same
 * configuration) and sends the message it is given to the receiver's queue. Bundled like a
 * handler by `npm run bench`; never deployed.
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { RECEIVER_SETTINGS_ENV, ReceiverDefaults, type ReceiverSettings } from '../../../contracts/receiver';
import { receiverSqsClientConfig } from '../../../lambda/shared/runtime';
import { loadStageToken, secretsClientConfig } from '../../../lambda/shared/secret-tokens';
import { settingsIn } from './settings-in';

const { queueUrl, paymentsTokenSecretArn } = settingsIn<ReceiverSettings>(RECEIVER_SETTINGS_ENV);
const sqs = new SQSClient(receiverSqsClientConfig(ReceiverDefaults.enqueueBudgetMs));
// Created as the receiver creates it, though this floor never reads a secret.
export const secrets = new SecretsManagerClient(secretsClientConfig(ReceiverDefaults.secretFetchBudgetMs));

export async function handler(event: { readonly messageBody: string; readonly route: string }): Promise<{ statusCode: number }> {
  await sqs.send(
    new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: event.messageBody, MessageAttributes: { route: { DataType: 'String', StringValue: event.route } } }),
    { abortSignal: AbortSignal.timeout(ReceiverDefaults.enqueueBudgetMs) },
  );
  return { statusCode: 200 };
}

/**
 * The floor that also reads the payments token once (its current stage, as the receiver's first
 * call does) before it sends: what any receiver that authenticates must do on a cold start. The
 * cold-start section reports it beside the floor (no target), to tell the secret's read from the
 * receiver's own code.
 */
export async function authenticatingHandler(event: { readonly messageBody: string; readonly route: string }): Promise<{ statusCode: number }> {
  await loadStageToken(secrets, paymentsTokenSecretArn, 'AWSCURRENT', ReceiverDefaults.secretFetchBudgetMs);
  return handler(event);
}
