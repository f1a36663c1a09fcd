/**
 * One trace from the bank's POST to the consumer, over the local runner (issue 54): a receiver
 * under TracingMode.OPENTELEMETRY, the local stand-in for AWS's layer in each function's
 * environment, spans sent to a local OTLP/HTTP collector. The trace crosses the notification
 * queue (the `traceparent` message attribute) and the bus (the detail's `traceparent`), and no
 * span holds a token, a boleto's number or a body.
 */
import { join } from 'node:path';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { TracingMode } from '../../../lib';
import { TrailEntryKind } from '../../../contracts/record';
import { traceIdOf } from '../../../contracts/tracing';
import { encodeStoredNotification } from '../../../lambda/store/stored-notification';
import { LOCAL_AWS } from '../../../tools/local-aws/local-env';
import { type CollectedSpan, OtlpCollector } from '../../../tools/local-aws/otlp-collector';
import { LocalRunner } from '../../../tools/local-runner/runner';
import { LocalReceiverStack } from '../../../tools/local-runner/local-stack';
import { waitFor } from '../../support/wait';

jest.setTimeout(120_000);

let collector: OtlpCollector;
let runner: LocalRunner;

beforeAll(async () => {
  collector = new OtlpCollector();
  await collector.start();
  runner = await LocalRunner.start({
    stack: (app, id) =>
      new LocalReceiverStack(app, id, {
        env: { region: LOCAL_AWS.region },
        receiver: { tracing: TracingMode.OPENTELEMETRY },
      }),
    consumer: { entry: join(__dirname, '..', '..', '..', 'examples', 'local-consumer', 'consumer.ts') },
    traces: collector,
  });
  await runner.register();
});

afterAll(async () => {
  await runner?.unregister();
  await runner?.stop();
  await collector?.stop();
});

const byName = (spans: readonly CollectedSpan[], name: string) => spans.filter((s) => s.name === name);

it("follows one settlement in one trace: the POST, check, enqueue, the record, the bank's query, the write, publish, the consumer", async () => {
  const boleto = await runner.control.createBoleto({ valor: '31.40' });
  await runner.control.settleBoleto(boleto.nossoNumero);
  await runner.settle(30_000);
  const [event] = runner.verifiedEvents();
  const traceparent = (event.detail as { traceparent?: string }).traceparent;
  const traceId = traceIdOf(traceparent);
  expect(traceId).toBeDefined();
  await waitFor(() => byName(collector.trace(traceId!), 'consume').length > 0, "the consumer's span", 20_000, 100);
  const spans = collector.trace(traceId!);

  // The receiver's invocation is the trace's root; the processor's record continues from its enqueue.
  const [root] = spans.filter((s) => !s.parentSpanId);
  expect(root).toMatchObject({ service: 'receiver', name: 'POST /boleto' });
  const [check] = byName(spans, 'check');
  const [enqueue] = byName(spans, 'enqueue');
  expect(check.parentSpanId).toBe(root.spanId);
  expect(enqueue.parentSpanId).toBe(root.spanId);
  const [record] = byName(spans, 'process record');
  expect(record).toMatchObject({ service: 'processor', parentSpanId: enqueue.spanId });
  const underRecord = (span: CollectedSpan): boolean =>
    span.parentSpanId === record.spanId || spans.some((p) => p.spanId === span.parentSpanId && underRecord(p));
  const query = spans.find(
    (s) => s.attributes['url.template'] !== undefined && s.attributes['http.request.method'] === 'GET',
  );
  expect(query && underRecord(query)).toBe(true);
  expect(query!.attributes['http.response.status_code']).toBe(200);
  expect(byName(spans, 'write subject').some(underRecord)).toBe(true);
  expect(byName(spans, 'publish').some(underRecord)).toBe(true);
  // The event names the record's span; the consumer continues from it.
  expect(traceparent).toBe(`00-${traceId}-${record.spanId}-01`);
  expect(byName(spans, 'consume')[0]).toMatchObject({ service: 'consumer', parentSpanId: record.spanId });
  // The batch's span (its own trace) links the record's context.
  const batch = collector.spans.find(
    (s) => s.name === 'process batch' && s.links.includes(`${traceId}-${enqueue.spanId}`),
  );
  expect(batch).toBeDefined();

  // The trace id is in the raw copy the journal wrote once, in the subject's trail, and `trace` prints it.
  const { trail } = await runner.subjectRecord((event.detail as { subject: { id: string } }).subject.id);
  expect(
    trail
      ?.filter((entry) => entry.kind === TrailEntryKind.NOTIFICATION || entry.kind === TrailEntryKind.LOOK)
      .map((entry) => (entry as { traceId?: string }).traceId),
  ).toContain(traceId);
  const journalKeys = runner.journal!.keys('notifications/');
  expect(
    journalKeys.some((key) => (JSON.parse(runner.journal!.text(key)!) as { traceId?: string }).traceId === traceId),
  ).toBe(true);
  const traced = await runner.operate(['trace', boleto.nossoNumero]);
  expect(traced.out).toContain(`trace ${traceId}`);

  // No span names or holds the boleto's number, the route's token, or a body.
  const text = JSON.stringify(collector.spans.map((s) => [s.name, s.attributes]));
  expect(text).not.toContain(boleto.nossoNumero);
  expect(text).not.toContain(runner.tokens.boleto);
  expect(text).not.toMatch(/movimento|valorLiquidacao/);
});

it('processes a message whose traceparent attribute is not one, as any other (anyone who may send to the queue can write it)', async () => {
  const before = runner.verifiedEvents().length;
  // The bank loses the notification; the same body arrives through the queue with a forged attribute.
  await runner.control.setFaults({ loseDeliveries: true });
  const boleto = await runner.control.createBoleto({ valor: '12.00' });
  const change = await runner.control.settleBoleto(boleto.nossoNumero);
  await runner.control.clearFaults();
  await runner.sqs.send(
    new SendMessageCommand({
      QueueUrl: runner.queueUrl,
      MessageBody: encodeStoredNotification(
        {
          route: 'boleto',
          receivedAt: new Date().toISOString(),
          requestId: 'forged-trace',
          traceId: 'not a trace: printed nowhere',
        },
        Buffer.from(JSON.stringify(change.notification)),
      ),
      MessageAttributes: { traceparent: { DataType: 'String', StringValue: '00-not-a-trace-01' } },
    }),
  );
  await runner.settle(30_000);
  expect(runner.verifiedEvents().length).toBe(before + 1);
  const detail = runner.verifiedEvents()[before].detail as { traceparent?: string; subject: { nossoNumero: string } };
  expect(detail.subject.nossoNumero).toBe(boleto.nossoNumero);
  // A trace of its own, not the junk one; the envelope's junk trace id is in no trail and no `trace`.
  expect(traceIdOf(detail.traceparent)).toMatch(/^[0-9a-f]{32}$/);
  const traced = await runner.operate(['trace', boleto.nossoNumero]);
  expect(traced.status).toBe(0);
  expect(traced.out).not.toContain('printed nowhere');
});
