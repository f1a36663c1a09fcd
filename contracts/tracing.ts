/**
 * Names of the trace context the library carries across the hops it owns (the receiver's and the
 * processor's SQS messages, the sweep's look requests, the published event's detail): W3C Trace
 * Context's `traceparent`, version 00. Imported by the handlers, the local runner and tests alike.
 */

/** The SQS message attribute, and the field of a verified event's detail, that carry the context. */
export const TRACEPARENT = 'traceparent';

/** A `traceparent` the library writes and reads: version 00, a trace id, a parent span id, flags (all lowercase hex). */
export const TRACEPARENT_PATTERN = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The instrumentation scope of the library's spans. */
export const TRACER_NAME = 'cdk-bank-webhooks';

/** Whether `value` is a trace id the library writes and prints: 32 lowercase hex digits, not all zero (W3C's invalid id). */
export function isTraceId(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{32}$/.test(value) && !/^0+$/.test(value);
}

/** The trace id a `traceparent` names, or undefined when it is not one the library reads. */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  const match = traceparent === undefined ? null : TRACEPARENT_PATTERN.exec(traceparent);
  if (!match || !isTraceId(match[1]) || /^0+$/.test(match[2])) return undefined;
  return match[1];
}
