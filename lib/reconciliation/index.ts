export { ReconciliationSweep } from './reconciliation-sweep';
export type {
  ReconciliationOptions,
  ReconciliationSweepOptions,
  ReconciliationSweepProps,
  TrackPaymentProducer,
} from './reconciliation-sweep-props';
