/**
 * The handlers' spans with an OpenTelemetry SDK registered in-process (as AWS's layer registers
 * one): the processor's record spans continue their own traceparent, the batch links them, a
 * malformed traceparent is ignored, and the helpers read and write only W3C version 00 contexts.
 * Without an SDK the same code makes no span and writes no attribute.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { processBatch } from '../../../lambda/processor/batch';
import {
  contextFromTraceparent,
  currentTraceparent,
  routeTemplate,
  tracedAttributes,
} from '../../../lambda/shared/telemetry';
import { boletoEvent, contextWith, fakeDeps, sqsRecord } from '../../support/processor-records';

const PARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('without an SDK', () => {
  it('makes no context and writes no attribute', () => {
    expect(currentTraceparent()).toBeUndefined();
    expect(tracedAttributes()).toEqual({});
  });

  it('writes no traceparent in the detail, even for a record that had one (only a traced processor does)', async () => {
    const f = fakeDeps();
    f.bank.settle('1001');
    await processBatch(
      {
        Records: [
          {
            ...sqsRecord('boleto', boletoEvent('1001')),
            messageAttributes: {
              traceparent: { stringValue: PARENT, dataType: 'String', stringListValues: [], binaryListValues: [] },
            },
          },
        ],
      },
      contextWith(f.clock),
      f.deps,
    );
    expect(f.published).toHaveLength(1);
    expect(f.published[0].detail).not.toHaveProperty('traceparent');
  });
});

describe('with an SDK', () => {
  const exporter = new InMemorySpanExporter();
  const manager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    context.setGlobalContextManager(manager.enable());
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  });
  afterAll(() => {
    trace.disable();
    context.disable();
    propagation.disable();
  });
  beforeEach(() => exporter.reset());

  const withTraceparent = (record: ReturnType<typeof sqsRecord>, value: string) => ({
    ...record,
    messageAttributes: {
      traceparent: { stringValue: value, dataType: 'String', stringListValues: [], binaryListValues: [] },
    },
  });

  it("makes each record's span a child of its own traceparent, links it from the batch, and publishes the record's context in the detail", async () => {
    const f = fakeDeps();
    f.bank.settle('1001');
    f.bank.settle('1002');
    const records = [
      withTraceparent(sqsRecord('boleto', boletoEvent('1001')), PARENT),
      withTraceparent(sqsRecord('boleto', boletoEvent('1002')), '00-zzz-bad-01'),
    ];
    // As the layer runs it: inside the invocation's span.
    await trace.getTracer('layer').startActiveSpan('invocation', async (invocation) => {
      await processBatch({ Records: records }, contextWith(f.clock), f.deps);
      invocation.end();
    });
    const spans = exporter.getFinishedSpans();
    const batch = spans.find((s) => s.name === 'process batch')!;
    const recordSpans = spans.filter((s) => s.name === 'process record');
    expect(recordSpans).toHaveLength(2);
    const [traced, untraced] = [
      recordSpans.find((s) => s.spanContext().traceId === '4bf92f3577b34da6a3ce929d0e0e4736')!,
      recordSpans.find((s) => s.spanContext().traceId !== '4bf92f3577b34da6a3ce929d0e0e4736')!,
    ];
    expect(traced.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    // The malformed one is ignored: its record continues the batch's trace, and is processed all the same.
    expect(untraced.parentSpanContext?.spanId).toBe(batch.spanContext().spanId);
    expect(batch.links.map((l) => l.context.spanId)).toEqual(['00f067aa0ba902b7']);
    expect(f.published).toHaveLength(2);
    const detail = f.published.find((p) => p.detail.subject.nossoNumero.endsWith('1001'))!.detail as {
      traceparent?: string;
    };
    expect(detail.traceparent).toBe(`00-4bf92f3577b34da6a3ce929d0e0e4736-${traced.spanContext().spanId}-01`);
    // (The AWS clients' spans, publish's and the store's, are seen over the local runner: tracing.test.ts.) No span holds the boleto's number or the body.
    expect(JSON.stringify(spans.map((s) => [s.name, s.attributes]))).not.toMatch(/1001|1002|LIQUIDACAO/);
  });

  it('reads and writes only version 00 contexts', () => {
    expect(contextFromTraceparent(PARENT)).toBeDefined();
    for (const bad of [
      '',
      'junk',
      PARENT.toUpperCase(),
      `${PARENT}-extra`,
      '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      42,
      undefined,
    ]) {
      expect(contextFromTraceparent(bad)).toBeUndefined();
    }
    context.with(contextFromTraceparent(PARENT)!, () => {
      expect(currentTraceparent()).toBe(PARENT);
      expect(tracedAttributes()).toEqual({
        MessageAttributes: { traceparent: { DataType: 'String', StringValue: PARENT } },
      });
    });
  });
});

it('names a bank call by its route, with every id, key and txid as {id} and no query', () => {
  expect(
    routeTemplate('https://api.bank.example/cobranca-bancaria/v3/boletos?nossoNumero=123&codigoBeneficiario=54321'),
  ).toBe('/cobranca-bancaria/v3/boletos');
  expect(routeTemplate('https://pix.example/api/v2/pix/E12345678202611271234abcdef12345/devolucao/D1')).toBe(
    '/api/v2/pix/{id}/devolucao/{id}',
  );
  expect(routeTemplate('https://pix.example/v2/cob/kk6g232xel65a0daee4dd13kk9189382')).toBe('/v2/cob/{id}');
  expect(routeTemplate('https://pix.example/v2/webhook/joe%40example.com')).toBe('/v2/webhook/{id}');
  expect(routeTemplate('https://pix.example/v2/webhook/12345678000199')).toBe('/v2/webhook/{id}');
  expect(routeTemplate('not a url')).toBe('{unparsed}');
});
