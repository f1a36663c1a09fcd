/**
 * One local Lambda execution environment: a Node process that loads a handler module (a deployed
 * bundle, or a team's own TypeScript) with the function's environment, then runs invocations sent
 * by its parent (`LocalFunction`) over IPC, each with a context counting down to the parent's
 * deadline. Started by `LocalFunction`; not meant to be run by hand.
 */
import type { Context } from 'aws-lambda';
import { lambdaContext } from './lambda-invoke';
import { resolveLocalhostSubdomains } from './local-env';
import { type WorkerReply, type WorkerRequest, WorkerEnv } from './lambda-worker-protocol';

resolveLocalhostSubdomains();
// Before the handler loads, as the layer's wrapper does; the SDK is loaded only when spans are collected.
const traced = process.env[WorkerEnv.OTLP_TRACES_URL]
  ? // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, keeping untraced environments' start as it was
    (require('./otel-layer') as typeof import('./otel-layer')).localOpenTelemetryLayer()
  : undefined;

function errorPayload(error: unknown): { name: string; message: string; stack?: string } {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { name: 'Error', message: String(error) };
}

function send(reply: WorkerReply): void {
  process.send?.(reply);
}

type Handler = (event: unknown, context: Context) => Promise<unknown>;

function load(): Handler {
  const entry = process.env[WorkerEnv.ENTRY];
  const exportName = process.env[WorkerEnv.EXPORT] ?? 'handler';
  if (!entry) throw new Error(`${WorkerEnv.ENTRY} is not set`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the handler module is chosen at run time, as the Lambda runtime does
  const loaded = require(entry) as Record<string, unknown>;
  const handler = loaded[exportName];
  if (typeof handler !== 'function') throw new Error(`${entry} does not export a function named "${exportName}"`);
  return handler as Handler;
}

async function invoke(handler: Handler, request: Extract<WorkerRequest, { type: 'invoke' }>): Promise<void> {
  const context = lambdaContext({
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'local-function',
    deadline: request.deadline,
    region: process.env.AWS_REGION,
    memoryMb: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    requestId: request.requestId,
  });
  try {
    const value = traced
      ? await traced(request.event, () => handler(request.event, context))
      : await handler(request.event, context);
    send({ type: 'result', id: request.id, ok: true, value });
  } catch (error) {
    send({ type: 'result', id: request.id, ok: false, error: errorPayload(error) });
  }
}

let handler: Handler;
try {
  handler = load();
} catch (error) {
  send({ type: 'init-error', error: errorPayload(error) });
  process.exit(1);
}
process.on('message', (request: WorkerRequest) => {
  if (request.type === 'invoke') void invoke(handler, request);
});
// The parent going away ends the environment.
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
