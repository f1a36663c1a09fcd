/**
 * The OpenTelemetry SDK as AWS's layer sets it up before a handler loads, of the layer's own
 * version: a tracer provider with the function's resource and the given span processor, async
 * context, W3C propagation, and a span per invocation flushed at its end. The local runner's
 * stand-in for the layer (otel-layer.ts) sends its spans to a collector; the bench's
 * (tools/bench/otel-sdk.ts) drops them.
 */
import { context, propagation, type Span, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** Wraps an invocation of `event` in a span and flushes after it. */
export type InvocationWrapper = <T>(event: unknown, invoke: () => Promise<T>) => Promise<T>;

/**
 * The invocation span's name: the request line for API Gateway's proxy event (there, on AWS, the
 * stage's own X-Ray segment is the first hop), else the function's name, as the layer names it.
 */
function invocationName(event: unknown, functionName: string): string {
  const request = event as { httpMethod?: unknown; resource?: unknown } | null;
  return typeof request?.httpMethod === 'string' && typeof request.resource === 'string'
    ? `${request.httpMethod} ${request.resource}`
    : functionName;
}

/** Registers the SDK globally for `functionName` with `processor`; returns how to wrap each invocation. */
export function registerLayerSdk(functionName: string, processor: SpanProcessor): InvocationWrapper {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': functionName, 'faas.name': functionName }),
    spanProcessors: [processor],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const tracer = trace.getTracer('local-aws-lambda');
  return async (event, invoke) =>
    tracer.startActiveSpan(invocationName(event, functionName), { kind: SpanKind.SERVER }, async (span: Span) => {
      try {
        return await invoke();
      } finally {
        span.end();
        await provider.forceFlush();
      }
    });
}
