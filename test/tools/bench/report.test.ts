import { checkTargets, formatTable, targetsTable, TARGETS } from '../../../tools/bench/report';
import { forked, pairedRatio } from '../../../tools/bench/sections';
import type { RunSummary } from '../../../tools/bench/stats';

const passing = {
  receiver_p99_ratio: 1.05, receiver_throughput_ratio: 0.95, receiver_pix_p99_ratio: 1.06, receiver_pix_throughput_ratio: 0.94, cold_start_ratio: 1.1,
  processor_throughput_ratio: 0.85, processor_pix_throughput_ratio: 0.86, processor_recurring_throughput_ratio: 0.9, ack_p99_deadline_fraction: 0.006, peak_rss_fraction: 0.33,
  rate_limited_throughput_ratio_1: 0.95, rate_limited_throughput_ratio_4: 0.94, rate_limited_throughput_ratio_16: 0.93, rate_limited_throughput_ratio: 0.93,
  rate_limited_429_fraction_1: 0, rate_limited_429_fraction_4: 0.005, rate_limited_429_fraction_16: 0.01, rate_limited_429_fraction: 0.01,
  look_flood_ratio: 1.2, requests_per_event: 3.9, tracing_api_p99_ratio: 1.01, tracing_api_cold_start_ratio: 1.02,
  pix_burst_last_event_after_seconds: 4.7, pix_burst_queries_per_pix: 0.071,
};

it('checks every target the issue sets, with its bound', () => {
  expect(Object.keys(TARGETS).sort()).toEqual(Object.keys(passing).sort());
  expect(checkTargets(passing).every((check) => check.met)).toBe(true);
  // Bounds are inclusive.
  expect(checkTargets({ ...passing, receiver_p99_ratio: 1.1, processor_throughput_ratio: 0.8 }).every((check) => check.met)).toBe(true);
});

it('names each missed, missing or non-numeric result', () => {
  const checks = checkTargets({
    ...passing, cold_start_ratio: 1.17, processor_throughput_ratio: Number.NaN, peak_rss_fraction: undefined as unknown as number,
    rate_limited_throughput_ratio_16: 0.89, rate_limited_429_fraction_4: 0.03, look_flood_ratio: 14.2, receiver_pix_p99_ratio: 1.2, processor_pix_throughput_ratio: 0.64,
    pix_burst_queries_per_pix: 0.11,
  });
  expect(checks.filter((check) => !check.met).map((check) => [check.key, check.value, check.target])).toEqual([
    ['receiver_pix_p99_ratio', 1.2, '≤ 1.1'],
    ['cold_start_ratio', 1.17, '≤ 1.1'],
    ['processor_throughput_ratio', undefined, '≥ 0.8'],
    ['processor_pix_throughput_ratio', 0.64, '≥ 0.8'],
    ['pix_burst_queries_per_pix', 0.11, '≤ 0.1'],
    ['peak_rss_fraction', undefined, '≤ 0.5'],
    ['rate_limited_throughput_ratio_16', 0.89, '≥ 0.9'],
    ['rate_limited_429_fraction_4', 0.03, '≤ 0.02'],
    ['look_flood_ratio', 14.2, '≤ 2'],
  ]);
  const table = targetsTable({ ...passing, cold_start_ratio: 1.17 });
  expect(table).toMatch(/cold_start_ratio\s+1\.17\s+≤ 1\.1\s+NO/);
  expect(table).toMatch(/receiver_p99_ratio\s+1\.05\s+≤ 1\.1\s+yes/);
});

it('pads table columns to their widest cell', () => {
  expect(formatTable(['a', 'bb'], [['ccc', 'd']])).toBe('a    bb\n---  --\nccc  d');
});

it('takes the ratio round by round, so a slow round slows both sides alike', () => {
  const run = (perSecond: number, p99Ms: number): RunSummary => ({ count: 1, p50Ms: 1, p99Ms, perSecond });
  const subject = [run(90, 11), run(45, 22), run(95, 10)];
  const floor = [run(100, 10), run(50, 20), run(100, 10)];
  expect(pairedRatio(subject, floor, 'perSecond')).toBeCloseTo(0.9);
  expect(pairedRatio(subject, floor, 'p99Ms')).toBeCloseTo(1.1);
});

it('evens out which runner went first by taking rounds in blocks of one full rotation', () => {
  const run = (perSecond: number): RunSummary => ({ count: 1, p50Ms: 1, p99Ms: 1, perSecond });
  // Going second costs 10% here: alternate rounds read 1.0 and 0.81, a block reads 0.9.
  const subject = [run(100), run(81), run(100), run(81), run(100), run(81)];
  const floor = [run(100), run(100), run(100), run(100), run(100), run(100)];
  expect(pairedRatio(subject, floor, 'perSecond', 2)).toBeCloseTo(0.9);
  // Round by round, the median follows whichever order had one round more.
  expect(pairedRatio(subject.slice(0, 5), floor.slice(0, 5), 'perSecond')).toBeCloseTo(1);
  expect(pairedRatio(subject.slice(1, 6), floor.slice(1, 6), 'perSecond')).toBeCloseTo(0.81);
});

it('refuses rounds that do not fill whole blocks, or sides of different lengths', () => {
  const run = (perSecond: number): RunSummary => ({ count: 1, p50Ms: 1, p99Ms: 1, perSecond });
  expect(() => pairedRatio([run(1), run(1), run(1)], [run(1), run(1), run(1)], 'perSecond', 2)).toThrow('pairedRatio needs whole blocks of 2 rounds; got 3');
  expect(() => pairedRatio([run(1)], [run(1), run(1)], 'perSecond')).toThrow('pairedRatio needs as many rounds of each (1 and 2)');
});

it('runs each fork in fresh processes with its own warm-up, keeps every counted round in order, and ends each fork even when it fails', async () => {
  const log: string[] = [];
  let forks = 0;
  const start = () => {
    const fork = ++forks;
    const runner = (name: string) => async (round: number) => {
      log.push(`${fork}:${name}:${round}`);
      if (fork === 3 && round === 1) throw new Error('a run failed');
      return { latenciesMs: [fork * 10 + round], elapsedMs: 1 };
    };
    return { runners: { a: runner('a'), b: runner('b') }, stop: async () => { log.push(`${fork}:stop`); } };
  };
  const runs = await forked(2, { warmup: 1, repetitions: 2 }, start);
  // Warm-up rounds (round 0 of each fork) are not counted; the order rotates within a fork.
  expect(runs.a.map((r) => r.p50Ms)).toEqual([11, 12, 21, 22]);
  expect(log).toEqual(['1:a:0', '1:b:0', '1:b:1', '1:a:1', '1:a:2', '1:b:2', '1:stop', '2:a:0', '2:b:0', '2:b:1', '2:a:1', '2:a:2', '2:b:2', '2:stop']);
  await expect(forked(1, { warmup: 1, repetitions: 2 }, start)).rejects.toThrow('a run failed');
  expect(log[log.length - 1]).toBe('3:stop');
});
