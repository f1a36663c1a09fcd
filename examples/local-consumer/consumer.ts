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
 * It reads an event only when it is one of the receiver's verified events: its `source`, a detail
 * type the library publishes, and the receiver's account (`detail.account`'s `cooperativa` and
 * `posto`), set here by the local runner and on your function by you. This refuses a message
 * another sender put on the way (a direct invoke, a queue the rule does not own); a rule rewritten
 * in the account delivers whatever it is told, with EventBridge's own source and type: that is
 * what the watch's drift alarm is for (docs/events.md).
 *
 * A traced receiver's events carry `detail.traceparent`: the consumer's span continues the trace
 * from it (EventBridge passes no trace header to a target). Without an OpenTelemetry SDK (AWS's
 * layer on your function, or the local runner's stand-in) the span is a no-op.
 */
import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import type { EventBridgeEvent } from 'aws-lambda';
import { BankEventDetailType, type BankEventDetail } from '../../contracts/events';

/** The receiver's `source` (its `eventSource`), and its account as `cooperativa/posto`. */
const EXPECTED_SOURCE = process.env.BANK_WEBHOOKS_EVENT_SOURCE ?? 'cdk-bank-webhooks';
const EXPECTED_ACCOUNT = process.env.BANK_WEBHOOKS_ACCOUNT;
const DETAIL_TYPES: ReadonlySet<string> = new Set(Object.values(BankEventDetailType));

/** Why an event is not one of this receiver's verified events, or undefined when it is. */
export function notOurs(event: EventBridgeEvent<string, BankEventDetail>): string | undefined {
  if (event.source !== EXPECTED_SOURCE) return `source ${JSON.stringify(event.source)} is not ${EXPECTED_SOURCE}`;
  if (!DETAIL_TYPES.has(event['detail-type']))
    return `detail-type ${JSON.stringify(event['detail-type'])} is none of the library's`;
  const account = event.detail?.account;
  if (!EXPECTED_ACCOUNT) return "BANK_WEBHOOKS_ACCOUNT is not set: the receiver's account cannot be checked";
  if (`${account?.cooperativa}/${account?.posto}` !== EXPECTED_ACCOUNT) return "detail.account is not the receiver's";
  return undefined;
}

export async function handler(event: EventBridgeEvent<string, BankEventDetail>): Promise<void> {
  const refused = notOurs(event);
  if (refused) {
    // Not acted on, and not retried: it will never become one of ours.
    console.log(JSON.stringify({ message: 'Not a verified event of this receiver: ignored', reason: refused }));
    return;
  }
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
