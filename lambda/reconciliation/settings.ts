import { SWEEP_SETTINGS_ENV, type SweepSettings } from '../../contracts/reconciliation';

/** Reads and checks the sweep settings the construct put in the environment (every default filled: the handler applies none). */
export function readSweepSettings(env: NodeJS.ProcessEnv): SweepSettings {
  const raw = env[SWEEP_SETTINGS_ENV];
  const fix = '(the construct sets it; redeploy rather than editing it)';
  if (!raw) throw new Error(`${SWEEP_SETTINGS_ENV} is not set ${fix}`);
  let parsed: Partial<SweepSettings>;
  try {
    parsed = JSON.parse(raw) as Partial<SweepSettings>;
  } catch {
    throw new Error(`${SWEEP_SETTINGS_ENV} is not JSON ${fix}`);
  }
  const strings = (['idempotencyTableName', 'queueUrl'] as const).filter((key) => typeof parsed[key] !== 'string' || !parsed[key]);
  const numbers = (['lookbackDays', 'paymentMaxAgeDays', 'safetyMarginMs'] as const).filter((key) => !(typeof parsed[key] === 'number' && parsed[key] >= 0));
  const missing = [...strings, ...numbers];
  if (missing.length) throw new Error(`${SWEEP_SETTINGS_ENV} lacks ${missing.join(', ')} ${fix}`);
  return parsed as SweepSettings;
}
