export { ReconciliationSweep, type ReconciliationOptions, type ReconciliationSweepOptions, type ReconciliationSweepProps } from './reconciliation-sweep';
