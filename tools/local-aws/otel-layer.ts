/**
 * The local stand-in for AWS's OpenTelemetry layer: in a local Lambda environment whose function
 * the template gives the layer's wrapper (`AWS_LAMBDA_EXEC_WRAPPER=/opt/otel-instrument`), and when
 * the runner collects spans (`WorkerEnv.OTLP_TRACES_URL`), it registers an SDK of the version the
 * layer's own SDK is (so the handler's bundled `@opentelemetry/api` finds it as it would on
 * Lambda), W3C trace context as the propagator, and a span per invocation; each span is sent to
 * the collector over OTLP/HTTP (JSON) before the invocation answers, as the layer flushes.
 */
import { context, propagation, type Span, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ADOT_ENV } from '../../lib/core/open-telemetry-layers';
import { WorkerEnv } from './lambda-worker-protocol';


/** Wraps an invocation of `event` in a span and flushes after it. */
export type InvocationWrapper = <T>(event: unknown, invoke: () => Promise<T>) => Promise<T>;

/**
 * The invocation span's name: the request line for API Gateway's proxy event (there, on AWS, the
 * stage's own X-Ray segment is the first hop), else the function's name, as the layer names it.
 */
function invocationName(event: unknown, functionName: string): string {
  const request = event as { httpMethod?: unknown; resource?: unknown } | null;
  return typeof request?.httpMethod === 'string' && typeof request.resource === 'string' ? `${request.httpMethod} ${request.resource}` : functionName;
}

/** Registers the SDK when this environment is traced; returns how to wrap each invocation. */
export function localOpenTelemetryLayer(env: NodeJS.ProcessEnv = process.env): InvocationWrapper | undefined {
  const url = env[WorkerEnv.OTLP_TRACES_URL];
  if (!url || env[ADOT_ENV.wrapper[0]] !== ADOT_ENV.wrapper[1]) return undefined;
  const functionName = env.AWS_LAMBDA_FUNCTION_NAME ?? 'local-function';
  const processor = new SimpleSpanProcessor(new OTLPTraceExporter({ url }));
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': functionName, 'faas.name': functionName }), spanProcessors: [processor] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const tracer = trace.getTracer('local-aws-lambda');
  return async (event, invoke) => tracer.startActiveSpan(invocationName(event, functionName), { kind: SpanKind.SERVER }, async (span: Span) => {
    try {
      return await invoke();
    } finally {
      span.end();
      await provider.forceFlush();
    }
  });
}
