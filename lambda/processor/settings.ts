import { PROCESSOR_SETTINGS_ENV, type ProcessorSettings } from '../../contracts/processor';
import { normalizePixKey } from '../../contracts/pix';
import { readSettings } from '../shared/settings';

/** Reads and checks the processor settings the construct put in the environment (every default filled: the handler applies none). */
export function readProcessorSettings(env: NodeJS.ProcessEnv): ProcessorSettings {
  const settings = readSettings<ProcessorSettings>(
    env[PROCESSOR_SETTINGS_ENV],
    { where: PROCESSOR_SETTINGS_ENV, setBy: 'SettlementProcessor' },
    {
      strings: [
        'eventBusName',
        'eventSource',
        'idempotencyTableName',
        'quarantineQueueUrl',
        'queueUrl',
        'lookQueueUrl',
        'lookQuarantineQueueUrl',
        'receiverName',
      ],
      numbers: [
        'idempotencyTtlSeconds',
        'maxReceiveCount',
        'maxVerificationAttempts',
        'safetyMarginMs',
        'recoveredGraceSeconds',
        'lookQueryShare',
      ],
      objects: ['boletoStatuses', 'boletoMovements', 'paymentStatuses'],
    },
  );
  const keys = settings.pixKeys;
  if (
    keys !== undefined &&
    (!Array.isArray(keys) || keys.some((key) => typeof key !== 'string' || normalizePixKey(key)?.key !== key))
  ) {
    throw new Error(
      `${PROCESSOR_SETTINGS_ENV}: pixKeys must be a list of Pix keys in their normal form (the SettlementProcessor construct writes them; redeploy rather than editing the function's environment)`,
    );
  }
  const lifetimes = settings.recordTtlSecondsByKind;
  if (
    lifetimes !== undefined &&
    (!lifetimes ||
      typeof lifetimes !== 'object' ||
      Array.isArray(lifetimes) ||
      Object.values(lifetimes).some((s) => !Number.isInteger(s) || s < settings.idempotencyTtlSeconds))
  ) {
    throw new Error(
      `${PROCESSOR_SETTINGS_ENV}: recordTtlSecondsByKind must map kinds of subject to whole seconds no shorter than idempotencyTtlSeconds (the SettlementProcessor construct writes them; redeploy rather than editing the function's environment)`,
    );
  }
  const bulk = settings.pixBulk as Partial<Record<string, unknown>> | undefined;
  if (
    bulk !== undefined &&
    (!bulk ||
      typeof bulk !== 'object' ||
      !Number.isInteger(bulk.afterSeconds) ||
      (bulk.afterSeconds as number) < 0 ||
      !Number.isInteger(bulk.chargeReachMinutes) ||
      (bulk.chargeReachMinutes as number) < 0 ||
      (bulk.chargeReachMinutes as number) > 1440)
  ) {
    throw new Error(
      `${PROCESSOR_SETTINGS_ENV}: pixBulk must hold afterSeconds (a whole number of seconds, 0 or more) and chargeReachMinutes (whole minutes from 0 to 1440) (the SettlementProcessor construct writes them; redeploy rather than editing the function's environment)`,
    );
  }
  for (const flag of ['pixKeyless', 'pixRecurring', 'pixCallbacksAuthenticated'] as const) {
    if (settings[flag] !== undefined && typeof settings[flag] !== 'boolean') {
      throw new Error(
        `${PROCESSOR_SETTINGS_ENV}: ${flag} must be true or false (the SettlementProcessor construct writes it; redeploy rather than editing the function's environment)`,
      );
    }
  }
  return settings;
}
