/** Small statistics for the benchmarks: percentiles by the nearest-rank method, and medians. */

/** The p-th percentile (0 < p ≤ 100) of `values` by nearest rank: the smallest value with at least p % of values at or below it. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile of no values: the benchmark recorded nothing to summarise');
  if (!(p > 0 && p <= 100)) throw new Error(`percentile must be in (0, 100], got ${p}`);
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil((p / 100) * sorted.length) - 1];
}

/** The median (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values: the benchmark recorded nothing to summarise');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Rounds to `digits` decimals, for results a person reads. */
export function round(value: number, digits = 3): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** A timed run as measured: `latenciesMs` per call, `elapsedMs` wall time for all of them. */
export interface TimedRun {
  readonly latenciesMs: readonly number[];
  readonly elapsedMs: number;
  /** What the rate counts, when not the calls (a call that handles a batch of 10 is 10 records). @default latenciesMs.length */
  readonly operations?: number;
  /** CPU time the measured process used during the run, when known. */
  readonly cpuMs?: number;
}

/** Latency and rate of one timed run, and its CPU time per operation when it was measured. */
export interface RunSummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly perSecond: number;
  readonly cpuMsPerOperation?: number;
}

export function summarizeRun(run: TimedRun): RunSummary {
  const operations = run.operations ?? run.latenciesMs.length;
  return {
    count: run.latenciesMs.length,
    p50Ms: percentile(run.latenciesMs, 50),
    p99Ms: percentile(run.latenciesMs, 99),
    perSecond: operations / (run.elapsedMs / 1000),
    ...(run.cpuMs === undefined ? {} : { cpuMsPerOperation: run.cpuMs / operations }),
  };
}

/**
 * Runs `operation` `total` times with `concurrency` callers in a closed loop (each starts its
 * next call when the last one ends) and returns each call's latency and the wall time.
 * A failed call fails the run: a benchmark of errors measures nothing.
 */
export async function closedLoop(total: number, concurrency: number, operation: (index: number) => Promise<void>): Promise<{ latenciesMs: number[]; elapsedMs: number }> {
  const latenciesMs: number[] = [];
  let next = 0;
  const started = performance.now();
  const caller = async (): Promise<void> => {
    while (next < total) {
      const index = next++;
      const t0 = performance.now();
      await operation(index);
      latenciesMs.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, caller));
  return { latenciesMs, elapsedMs: performance.now() - started };
}
