/**
 * `lambda/shared/telemetry.ts` with no `@opentelemetry/api` and no span: bundled in its place by
 * the bench's tracing section, the receiver as it would be had it no tracing code at all (the
 * "without" its API-only cost is measured against).
 */
const NO_SPAN = { setAttribute: () => NO_SPAN, setStatus: () => NO_SPAN, end: () => undefined };

export const SpanKind = { INTERNAL: 0, SERVER: 1, CLIENT: 2, PRODUCER: 3, CONSUMER: 4 } as const;

export function inSpan<T>(_name: string, _attributes: unknown, fn: (span: typeof NO_SPAN) => Promise<T>): Promise<T> {
  return fn(NO_SPAN);
}

export function startSpan(): typeof NO_SPAN {
  return NO_SPAN;
}

export function currentTraceparent(): undefined {
  return undefined;
}

export function currentTraceId(): Record<string, never> {
  return {};
}

export function contextFromTraceparent(): undefined {
  return undefined;
}

export function traceparentAttribute(): Record<string, never> {
  return {};
}

export function tracedAttributes(): Record<string, never> {
  return {};
}

export function recordTraceparent(): undefined {
  return undefined;
}

export function routeTemplate(): string {
  return '';
}
