import { PROCESSOR_SETTINGS_ENV, type ProcessorSettings } from '../../contracts/processor';

/** Reads and checks the processor settings the construct put in the environment (every default filled: the handler applies none). */
export function readProcessorSettings(env: NodeJS.ProcessEnv): ProcessorSettings {
  const raw = env[PROCESSOR_SETTINGS_ENV];
  const fix = '(the construct sets it; redeploy rather than editing it)';
  if (!raw) throw new Error(`${PROCESSOR_SETTINGS_ENV} is not set ${fix}`);
  let parsed: Partial<ProcessorSettings>;
  try {
    parsed = JSON.parse(raw) as Partial<ProcessorSettings>;
  } catch {
    throw new Error(`${PROCESSOR_SETTINGS_ENV} is not JSON ${fix}`);
  }
  const strings = (['eventBusName', 'eventSource', 'idempotencyTableName', 'quarantineQueueUrl', 'queueUrl'] as const).filter((key) => typeof parsed[key] !== 'string' || !parsed[key]);
  const numbers = (['idempotencyTtlSeconds', 'maxReceiveCount', 'maxVerificationAttempts', 'safetyMarginMs'] as const).filter((key) => !(typeof parsed[key] === 'number' && parsed[key] >= 0));
  const mappings = (['boletoStatuses', 'boletoMovements', 'paymentStatuses'] as const).filter((key) => !parsed[key] || typeof parsed[key] !== 'object');
  const missing = [...strings, ...numbers, ...mappings];
  if (missing.length) throw new Error(`${PROCESSOR_SETTINGS_ENV} lacks ${missing.join(', ')} ${fix}`);
  return parsed as ProcessorSettings;
}
