/** The local runner's wiring: registrations point at the front door, a team's consumer gets the verified events. */
import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { BankWebhooksExampleStack } from '../../../examples/basic-receiver/app';
import { BankEventDetailType as T } from '../../../contracts/events';
import { LocalAlarmState, type MetricDatapoint } from '../../../tools/local-runner/alarms';
import { LocalRunner } from '../../../tools/local-runner/runner';
import { LocalEventBridge } from '../../../tools/local-aws/eventbridge-server';
import { SAMPLE_ACCOUNT } from '../../../simulator/simulator';
import { decodeStoredNotification } from '../../../lambda/store/stored-notification';

jest.setTimeout(120_000);

it("registers the front door's URLs with the bank, delivers verified events to a team's consumer as an EventBridge target, pauses and resumes processing, and unregisters", async () => {
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
    expect(await runner.control.registrations()).toEqual([
      expect.objectContaining({ urlCallback: `${runner.apiUrl}payments` }),
    ]);
    expect(await runner.control.contracts()).toEqual([
      expect.objectContaining({ url: `${runner.apiUrl}boleto`, contratoStatus: 'ATIVO' }),
    ]);
    expect(runner.registered().map((r) => r.physicalResourceId)).toEqual([
      'payment-webhook/0101/123456',
      expect.stringMatching(/^boleto-contract\/0101\/02\/54321\/\d+$/),
    ]);

    const boleto = await runner.control.createBoleto({ valor: '42.00' });
    await runner.control.settleBoleto(boleto.nossoNumero);
    await runner.settle(30_000);
    expect(runner.events.events.map((e) => e.detailType)).toEqual([T.BOLETO_SETTLED]);
    expect(runner.counts()).toMatchObject({
      answered: { 200: 1 },
      enqueuedMessages: 1,
      verifiedEvents: 1,
      consumerInvocations: 1,
      consumerErrors: 0,
    });
    const [consumed] = consumerLines
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const { idempotencyKey, subject } = runner.events.events[0].detail;
    expect(consumed).toEqual({
      message: 'Boleto Settled: LIQUIDADO PIX',
      idempotencyKey,
      subject: subject.id,
      sequence: 1,
    });

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

it("refuses a visibility timeout that does not exceed the processor's timeout, and stops what it started", async () => {
  await expect(
    LocalRunner.start({
      stack: (app, id) =>
        new BankWebhooksExampleStack(app, id, { receiver: { processorTimeout: Duration.seconds(10) } }),
      visibilityTimeoutSeconds: 10,
    }),
  ).rejects.toThrow(
    "visibilityTimeoutSeconds (10) must exceed the processor's timeout (10 s): a message would come back while its invocation still runs",
  );
});

it("keeps two receivers of one account and region apart: each consumer rule gets only its own account's settlements, and each alarm watches only its own receiver's metrics", async () => {
  const bus = new LocalEventBridge();
  await bus.start();
  // CloudWatch's datapoints for the account and region: both receivers' metrics land there.
  const metrics: MetricDatapoint[] = [];
  const consumed: Record<string, Array<Record<string, unknown>>> = { A: [], B: [] };
  const start = (name: 'A' | 'B', account: typeof SAMPLE_ACCOUNT) =>
    LocalRunner.start({
      simulator: { accounts: [account] },
      eventBridge: bus,
      metrics,
      stackName: `BankWebhooks${name}`,
      // The consumer stands for the target of the example's rule on Boleto Settled.
      consumer: { entry: join(__dirname, '..', '..', '..', 'examples', 'local-consumer', 'consumer.ts') },
      consumerRule: 'BankWebhooksBoletoSettledRule',
      onLog: (fn, line) => {
        if (fn === 'consumer' && line.startsWith('{')) consumed[name].push(JSON.parse(line) as Record<string, unknown>);
      },
    });
  const a = await start('A', SAMPLE_ACCOUNT);
  const b = await start('B', {
    ...SAMPLE_ACCOUNT,
    conta: '777777',
    documento: '98765432000155',
    beneficiario: '88888',
  });
  try {
    for (const runner of [a, b]) {
      await runner.register();
      const boleto = await runner.control.createBoleto({ valor: runner === a ? '10.00' : '20.00' });
      await runner.control.settleBoleto(boleto.nossoNumero);
      const pix = await runner.control.createPayment({ tipo: 'pix', valor: '5.00' });
      await runner.control.settlePayment('pix', pix.payment.idTransacao);
    }
    await Promise.all([a.settle(30_000), b.settle(30_000)]);

    // Both receivers published to the one bus (a Pix as RECEBIDO then EFETIVADO, or only as
    // EFETIVADO when the bank had moved on before its RECEBIDO notification was looked at)...
    const published = new Set(
      bus.events.map((e) => `${e.detailType} ${e.detail.account.codigoBeneficiario ?? e.detail.account.conta}`),
    );
    expect([...published].sort()).toEqual([
      'Boleto Settled 54321',
      'Boleto Settled 88888',
      'Payment Status Verified 123456',
      'Payment Status Verified 777777',
    ]);
    // ...and each account's rule delivered only its own settlement.
    expect(consumed.A.map((e) => e.subject)).toEqual([expect.stringMatching(/^boleto:54321:/)]);
    expect(consumed.B.map((e) => e.subject)).toEqual([expect.stringMatching(/^boleto:88888:/)]);

    // The bank blocks A's contract: A's drift alarm fires, B's stays OK though both read the same metrics.
    const driftAlarm = (runner: LocalRunner) =>
      Object.entries(runner.alarmStates()).find(([id]) => id.includes('RegistrationDriftAlarm'))![1];
    const [contract] = await a.control.contracts();
    await a.control.changeContract(Number(contract.idContrato), { contratoStatus: 'BLOQUEADO' });
    expect((await a.sweep()).registrations?.[1]).toMatchObject({ state: 'drift', drift: ['blocked'] });
    expect((await b.sweep()).registrations?.map((f) => f.state)).toEqual(['in-sync', 'in-sync']);
    expect(metrics.filter((p) => p.name === 'RegistrationDrift').map((p) => p.dimensions)).toEqual([
      { service: 'bank-webhook-reconciliation', receiver: 'BankWebhooksA/BankWebhooks' },
    ]);
    expect([driftAlarm(a), driftAlarm(b)]).toEqual([LocalAlarmState.ALARM, LocalAlarmState.OK]);
    await a.control.changeContract(Number(contract.idContrato), { contratoStatus: 'ATIVO' });
  } finally {
    await Promise.all([a.stop(), b.stop()]);
    await bus.stop();
  }
});

it("stores an authenticated body that is not UTF-8 byte for byte through the front door, as the stack's BinaryMediaTypes make API Gateway pass it", async () => {
  const runner = await LocalRunner.start({});
  try {
    expect(runner.template.Resources[runner.deployment.api.restApi].Properties?.BinaryMediaTypes).toEqual(['*/*']);
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0xc3, 0x28, 0x7d]);
    expect((await runner.post('boleto', bytes)).status).toBe(200);
    await runner.settle(30_000);
    // Not JSON, so quarantined: with its bytes exactly as sent.
    expect(runner.quarantined).toHaveLength(1);
    expect(decodeStoredNotification(runner.quarantined[0].body).body).toEqual(bytes);
  } finally {
    await runner.stop();
  }
});
