export { ReconciliationSweep, type ReconciliationOptions, type ReconciliationSweepOptions, type ReconciliationSweepProps, type TrackPaymentProducer } from './reconciliation-sweep';
