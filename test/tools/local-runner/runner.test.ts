/** The local runner's wiring: registrations point at the front door, a team's consumer gets the verified events. */
import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { BankWebhooksExampleStack } from '../../../examples/basic-receiver/app';
import { BankEventDetailType as T } from '../../../lambda/shared/event-contract';
import { LocalRunner } from '../../../tools/local-runner/runner';

jest.setTimeout(120_000);

it('registers the front door\'s URLs with the bank, delivers verified events to a team\'s consumer as an EventBridge target, pauses and resumes processing, and unregisters', async () => {
  const consumerLines: string[] = [];
  const runner = await LocalRunner.start({
    consumer: { entry: join(__dirname, '..', '..', '..', 'examples', 'local-consumer', 'consumer.ts') },
    onLog: (name, line) => {
      if (name === 'consumer') consumerLines.push(line);
    },
  });
  try {
    expect(runner.deployment.queue.visibilityTimeoutSeconds).toBe(180);
    await runner.register();
    expect(await runner.control.registrations()).toEqual([expect.objectContaining({ urlCallback: `${runner.apiUrl}payments` })]);
    expect(await runner.control.contracts()).toEqual([expect.objectContaining({ url: `${runner.apiUrl}boleto`, contratoStatus: 'ATIVO' })]);
    expect(runner.registered().map((r) => r.physicalResourceId)).toEqual(['payment-webhook/0101/123456', expect.stringMatching(/^boleto-contract\/0101\/02\/54321\/\d+$/)]);

    const boleto = await runner.control.createBoleto({ valor: '42.00' });
    await runner.control.settleBoleto(boleto.nossoNumero);
    await runner.settle(30_000);
    expect(runner.events.events.map((e) => e.detailType)).toEqual([T.BOLETO_SETTLED]);
    expect(runner.counts()).toMatchObject({ answered: { 200: 1 }, enqueuedMessages: 1, verifiedEvents: 1, consumerInvocations: 1, consumerErrors: 0 });
    const [consumed] = consumerLines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
    const { idempotencyKey, subject } = runner.events.events[0].detail;
    expect(consumed).toEqual({ message: 'Boleto Settled: LIQUIDADO', idempotencyKey, subject: subject.id, sequence: 1 });

    // Paused, the notification waits in the queue; resumed, it is processed.
    await runner.pauseProcessing();
    const waiting = await runner.control.createBoleto({ valor: '7.00' });
    await runner.control.settleBoleto(waiting.nossoNumero);
    expect(await runner.control.waitForDeliveries(10_000)).toBe(true);
    expect(await runner.queueDepth()).toBe(1);
    expect(runner.events.events).toHaveLength(1);
    runner.resumeProcessing();
    await runner.settle(30_000);
    expect(runner.events.events).toHaveLength(2);

    await runner.unregister();
    expect(await runner.control.registrations()).toEqual([expect.objectContaining({ urlCallback: null })]);
    expect(await runner.control.contracts()).toEqual([expect.objectContaining({ contratoStatus: 'INATIVO' })]);
  } finally {
    await runner.stop();
  }
});

it('refuses a visibility timeout that does not exceed the processor\'s timeout, and stops what it started', async () => {
  await expect(LocalRunner.start({
    stack: (app, id) => new BankWebhooksExampleStack(app, id, { receiver: { processorTimeout: Duration.seconds(10) } }),
    visibilityTimeoutSeconds: 10,
  })).rejects.toThrow("visibilityTimeoutSeconds (10) must exceed the processor's timeout (10 s): a message would come back while its invocation still runs");
});
