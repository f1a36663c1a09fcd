import { MAX_BODY_BYTES_LIMIT, RECEIVER_SETTINGS_ENV, type ReceiverSettings } from '../../contracts/receiver';
import { readSettings, settingsFix } from '../shared/settings';

/**
 * Reads and checks the receiver settings the construct put in the environment (every default
 * filled: the handler applies none). One error names every missing or malformed field, so a
 * misconfigured function fails at its first invocation saying what to fix.
 */
export function readReceiverSettings(env: NodeJS.ProcessEnv): ReceiverSettings {
  const source = { where: RECEIVER_SETTINGS_ENV, setBy: 'BankWebhookEndpoint' };
  const settings = readSettings<ReceiverSettings>(env[RECEIVER_SETTINGS_ENV], source, {
    strings: ['queueUrl', 'paymentsTokenSecretArn', 'boletoTokenSecretArn', 'boletoTokenHeader', 'receiverName'],
    wholeNumbers: {
      maxBodyBytes: [1, MAX_BODY_BYTES_LIMIT],
      tokenCacheTtlMs: [1, 3_600_000],
      enqueueBudgetMs: [1, 9_000],
    },
  });
  const pins = settings.pixClientCertificates;
  if (pins !== undefined) {
    const strings = (list: unknown, pattern: RegExp) =>
      Array.isArray(list) && list.every((item) => typeof item === 'string' && pattern.test(item));
    // Pins that pin nothing would refuse every callback; pins that are not strings would be a forgery's way around them.
    if (
      !strings(pins.fingerprints, /^[0-9a-f]{64}$/) ||
      !strings(pins.subjects, /^.{1,1024}$/) ||
      pins.fingerprints.length + pins.subjects.length === 0 ||
      (pins.issuers !== undefined && (!strings(pins.issuers, /^.{1,1024}$/) || pins.issuers.length === 0))
    ) {
      throw new Error(
        `${RECEIVER_SETTINGS_ENV}: pixClientCertificates must list SHA-256 fingerprints (64 lower-case hex digits) and subject DNs, at least one ${settingsFix(source)}`,
      );
    }
  }
  return settings;
}
