import { SWEEP_SETTINGS_ENV, type SweepSettings } from '../../contracts/reconciliation';
import { readConstructSettings } from '../shared/runtime';

/** Reads and checks the sweep settings the construct put in the environment (every default filled: the handler applies none). */
export function readSweepSettings(env: NodeJS.ProcessEnv): SweepSettings {
  return readConstructSettings<SweepSettings>(env[SWEEP_SETTINGS_ENV], SWEEP_SETTINGS_ENV, {
    strings: ['idempotencyTableName', 'queueUrl'],
    numbers: ['lookbackDays', 'paymentMaxAgeDays', 'safetyMarginMs'],
  });
}
