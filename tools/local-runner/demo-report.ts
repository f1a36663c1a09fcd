/**
 * What `npm run demo` reports: its summary table, the trace of one settlement from the bank's POST
 * to the consumer, and whether docs/local-runner.md's sample summary is what the run printed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BankEventDetailType } from '../../contracts/events';
import { ProcessorMetric } from '../../contracts/processor';
import { traceIdOf } from '../../contracts/tracing';
import type { DeliveryRecord } from '../../simulator/notifier';
import type { OtlpCollector } from '../local-aws/otlp-collector';
import type { AuditReport } from './audit';
import type { LocalRunner } from './runner';

/** One line of the summary table. */
const row = (label: string, value: string | number, indent = 0): string =>
  `  ${' '.repeat(indent)}${label.padEnd(52 - indent)}${String(value).padStart(8)}`;

export function summaryTable(
  runner: LocalRunner,
  deliveries: readonly DeliveryRecord[],
  audit: AuditReport,
  deliberateQuarantines: number,
): string[] {
  const counts = runner.counts();
  const attempted = deliveries.filter((d) => d.outcome !== 'NÃO ENVIADO');
  const sent = new Set(attempted.map((d) => d.notificationId));
  const delivered = attempted.filter((d) => d.outcome === 'ENTREGUE').length;
  const byType = new Map<string, number>();
  for (const event of runner.verifiedEvents()) byType.set(event.detailType, (byType.get(event.detailType) ?? 0) + 1);
  const lines = [
    row('Notifications sent by the bank', sent.size),
    row('Deliveries (with the duplicates)', attempted.length),
    row('Answered 200 (ENTREGUE)', delivered),
    row('NÃO ENTREGUE', attempted.filter((d) => d.outcome === 'NÃO ENTREGUE').length),
    row('Sent by the demo with the token, answered 200', (counts.answered[200] ?? 0) - delivered),
    row('Refused: no or wrong token (401)', counts.answered[401] ?? 0),
    row('Enqueued', counts.metrics.NotificationsStored ?? 0),
    row('Verified events', counts.verifiedEvents),
    ...Object.values(BankEventDetailType)
      .filter((type) => byType.has(type))
      .map((type) => row(type, byType.get(type)!, 2)),
    row('Duplicates suppressed', counts.metrics[ProcessorMetric.DUPLICATES] ?? 0),
    ...(counts.metrics[ProcessorMetric.FOREIGN]
      ? [row("Another customer's Pix dropped (never published)", counts.metrics[ProcessorMetric.FOREIGN])]
      : []),
    row(`Quarantined (${deliberateQuarantines} deliberate)`, counts.quarantined),
  ];
  if (runner.consumer)
    lines.push(
      row(
        'Delivered to the consumer',
        `${counts.consumerInvocations - counts.consumerErrors}/${counts.consumerInvocations}`,
      ),
    );
  lines.push(row('One event per change, every 200 accounted for', audit.ok ? 'yes' : 'NO'));
  return lines;
}

/**
 * The trace of the published settlement of boleto `nossoNumero` as a tree, and whether it holds
 * every hop: the POST, the check, the enqueue, the record, a bank query, the write, publish, the consumer.
 */
export async function traceOf(
  runner: LocalRunner,
  collector: OtlpCollector,
  nossoNumero: string,
): Promise<{ lines: string[]; ok: boolean }> {
  const event = runner.events
    .ofType(BankEventDetailType.BOLETO_SETTLED)
    .find((e) => (e.detail as { subject: { nossoNumero?: string } }).subject.nossoNumero === nossoNumero);
  const traceId = traceIdOf((event?.detail as { traceparent?: string } | undefined)?.traceparent);
  if (!traceId) return { lines: ['✗ the event carries no traceparent'], ok: false };
  const hops = ['POST /boleto', 'check', 'enqueue', 'process record', 'write subject', 'publish', 'consume'];
  const has = () => hops.every((hop) => collector.trace(traceId).some((span) => span.name === hop));
  for (let waited = 0; !has() && waited < 5_000; waited += 100)
    await new Promise((resolve) => setTimeout(resolve, 100));
  const spans = collector.trace(traceId);
  const missing = hops.filter((hop) => !spans.some((span) => span.name === hop));
  const query = spans.some((span) => /^GET \//.test(span.name));
  return {
    lines: [
      ...collector.tree(traceId),
      ...missing.map((hop) => `✗ no ${hop} span`),
      ...(query ? [] : ['✗ no bank query span']),
    ],
    ok: !missing.length && query,
  };
}

/**
 * Where docs/local-runner.md's sample summary (its ```text block that starts with "Summary")
 * differs from what this run printed, or undefined: the docs cannot drift from the demo CI runs.
 * The run's seconds are not in it (the README gives the demo's time as a range).
 */
export function docSampleDrift(
  summary: readonly string[],
  markdown = readFileSync(join(__dirname, '..', '..', 'docs', 'local-runner.md'), 'utf8'),
): string | undefined {
  const block = /```text\n(Summary\n[\s\S]*?)```/.exec(markdown)?.[1];
  if (!block) return 'it has no ```text block starting with Summary';
  const sample = block.replace(/\n$/, '').split('\n');
  for (let i = 0; i < Math.max(sample.length, summary.length); i++) {
    if (sample[i] !== summary[i])
      return `line ${i + 1}: the docs say ${JSON.stringify(sample[i] ?? '(nothing)')}, the run ${JSON.stringify(summary[i] ?? '(nothing)')}`;
  }
  return undefined;
}
