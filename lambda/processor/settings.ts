import { PROCESSOR_SETTINGS_ENV, type ProcessorSettings } from '../../contracts/processor';
import { readConstructSettings } from '../shared/runtime';

/** Reads and checks the processor settings the construct put in the environment (every default filled: the handler applies none). */
export function readProcessorSettings(env: NodeJS.ProcessEnv): ProcessorSettings {
  return readConstructSettings<ProcessorSettings>(env[PROCESSOR_SETTINGS_ENV], PROCESSOR_SETTINGS_ENV, {
    strings: ['eventBusName', 'eventSource', 'idempotencyTableName', 'quarantineQueueUrl', 'queueUrl'],
    numbers: ['idempotencyTtlSeconds', 'maxReceiveCount', 'maxVerificationAttempts', 'safetyMarginMs'],
    objects: ['boletoStatuses', 'boletoMovements', 'paymentStatuses'],
  });
}
