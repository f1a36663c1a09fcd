import { closedLoop, median, percentile, round, summarizeRun } from '../../../tools/bench/stats';

it('takes percentiles by nearest rank, whatever the input order', () => {
  const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1
  expect(percentile(values, 50)).toBe(50);
  expect(percentile(values, 99)).toBe(99);
  expect(percentile(values, 100)).toBe(100);
  expect(percentile([7], 99)).toBe(7);
  expect(values[0]).toBe(100); // the input is not sorted in place
});

it('takes the median of odd and even counts', () => {
  expect(median([3, 1, 2])).toBe(2);
  expect(median([4, 1, 3, 2])).toBe(2.5);
});

it('refuses to summarise nothing, or a percentile out of range, saying what was wrong', () => {
  expect(() => percentile([], 99)).toThrow('percentile of no values: the benchmark recorded nothing to summarise');
  expect(() => median([])).toThrow('median of no values');
  expect(() => percentile([1], 0)).toThrow('percentile must be in (0, 100], got 0');
  expect(() => percentile([1], 101)).toThrow('got 101');
});

it('summarises a run as p50, p99 and a rate over the wall time', () => {
  const latenciesMs = Array.from({ length: 200 }, (_, i) => i + 1);
  expect(summarizeRun({ latenciesMs, elapsedMs: 2_000 })).toEqual({ count: 200, p50Ms: 100, p99Ms: 198, perSecond: 100 });
  // Batches: the rate counts records, and CPU time is per record.
  expect(summarizeRun({ latenciesMs, elapsedMs: 2_000, operations: 2_000, cpuMs: 1_500 })).toEqual({ count: 200, p50Ms: 100, p99Ms: 198, perSecond: 1_000, cpuMsPerOperation: 0.75 });
  expect(round(2 / 3)).toBe(0.667);
  expect(round(2 / 3, 1)).toBe(0.7);
});

it('runs a closed loop with at most the given callers at once, timing every call', async () => {
  let inFlight = 0;
  let most = 0;
  const seen: number[] = [];
  const { latenciesMs } = await closedLoop(20, 4, async (index) => {
    inFlight++;
    most = Math.max(most, inFlight);
    seen.push(index);
    await new Promise((resolve) => setImmediate(resolve));
    inFlight--;
  });
  expect(most).toBe(4);
  expect(latenciesMs).toHaveLength(20);
  expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
});

it('fails the run when a call fails: a benchmark of errors measures nothing', async () => {
  await expect(closedLoop(5, 2, (index) => (index === 3 ? Promise.reject(new Error('SendMessage failed')) : Promise.resolve()))).rejects.toThrow('SendMessage failed');
});
