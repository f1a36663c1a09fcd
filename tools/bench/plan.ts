/** What each measurement of `npm run bench` uses (docs/performance.md describes the same), the bundles it measures, and how its tables write figures. */
import { join } from 'node:path';
import { HANDLER_OUT_DIR } from '../bundle-handlers';

/** What each measurement uses; docs/performance.md describes the same. */
export const PLAN = {
  // Rounds per fork (process): 3 forks × 4 counted rounds.
  receiver: { concurrency: 16, requests: 3_000, forks: 3, warmup: 2, repetitions: 4 },
  coldStart: { processes: 24 },
  // Repetitions: a whole rotation of the runners' order per fork (pairedRatio's blocks).
  processor: { batchSize: 10, recordsPerRun: 200, forks: 3, warmup: 1, repetitions: 4 },
  memory: { requests: 2_000, records: 500, batchSize: 10 },
  rateLimited: { concurrencies: [1, 4, 16], rounds: 3, records: 150, queryLimitPerSecond: 10, batchSize: 10, functionTimeoutMs: 30_000 },
  lookFlood: { looks: 200, queryLimitPerSecond: 5, concurrency: 2, rounds: 15, functionTimeoutMs: 30_000 },
  reconciliation: { settledPerDay: 400, lostFraction: 0.02, steadySweeps: 5 },
  frontDoor: { ratePerSecond: 200, seconds: 30, rounds: 3, warmupSeconds: 5, latencySeconds: 10, latencyRates: [200, 50] },
  synth: { runs: 3 },
} as const;

export const receiverBundle = join(HANDLER_OUT_DIR, 'receiver', 'index.js');
export const processorBundle = join(HANDLER_OUT_DIR, 'processor', 'index.js');

/** A duration for a table (`n/a` when missing). */
export const ms = (value: number | undefined, digits = 1) => (value === undefined ? 'n/a' : `${value.toFixed(digits)} ms`);
/** A rate for a table. */
export const rate = (value: number) => `${value.toFixed(0)}/s`;
