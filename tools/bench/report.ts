/** The benchmark's targets, its results file, and the table it prints. */
import { formatTable } from '../../cli/table';

export { formatTable };

/** Each key of bench/results.json that has a target, with the target and what it measures. */
export const TARGETS = {
  receiver_p99_ratio: { max: 1.1, what: 'receiver p99 / bare SendMessage p99 (concurrency 16)' },
  receiver_throughput_ratio: { min: 0.93, what: 'receiver requests/s / bare SendMessage/s (one process)' },
  receiver_pix_p99_ratio: { max: 1.1, what: 'receiver p99 on /pix / bare SendMessage p99 of its envelope (concurrency 16)' },
  receiver_pix_throughput_ratio: { min: 0.93, what: 'receiver requests/s on /pix / bare SendMessage/s of its envelope (one process)' },
  cold_start_ratio: { max: 1.1, what: 'receiver load + first call / SDK clients + one send (fresh node)' },
  tracing_api_p99_ratio: { max: 1.05, what: 'receiver p99 with its spans through @opentelemetry/api, no SDK / the same handler with no tracing code' },
  tracing_api_cold_start_ratio: { max: 1.05, what: 'receiver load + first call, API only / with no tracing code (fresh node)' },
  processor_throughput_ratio: { min: 0.8, what: 'processor records/s / plain loop with its external calls' },
  processor_pix_throughput_ratio: { min: 0.8, what: 'processor Pix callbacks/s / plain loop with its external calls (GET /pix under mutual TLS)' },
  processor_recurring_throughput_ratio: { min: 0.8, what: "processor recurring charge callbacks/s / plain loop with its external calls (GET /cobr under mutual TLS)" },
  pix_burst_last_event_after_seconds: { max: 60, what: 'Pix burst (50/s for a minute, 10 queries/s): last callback to last Pix Received, verifying by listing' },
  pix_burst_queries_per_pix: { max: 0.1, what: 'the same burst: provider query calls per Pix published, verifying by listing' },
  ack_p99_deadline_fraction: { max: 0.01, what: 'p99 bank POST to 200 at 200/s, 30 s rounds (median) / 10 s deadline' },
  peak_rss_fraction: { max: 0.5, what: 'peak RSS of one environment, one request or batch at a time / its memory size (receiver, processor: the larger)' },
  rate_limited_throughput_ratio_1: { min: 0.9, what: 'distinct changes verified/s / query limit 10/s, 1 invocation at once' },
  rate_limited_throughput_ratio_4: { min: 0.9, what: 'the same, 4 invocations at once' },
  rate_limited_throughput_ratio_16: { min: 0.9, what: 'the same, 16 invocations at once' },
  rate_limited_throughput_ratio: { min: 0.9, what: 'the lowest of the three' },
  rate_limited_429_fraction_1: { max: 0.02, what: '429 answers / query calls, 1 invocation at once' },
  rate_limited_429_fraction_4: { max: 0.02, what: 'the same, 4 invocations at once' },
  rate_limited_429_fraction_16: { max: 0.02, what: 'the same, 16 invocations at once' },
  rate_limited_429_fraction: { max: 0.02, what: 'the highest of the three' },
  requests_per_event: { max: 4, what: 'DynamoDB and EventBridge requests per verified event, 4 invocations at once (median; the journal\'s S3 PUTs apart)' },
  look_flood_ratio: { max: 2, what: 'settlement time to event behind 200 Track Payment events / alone (5/s query limit, median of 15 rounds)' },
} as const;

export type TargetKey = keyof typeof TARGETS;

export interface BenchResults {
  /** ISO date and time of the run. */
  readonly date: string;
  /** The machine's CPU model and count, and the Node version. */
  readonly machine: string;
  readonly results: Readonly<Record<TargetKey, number>> & Readonly<Record<string, number>>;
  /** The figures behind the ratios, and what is reported without a target. */
  readonly details: Readonly<Record<string, unknown>>;
}

export interface TargetCheck {
  readonly key: TargetKey;
  readonly value: number | undefined;
  readonly target: string;
  readonly met: boolean;
}

/** Each target against `results`: a missing or non-finite value is a miss. */
export function checkTargets(results: Readonly<Record<string, number>>): TargetCheck[] {
  return (Object.keys(TARGETS) as TargetKey[]).map((key) => {
    const target: { readonly min?: number; readonly max?: number } = TARGETS[key];
    const value = results[key];
    const finite = typeof value === 'number' && Number.isFinite(value);
    const met = finite && (target.min === undefined || value >= target.min) && (target.max === undefined || value <= target.max);
    return { key, value: finite ? value : undefined, target: target.min !== undefined ? `≥ ${target.min}` : `≤ ${target.max}`, met };
  });
}

/** The targets table: key, value, target, whether it holds, and what it measures. */
export function targetsTable(results: Readonly<Record<string, number>>): string {
  return formatTable(['key', 'value', 'target', 'met', 'what'], checkTargets(results).map((check) => [
    check.key, check.value === undefined ? 'missing' : String(check.value), check.target, check.met ? 'yes' : 'NO', TARGETS[check.key].what,
  ]));
}
