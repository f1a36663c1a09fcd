import { SWEEP_SETTINGS_ENV, type SweepSettings } from '../../contracts/reconciliation';
import { readSettings } from '../shared/settings';

/** Reads and checks the sweep settings the construct put in the environment (every default filled: the handler applies none). */
export function readSweepSettings(env: NodeJS.ProcessEnv): SweepSettings {
  return readSettings<SweepSettings>(
    env[SWEEP_SETTINGS_ENV],
    { where: SWEEP_SETTINGS_ENV, setBy: 'ReconciliationSweep' },
    {
      strings: ['idempotencyTableName', 'queueUrl', 'receiverName'],
      numbers: ['lookbackDays', 'paymentMaxAgeDays', 'safetyMarginMs'],
    },
  );
}
