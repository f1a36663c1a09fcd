/**
 * What the bench can see of AWS's layer: the OpenTelemetry SDK of the layer's own version,
 * registered before the handler loads as the layer's wrapper does (tools/local-aws/otel-sdk.ts:
 * W3C propagation, a span per invocation, a flush at its end), with a batch processor whose
 * exporter drops the spans (their export over the network, and the layer's automatic
 * instrumentation of the AWS SDK and of HTTP, are not seen). Bundled as an entry in front of the
 * receiver's bundle (`BENCH_TRACED_BUNDLE`).
 */
import { ExportResultCode } from '@opentelemetry/core';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { registerLayerSdk } from '../local-aws/otel-sdk';

const dropping: SpanExporter = {
  export: (_spans: ReadableSpan[], done) => done({ code: ExportResultCode.SUCCESS }),
  shutdown: () => Promise.resolve(),
};
const traced = registerLayerSdk('bench-receiver', new BatchSpanProcessor(dropping));

type Handler = (event: unknown, context: unknown) => Promise<unknown>;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the bundle under test is chosen at run time
const inner = (require(process.env.BENCH_TRACED_BUNDLE!) as { handler: Handler }).handler;

export const handler: Handler = (event, lambdaContext) => traced(event, () => inner(event, lambdaContext));
