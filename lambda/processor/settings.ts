import { PROCESSOR_SETTINGS_ENV, type ProcessorSettings } from '../../contracts/processor';
import { readSettings } from '../shared/settings';

/** Reads and checks the processor settings the construct put in the environment (every default filled: the handler applies none). */
export function readProcessorSettings(env: NodeJS.ProcessEnv): ProcessorSettings {
  return readSettings<ProcessorSettings>(env[PROCESSOR_SETTINGS_ENV], { where: PROCESSOR_SETTINGS_ENV, setBy: 'SettlementProcessor' }, {
    strings: ['eventBusName', 'eventSource', 'idempotencyTableName', 'quarantineQueueUrl', 'queueUrl', 'lookQueueUrl', 'lookQuarantineQueueUrl', 'receiverName'],
    numbers: ['idempotencyTtlSeconds', 'maxReceiveCount', 'maxVerificationAttempts', 'safetyMarginMs', 'recoveredGraceSeconds', 'lookQueryShare'],
    objects: ['boletoStatuses', 'boletoMovements', 'paymentStatuses'],
  });
}
