/**
 * The processor bundle against a bank whose query API is rate-limited: several execution
 * environments (separate module instances, as on Lambda) share one schedule in the table, so
 * together they keep the configured rate; a record with no slot before its deadline waits in a
 * new message instead of failing; and when the bank allows less than configured (another system
 * shares the credentials), 429s slow everyone down without a record failing or being lost.
 */
import { BankEventDetailType as T } from '../../../contracts/events';
import type { SqsEventSource } from '../../../tools/local-aws/sqs-event-source';
import { ProcessorHarness } from '../../support/processor-harness';
import { captureOutput } from '../../support/load-handler';

/** `count` settled boletos' notifications in the queue, and the bank's query API limited to `bankLimit`/s from now on. */
async function backlog(h: ProcessorHarness, count: number, bankLimit: number): Promise<void> {
  const bodies: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const boleto = await h.control.createBoleto({ valor: `${100 + i}.00` });
    bodies.push((await h.control.settleBoleto(boleto.nossoNumero)).notification);
  }
  await h.control.setFaults({ rateLimitPerSecond: { query: bankLimit } });
  for (const body of bodies) await h.enqueue('boleto', body);
}

/** Runs `environments` processor instances, one invocation at a time each, until `events` settlements were published. */
async function runUntilPublished(h: ProcessorHarness, environments: number, events: number, batchSize: number) {
  let failedReceives = 0;
  const sources: SqsEventSource[] = Array.from({ length: environments }, () =>
    h.eventSource(h.loadInstance(), batchSize, (_records, result) => {
      failedReceives += result.failed;
    }),
  );
  const started = Date.now();
  sources.forEach((source) => source.start(1));
  try {
    const until = Date.now() + 60_000;
    while (h.events.ofType(T.BOLETO_SETTLED).length < events || (await h.queueDepth()) > 0) {
      if (Date.now() > until)
        throw new Error(
          `only ${h.events.ofType(T.BOLETO_SETTLED).length} of ${events} settlements published after 60 s`,
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await Promise.all(sources.map((source) => source.stop()));
  }
  return { failedReceives, seconds: (Date.now() - started) / 1000 };
}

describe('at the rate the bank allows', () => {
  let h: ProcessorHarness;
  beforeAll(async () => {
    h = await ProcessorHarness.start({ functionTimeoutMs: 8_000, queriesPerSecond: 5, visibilityTimeoutSeconds: 30 });
  });
  afterAll(() => h?.stop());

  it('four environments together keep the configured rate: no 429, no failed receive, each settlement published once', async () => {
    await backlog(h, 25, 5);

    const { result: run } = await captureOutput(() => runUntilPublished(h, 4, 25, 5));
    const counts = await h.control.apiCallCounts();
    expect(counts.query).toEqual({ calls: 25, throttled: 0 });
    expect(run.failedReceives).toBe(0);
    // 25 queries at 5/s: 4.8 s of slots at least, whatever the number of environments.
    expect(run.seconds).toBeGreaterThanOrEqual(4.8);
    expect(new Set(h.events.ofType(T.BOLETO_SETTLED).map((e) => e.detail.idempotencyKey)).size).toBe(25);
    expect(h.events.ofType(T.BOLETO_SETTLED)).toHaveLength(25);
    expect(await h.queueDepth(h.dlqUrl)).toBe(0);
  });
});

describe('when records outnumber the slots before the deadline', () => {
  let h: ProcessorHarness;
  beforeAll(async () => {
    // A 3 s function at 2 queries/s: a batch of 10 cannot all be queried in one invocation.
    h = await ProcessorHarness.start({
      functionTimeoutMs: 3_000,
      queriesPerSecond: 2,
      maxReceiveCount: 2,
      visibilityTimeoutSeconds: 30,
    });
  });
  afterAll(() => h?.stop());

  it('sends what had no slot back as new delayed messages: nothing fails its receive or reaches the dead-letter queue', async () => {
    await backlog(h, 10, 2);

    const { result: run, output } = await captureOutput(() => runUntilPublished(h, 2, 10, 10));
    expect(run.failedReceives).toBe(0);
    expect(output).toContain(
      "No slot of the bank's rate before the deadline; the rest was sent again as a new message",
    );
    expect((await h.control.apiCallCounts()).query.throttled).toBe(0);
    expect(h.events.ofType(T.BOLETO_SETTLED)).toHaveLength(10);
    expect(await h.queueDepth(h.dlqUrl)).toBe(0);
  });
});

describe('when the bank allows less than configured', () => {
  let h: ProcessorHarness;
  beforeAll(async () => {
    h = await ProcessorHarness.start({ functionTimeoutMs: 8_000, queriesPerSecond: 8, visibilityTimeoutSeconds: 30 });
  });
  afterAll(() => h?.stop());

  it('slows down on 429s (honouring Retry-After), and publishes every settlement once without a failed receive', async () => {
    await backlog(h, 20, 2);

    const { result: run } = await captureOutput(() => runUntilPublished(h, 2, 20, 5));
    const { query } = await h.control.apiCallCounts();
    expect(run.failedReceives).toBe(0);
    expect(h.events.ofType(T.BOLETO_SETTLED)).toHaveLength(20);
    expect(await h.queueDepth(h.dlqUrl)).toBe(0);
    // Refused calls stay a minority: each 429 pauses everyone for Retry-After and slows the pace.
    expect(query.throttled).toBeGreaterThan(0);
    expect(query.throttled / query.calls).toBeLessThan(0.3);
  });
});
