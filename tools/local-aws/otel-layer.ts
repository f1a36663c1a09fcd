/**
 * The local stand-in for AWS's OpenTelemetry layer: in a local Lambda environment whose function
 * the template gives the layer's wrapper (`AWS_LAMBDA_EXEC_WRAPPER=/opt/otel-instrument`), and when
 * the runner collects spans (`WorkerEnv.OTLP_TRACES_URL`), it registers the SDK as the layer does
 * (otel-sdk.ts: the layer's own version, so the handler's bundled `@opentelemetry/api` finds it as
 * it would on Lambda); each span is sent to the collector over OTLP/HTTP (JSON) before the
 * invocation answers, as the layer flushes.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ADOT_ENV } from '../../lib/core/open-telemetry-layers';
import { WorkerEnv } from './lambda-worker-protocol';
import { type InvocationWrapper, registerLayerSdk } from './otel-sdk';

/** Registers the SDK when this environment is traced; returns how to wrap each invocation. */
export function localOpenTelemetryLayer(env: NodeJS.ProcessEnv = process.env): InvocationWrapper | undefined {
  const url = env[WorkerEnv.OTLP_TRACES_URL];
  if (!url || env[ADOT_ENV.wrapper[0]] !== ADOT_ENV.wrapper[1]) return undefined;
  return registerLayerSdk(
    env.AWS_LAMBDA_FUNCTION_NAME ?? 'local-function',
    new SimpleSpanProcessor(new OTLPTraceExporter({ url })),
  );
}
