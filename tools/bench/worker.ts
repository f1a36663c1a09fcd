/**
 * A benchmark's function process: loads handler bundles as the Lambda runtime would (once, with
 * the function's environment) and drives them with load its parent asks for over IPC, timing
 * each call. Started by `npm run bench` (`BenchWorker`); not meant to be run by hand.
 */
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { encodeStoredNotification } from '../../lambda/store/stored-notification';
import { lambdaContext } from '../local-aws/lambda-invoke';
import { restProxyEvent } from '../local-aws/api-gateway';
import { resolveLocalhostSubdomains } from '../local-aws/local-env';
import { closedLoop } from './stats';
import type { BenchTask, BenchTaskResult } from './worker-protocol';

resolveLocalhostSubdomains();

type Handler = (event: unknown, context: unknown) => Promise<unknown>;
const loaded = new Map<string, Handler>();

function load(entry: string, exportName = 'handler'): Handler {
  const key = `${entry}#${exportName}`;
  let handler = loaded.get(key);
  if (!handler) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the bundle is chosen at run time, as the Lambda runtime does
    handler = (require(entry) as Record<string, Handler>)[exportName];
    if (typeof handler !== 'function') throw new Error(`${entry} has no export named ${exportName}`);
    loaded.set(key, handler);
  }
  return handler;
}

function context(timeoutMs: number) {
  return lambdaContext({ functionName: 'bench', deadline: Date.now() + timeoutMs, region: process.env.AWS_REGION });
}

/** Fails when the answer is not what a healthy run gives: a benchmark of errors measures nothing. */
function expectStatus(answer: unknown, what: string): void {
  const status = (answer as { statusCode?: number } | undefined)?.statusCode;
  if (status !== 200) throw new Error(`${what} answered ${status ?? JSON.stringify(answer)}; the benchmark needs every call to succeed`);
}

/**
 * A full collection before a timed run, so no run pays for the garbage of the one before it (the
 * function's own garbage is still collected while it runs). Needs `--expose-gc`.
 */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** The process's CPU time (user + system) since `start`, in ms. */
function cpuMsSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1_000;
}

async function run(task: BenchTask): Promise<BenchTaskResult> {
  switch (task.type) {
    case 'notify': {
      const handler = load(task.entry);
      const body = JSON.stringify(task.body);
      // Events are made before the clock starts: making them is the caller's work, not the handler's.
      // The floor sends what the receiver would store: an envelope of the same size, one per
      // request as the receiver's are (not one string sent again and again, always in cache).
      // Both hold the same API Gateway events in memory (the same live heap for the collector to
      // walk); the floor's also carry the envelope it sends.
      const events = Array.from({ length: task.requests }, () => {
        const event = restProxyEvent({ route: task.route, headers: { Authorization: task.token, 'Content-Type': 'application/json' }, body, sourceIp: '127.0.0.1' });
        return task.floor
          ? { ...event, messageBody: encodeStoredNotification({ route: task.route, receivedAt: new Date().toISOString(), requestId: randomUUID(), sourceIp: '127.0.0.1', contentType: 'application/json' }, Buffer.from(body)), route: task.route }
          : event;
      });
      collectGarbage();
      const cpu = process.cpuUsage();
      const { latenciesMs, elapsedMs } = await closedLoop(task.requests, task.concurrency, async (index) => {
        expectStatus(await handler(events[index], context(6_000)), task.entry);
      });
      return { type: 'timed', latenciesMs, elapsedMs, cpuMs: cpuMsSince(cpu) };
    }
    case 'batches': {
      const handler = load(task.entry, task.exportName);
      let failed = 0;
      collectGarbage();
      const cpu = process.cpuUsage();
      const { latenciesMs, elapsedMs } = await closedLoop(task.batches.length, task.concurrency, async (index) => {
        const event: SQSEvent = {
          Records: task.batches[index].map((body) => ({
            messageId: randomUUID(), receiptHandle: randomUUID(), body, md5OfBody: '', eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:bench', awsRegion: 'us-east-1', messageAttributes: {},
            attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()), SenderId: 'bench', ApproximateFirstReceiveTimestamp: String(Date.now()) },
          })),
        };
        const answer = await handler(event, context(task.timeoutMs)) as { batchItemFailures?: unknown[] } | undefined;
        failed += answer?.batchItemFailures?.length ?? 0;
      });
      return { type: 'timed', latenciesMs, elapsedMs, cpuMs: cpuMsSince(cpu), failedRecords: failed };
    }
  }
}

process.on('message', (task: BenchTask) => {
  run(task).then(
    (result) => process.send?.({ ok: true, result }),
    (error: unknown) => process.send?.({ ok: false, error: error instanceof Error ? error.stack ?? error.message : String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send?.({ ok: true, result: { type: 'ready' } });
