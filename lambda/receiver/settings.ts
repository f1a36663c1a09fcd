import { MAX_BODY_BYTES_LIMIT, RECEIVER_SETTINGS_ENV, type ReceiverSettings } from '../../contracts/receiver';
import { readSettings } from '../shared/settings';

/**
 * Reads and checks the receiver settings the construct put in the environment (every default
 * filled: the handler applies none). One error names every missing or malformed field, so a
 * misconfigured function fails at its first invocation saying what to fix.
 */
export function readReceiverSettings(env: NodeJS.ProcessEnv): ReceiverSettings {
  return readSettings<ReceiverSettings>(env[RECEIVER_SETTINGS_ENV], { where: RECEIVER_SETTINGS_ENV, setBy: 'BankWebhookEndpoint' }, {
    strings: ['queueUrl', 'paymentsTokenSecretArn', 'boletoTokenSecretArn', 'boletoTokenHeader', 'receiverName'],
    wholeNumbers: { maxBodyBytes: [1, MAX_BODY_BYTES_LIMIT], tokenCacheTtlMs: [1, 3_600_000], enqueueBudgetMs: [1, 9_000] },
  });
}
