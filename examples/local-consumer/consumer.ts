/**
 * A consumer of verified events, run by the local runner the way an EventBridge rule's Lambda
 * target would run it:
 *
 *   npm run demo -- --consumer examples/local-consumer/consumer.ts
 *
 * Point `--consumer` at your own module (TypeScript or JavaScript) exporting `handler`, or name
 * another export with `path#exportName`. It runs in its own process; what it logs is shown by the
 * demo, prefixed `consumer │`. Act on `detail.state` (the bank's verified state), order a
 * subject's events by `detail.subject.sequence`, and deduplicate by `detail.idempotencyKey`:
 * EventBridge delivers at least once.
 *
 * A traced receiver's events carry `detail.traceparent`: the consumer's span continues the trace
 * from it (EventBridge passes no trace header to a target). Without an OpenTelemetry SDK (AWS's
 * layer on your function, or the local runner's stand-in) the span is a no-op.
 */
import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import type { EventBridgeEvent } from 'aws-lambda';
import type { BankEventDetail } from '../../lib';

export async function handler(event: EventBridgeEvent<string, BankEventDetail>): Promise<void> {
  const { detail } = event;
  const parent = detail.traceparent
    ? propagation.extract(ROOT_CONTEXT, { traceparent: detail.traceparent })
    : context.active();
  const span = trace
    .getTracer('local-consumer')
    .startSpan('consume', { attributes: { 'bank.detail_type': event['detail-type'] } }, parent);
  console.log(
    JSON.stringify({
      message: `${event['detail-type']}: ${detail.state.status}`,
      idempotencyKey: detail.idempotencyKey,
      subject: detail.subject.id,
      sequence: detail.subject.sequence,
    }),
  );
  span.end();
  return Promise.resolve();
}
