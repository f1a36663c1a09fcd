/**
 * The handlers' spans, through `@opentelemetry/api` only: a no-op unless an SDK is registered (AWS's
 * layer under `TracingMode.OPENTELEMETRY`, or the local runner's). The context crosses our hops as
 * a `traceparent` the library writes and reads itself, whatever propagators the SDK was given.
 */
import {
  type Attributes,
  type Context,
  context,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
} from '@opentelemetry/api';
import { TRACEPARENT, TRACEPARENT_PATTERN, TRACER_NAME, traceIdOf } from '../../contracts/tracing';

export { SpanKind, trace };
export type { Span };

const tracer = () => trace.getTracer(TRACER_NAME);

/**
 * The span of work done outside any trace. The library's spans only continue a trace: under
 * AWS's layer (and the local runner's stand-in) every invocation has its span, and a record its
 * traceparent; with no SDK there is neither, and the handlers make no span at all.
 */
const NO_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

export interface SpanOptions {
  /** The span's parent. @default the active context */
  readonly parent?: Context;
  /** Links (the batch span's to each record's context; fast start drops them, so nothing depends on them). */
  readonly links?: Link[];
  /** @default SpanKind.INTERNAL */
  readonly kind?: SpanKind;
}

/**
 * Runs `fn` in a span named `name`, child of `options.parent` or of the active context, and ends
 * it: with an error status (the error's class only, never its message) when `fn` throws.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
  options: SpanOptions = {},
): Promise<T> {
  const parent = options.parent ?? context.active();
  // No trace to continue (no SDK, so no invocation span): no span, no closure, no extra promise.
  if (!trace.getSpanContext(parent)) return fn(NO_SPAN);
  return tracer().startActiveSpan(
    name,
    { attributes, kind: options.kind ?? SpanKind.INTERNAL, links: options.links },
    parent,
    async (span) => {
      try {
        return await fn(span);
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Starts a span that the caller ends (for a stretch of synchronous and asynchronous work). */
export function startSpan(name: string, attributes: Attributes = {}, kind = SpanKind.INTERNAL): Span {
  return trace.getSpanContext(context.active()) ? tracer().startSpan(name, { attributes, kind }) : NO_SPAN;
}

/** The active context's (or `span`'s) `traceparent`, or undefined when it has no valid span context (no SDK, no parent). */
export function currentTraceparent(ctx: Context | Span = context.active()): string | undefined {
  const span = 'spanContext' in ctx ? ctx.spanContext() : trace.getSpanContext(ctx);
  if (!span || !isSpanContextValid(span)) return undefined;
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The active trace's id, as a field to spread (nothing when untraced). */
export function currentTraceId(): { traceId?: string } {
  const traceId = traceIdOf(currentTraceparent());
  return traceId ? { traceId } : {};
}

/**
 * The context a `traceparent` carries, or undefined for anything else: whoever may send to a queue
 * can write the attribute, so a malformed one is ignored (the record is processed all the same).
 */
export function contextFromTraceparent(value: unknown): Context | undefined {
  if (typeof value !== 'string' || !traceIdOf(value)) return undefined;
  const [, traceId, spanId, flags] = TRACEPARENT_PATTERN.exec(value)!;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  });
}

/** The `traceparent` SQS message attribute of the active context, to spread into `MessageAttributes` (nothing when there is none). */
export function traceparentAttribute(of?: Span): Record<string, { DataType: 'String'; StringValue: string }> {
  const value = currentTraceparent(of);
  return value ? { [TRACEPARENT]: { DataType: 'String', StringValue: value } } : {};
}

/** `MessageAttributes` holding only the active context's `traceparent`, to spread into a SendMessage input (nothing when there is none). */
export function tracedAttributes(of?: Span): { MessageAttributes?: ReturnType<typeof traceparentAttribute> } {
  const attributes = traceparentAttribute(of);
  return TRACEPARENT in attributes ? { MessageAttributes: attributes } : {};
}

/** A lambda SQS record's `traceparent` attribute, as it arrives in the event. */
export function recordTraceparent(record: {
  readonly messageAttributes?: Record<string, { stringValue?: string } | undefined>;
}): string | undefined {
  return record.messageAttributes?.[TRACEPARENT]?.stringValue;
}

/**
 * A bank URL's path as a route template: a segment that is not a plain lowercase word (or a
 * version, `v3`) becomes `{id}`, and the query is dropped, so no id, key or txid reaches a span.
 */
export function routeTemplate(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return '{unparsed}';
  }
  return path
    .split('/')
    .map((segment) =>
      segment === '' || /^[a-z][a-z_-]{0,23}$/.test(segment) || /^v\d{1,2}$/.test(segment) ? segment : '{id}',
    )
    .join('/');
}
