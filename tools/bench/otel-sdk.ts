/**
 * What the bench can see of AWS's layer: the OpenTelemetry SDK of the layer's own version,
 * registered before the handler loads (as the layer's wrapper does), with W3C propagation, a span
 * per invocation, and a flush at its end; its exporter drops the spans (their export over the
 * network, and the layer's automatic instrumentation of the AWS SDK and of HTTP, are not seen).
 * Bundled as an entry in front of the receiver's bundle (`BENCH_TRACED_BUNDLE`).
 */
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { BatchSpanProcessor, BasicTracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';

const dropping: SpanExporter = {
  export: (_spans: ReadableSpan[], done) => done({ code: ExportResultCode.SUCCESS }),
  shutdown: () => Promise.resolve(),
};
const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping)] });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(provider);
const tracer = trace.getTracer('bench-layer');

type Handler = (event: unknown, context: unknown) => Promise<unknown>;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the bundle under test is chosen at run time
const inner = (require(process.env.BENCH_TRACED_BUNDLE!) as { handler: Handler }).handler;

export const handler: Handler = (event, lambdaContext) => tracer.startActiveSpan('invocation', { kind: SpanKind.SERVER }, async (span) => {
  try {
    return await inner(event, lambdaContext);
  } finally {
    span.end();
    await provider.forceFlush();
  }
});
