/**
 * What tracing costs the receiver, side by side in one run: its bundle as shipped (the handlers'
 * spans through `@opentelemetry/api`, no SDK loaded: tracing off, or X-Ray only) against the same
 * handler bundled without any tracing code, and against the shipped bundle behind the
 * OpenTelemetry SDK of AWS's layer (otel-sdk.ts: what the bench can see of the layer).
 */
import { join } from 'node:path';
import { restProxyEvent } from '../local-aws/api-gateway';
import { bundleLambdaEntry, ROOT } from '../bundle-handlers';
import { BenchWorker } from './bench-worker';
import { type ColdStart, coldStartMs } from './cold-start';
import { type BenchContext, forked, medians, pairedRatio } from './sections';
import { median, round } from './stats';

interface TracingPlan {
  readonly receiver: { readonly concurrency: number; readonly requests: number; readonly forks: number; readonly warmup: number; readonly repetitions: number };
  readonly coldStart: { readonly processes: number };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

export async function tracingSection(ctx: BenchContext, plan: TracingPlan, receiverBundle: string): Promise<void> {
  const { peers, results, details, logs, section, work, preload } = ctx;
  const withoutApi = join(work, 'receiver-no-tracing', 'index.js');
  const withSdk = join(work, 'receiver-with-sdk', 'index.js');
  await bundleLambdaEntry(join(ROOT, 'lambda', 'receiver', 'index.ts'), withoutApi, { replace: { [join(ROOT, 'lambda', 'shared', 'telemetry')]: join(__dirname, 'no-telemetry.ts') } });
  await bundleLambdaEntry(join(__dirname, 'otel-sdk.ts'), withSdk);
  const environment = { ...peers.receiverEnvironment(), BENCH_TRACED_BUNDLE: receiverBundle };
  const body = await ctx.notificationBody();

  const p = plan.receiver;
  const runners = ['api', 'none', 'sdk'] as const;
  const runs = await forked(p.forks, p, () => {
    const worker = new BenchWorker(environment, join(logs, 'tracing.log'));
    const notify = (entry: string) => () => worker.run({ type: 'notify', entry, floor: false, route: 'payments', token: peers.token, body, requests: p.requests, concurrency: p.concurrency });
    return { runners: { api: notify(receiverBundle), none: notify(withoutApi), sdk: notify(withSdk) }, stop: () => worker.stop() };
  }, () => peers.purgeQueue());
  results.tracing_api_p99_ratio = round(pairedRatio(runs.api, runs.none, 'p99Ms', runners.length));
  results.tracing_api_throughput_ratio = round(pairedRatio(runs.api, runs.none, 'perSecond', runners.length));

  const event = restProxyEvent({ route: 'payments', headers: { Authorization: peers.token, 'Content-Type': 'application/json' }, body: JSON.stringify(body), sourceIp: '127.0.0.1' });
  const starts: Record<(typeof runners)[number], ColdStart[]> = { api: [], none: [], sdk: [] };
  const entries = { api: receiverBundle, none: withoutApi, sdk: withSdk };
  for (const name of runners) await coldStartMs(entries[name], event, environment, preload); // the file system cache
  for (let i = 0; i < plan.coldStart.processes; i++) {
    for (const name of runners) starts[name].push(await coldStartMs(entries[name], event, environment, preload));
  }
  const cold = (name: (typeof runners)[number]) => median(starts[name].map((s) => s.ms));
  results.tracing_api_cold_start_ratio = round(cold('api') / cold('none'));

  const [a, n, s] = [medians(runs.api), medians(runs.none), medians(runs.sdk)];
  const sdk = {
    p99_ratio: round(pairedRatio(runs.sdk, runs.api, 'p99Ms', runners.length)),
    throughput_ratio: round(pairedRatio(runs.sdk, runs.api, 'perSecond', runners.length)),
    cold_start_ratio: round(cold('sdk') / cold('api')),
    cpu_ms_per_request: s.cpuMsPerOperation,
  };
  details.tracing = { api: a, no_tracing_code: n, sdk: s, cold_start_ms: { api: cold('api'), none: cold('none'), sdk: cold('sdk') }, sdk_over_api: sdk, plan };
  section(`Tracing: the receiver with its spans through the API alone, without any tracing code, and behind the layer's SDK (concurrency ${p.concurrency}, medians)`, [
    `  ${'bundle'.padEnd(52)}${'p99'.padStart(10)}${'rate'.padStart(10)}${'cold start'.padStart(12)}`,
    `  ${'as shipped (API only, no SDK: tracing off or XRAY)'.padEnd(52)}${ms(a.p99Ms).padStart(10)}${`${a.perSecond.toFixed(0)}/s`.padStart(10)}${ms(cold('api')).padStart(12)}`,
    `  ${'no tracing code'.padEnd(52)}${ms(n.p99Ms).padStart(10)}${`${n.perSecond.toFixed(0)}/s`.padStart(10)}${ms(cold('none')).padStart(12)}`,
    `  ${'as shipped, behind the layer\'s SDK (OPENTELEMETRY)'.padEnd(52)}${ms(s.p99Ms).padStart(10)}${`${s.perSecond.toFixed(0)}/s`.padStart(10)}${ms(cold('sdk')).padStart(12)}`,
    `  SDK over API only: p99 ×${sdk.p99_ratio}, rate ×${sdk.throughput_ratio}, cold start ×${sdk.cold_start_ratio} (no target: the layer's own start and its export are not seen here)`,
  ].join('\n'));
}
