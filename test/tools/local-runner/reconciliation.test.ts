/**
 * The reconciliation sweep end to end, over the local runner: the deployed bundles (receiver,
 * processor, sweep) wired from the example stack, the bank simulator losing notifications as the
 * real bank does (NÃO ENTREGUE, never resent). Whatever the sweep finds is verified by the
 * processor and published once, with `trigger: reconciliation`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { BankEventDetailType as T } from '../../../contracts/events';
import { ProcessorMetric } from '../../../contracts/processor';
import { bankDay } from '../../../lambda/bank/cooperative/answers';
import { TRACK_PAYMENT_DETAIL_TYPE } from '../../../contracts/reconciliation';
import type { RecordedEvent } from '../../../tools/local-aws/eventbridge-server';
import { LOCAL_AWS } from '../../../tools/local-aws/local-env';
import { QueryOperation } from '../../../simulator/simulator';
import { LocalAlarmState } from '../../../tools/local-runner/alarms';
import type { LocalRunner } from '../../../tools/local-runner/runner';
import { useE2eRunner } from '../../support/e2e-runner';
import { expectNoSecretIn } from '../../support/registration-harness';

jest.setTimeout(180_000);

const current = useE2eRunner();
let runner: LocalRunner;
beforeEach(() => {
  runner = current();
});

const subjects = (events: readonly RecordedEvent[]) =>
  events.map((e) => (e.detail as { subject: { id: string } }).subject.id);
const triggers = (events: readonly RecordedEvent[]) => [
  ...new Set(events.map((e) => (e.detail as { trigger: string }).trigger)),
];

/** Settles `count` new boletos while the bank loses every notification; answers their notifications as the bank would have sent them. */
async function lostSettlements(count: number): Promise<{ nossoNumeros: string[]; notifications: unknown[] }> {
  await runner.control.setFaults({ loseDeliveries: true });
  const boletos = await Promise.all(
    Array.from({ length: count }, (_, i) => runner.control.createBoleto({ valor: 20 + i })),
  );
  const changes = [];
  for (const boleto of boletos) changes.push(await runner.control.settleBoleto(boleto.nossoNumero));
  await runner.control.clearFaults();
  return { nossoNumeros: boletos.map((b) => b.nossoNumero), notifications: changes.map((c) => c.notification) };
}

it('publishes every settlement of days the bank lost every notification of, exactly once, in one sweep; late webhooks for them publish nothing', async () => {
  const since = runner.checkpoint();
  const recoveredBefore = runner.metricSum(ProcessorMetric.RECOVERED);
  const exchangesBefore = runner.exchanges.length;
  // More than one page of the listing (the bank's 500 a page, 50 here).
  await runner.control.setBehaviour({ listingPageSize: 50 });
  const { nossoNumeros, notifications } = await lostSettlements(60);
  expect(runner.exchanges.length).toBe(exchangesBefore);

  const report = await runner.sweep();
  expect(report).toMatchObject({ complete: true, settlementsToVerify: 60 });
  await runner.settle(90_000);
  const recovered = runner.verifiedEvents(since);
  expect(recovered.map((e) => e.detailType)).toEqual(Array(60).fill(T.BOLETO_SETTLED));
  expect(new Set(subjects(recovered))).toEqual(
    new Set(nossoNumeros.map((n) => `boleto:${runner.simulator.accounts[0].beneficiario}:${n}`)),
  );
  expect(triggers(recovered)).toEqual(['reconciliation']);
  expect(runner.metricSum(ProcessorMetric.RECOVERED) - recoveredBefore).toBe(60);
  expect(runner.audit(since).problems).toEqual([]);
  // A recovered settlement means webhooks are being lost: the alarm says so, as CloudWatch would.
  const alarm = Object.entries(runner.alarmStates()).find(([id]) => id.includes('RecoveredAlarm'));
  expect(alarm?.[1]).toBe(LocalAlarmState.ALARM);

  // The bank delivers them after all (late): verified, and nothing more is published.
  const afterRecovery = runner.checkpoint();
  const answers = await Promise.all(notifications.map((body) => runner.post('boleto', JSON.stringify(body))));
  expect(answers.every((a) => a.status === 200)).toBe(true);
  await runner.settle(60_000);
  expect(runner.verifiedEvents(afterRecovery)).toEqual([]);
  // Each late notification is accounted for by the event the sweep published before it came.
  expect(runner.audit(since).problems).toEqual([]);
});

it('makes no query, publishes nothing and recovers nothing when nothing was lost', async () => {
  const boletos = await Promise.all(
    Array.from({ length: 5 }, (_, i) => runner.control.createBoleto({ valor: 40 + i })),
  );
  for (const boleto of boletos) await runner.control.settleBoleto(boleto.nossoNumero);
  await runner.settle(60_000);
  await runner.sweep(); // the days as they are now
  await runner.settle(60_000);

  const since = runner.checkpoint();
  const recoveredBefore = runner.metricSum(ProcessorMetric.RECOVERED);
  const queriesBefore = runner.simulator.queryCounts();
  const report = await runner.sweep();
  await runner.settle(60_000);
  const queries = runner.simulator.queryCounts();
  expect(report).toMatchObject({ complete: true, settlementsToVerify: 0, paymentsToVerify: 0 });
  expect(queries[QueryOperation.BOLETO_QUERY] - queriesBefore[QueryOperation.BOLETO_QUERY]).toBe(0);
  expect(queries[QueryOperation.PAYMENT_QUERY] - queriesBefore[QueryOperation.PAYMENT_QUERY]).toBe(0);
  // Only the listing: the last page of each of the 4 days.
  expect(queries[QueryOperation.SETTLED_LISTING] - queriesBefore[QueryOperation.SETTLED_LISTING]).toBe(4);
  expect(runner.verifiedEvents(since)).toEqual([]);
  expect(runner.metricSum(ProcessorMetric.RECOVERED) - recoveredBefore).toBe(0);
});

it('resumes a sweep that stopped half-way from its cursor, without asking twice', async () => {
  await runner.sweep();
  await runner.settle(60_000);
  const since = runner.checkpoint();
  await runner.pauseProcessing();
  const { nossoNumeros } = await lostSettlements(55);
  const listingsBefore = runner.simulator.queryCounts()[QueryOperation.SETTLED_LISTING];
  // Today's listing now spans pages; every listing call after the first page read fails until the bank recovers.
  await runner.control.setFaults({ api: [{ scope: 'query', status: 503, skip: 1 }] });
  await expect(runner.sweep()).rejects.toThrow(/503|indispon/);
  await runner.control.clearFaults();
  const report = await runner.sweep();
  runner.resumeProcessing();
  await runner.settle(90_000);
  // The first sweep handled the page it read; the second read that page again (to check its
  // cursor) and asked only about the rest.
  expect(report.settlementsToVerify).toBeLessThan(55);
  expect(runner.simulator.queryCounts()[QueryOperation.SETTLED_LISTING] - listingsBefore).toBeGreaterThan(2);
  const events = runner.verifiedEvents(since);
  expect(subjects(events).sort()).toEqual(
    nossoNumeros.map((n) => `boleto:${runner.simulator.accounts[0].beneficiario}:${n}`).sort(),
  );
  expect(runner.audit(since).problems).toEqual([]);
});

it("reads the bank's day at 22:30 São Paulo time, when UTC is already the next day", async () => {
  const since = runner.checkpoint();
  const today = bankDay(Date.now());
  const { nossoNumeros } = await lostSettlements(1);
  // 22:30 in São Paulo (UTC−3) on the bank's today is 01:30 UTC on the next day.
  const at = new Date(`${today.iso}T22:30:00-03:00`);
  expect(at.toISOString().slice(0, 10)).not.toBe(today.iso);
  const report = await runner.sweep(at);
  expect(report.days[0].day).toBe(today.iso);
  await runner.settle(60_000);
  expect(subjects(runner.verifiedEvents(since))).toEqual([
    `boleto:${runner.simulator.accounts[0].beneficiario}:${nossoNumeros[0]}`,
  ]);
});

it('brings a payment whose final notification was lost to its final status, and stops asking about it', async () => {
  const since = runner.checkpoint();
  const { payment } = await runner.control.createPayment({ tipo: 'pix', valor: 33.1 });
  await runner.settle(60_000);
  await runner.control.setFaults({ loseDeliveries: true });
  await runner.control.settlePayment('pix', payment.idTransacao);
  await runner.control.clearFaults();
  const report = await runner.sweep();
  expect(report.paymentsToVerify).toBeGreaterThanOrEqual(1);
  await runner.settle(60_000);
  const events = runner.verifiedEvents(since).filter((e) => subjects([e])[0] === `payment:pix:${payment.idTransacao}`);
  expect(
    events.map((e) => [
      (e.detail as { state: { status: string } }).state.status,
      (e.detail as { trigger: string }).trigger,
    ]),
  ).toEqual([
    ['RECEBIDO', 'webhook'],
    ['EFETIVADO', 'reconciliation'],
  ]);
  const next = await runner.sweep();
  expect(next.paymentsToVerify).toBe(0);
});

it('follows a payment the company started, from its Track Payment event, though the bank lost every notification of it', async () => {
  const since = runner.checkpoint();
  await runner.control.setFaults({ loseDeliveries: true });
  const { payment } = await runner.control.createPayment({ tipo: 'tributos', valor: 90 });
  await runner.control.clearFaults();
  const account = runner.simulator.accounts[0];
  const bus = new EventBridgeClient({
    region: LOCAL_AWS.region,
    credentials: LOCAL_AWS.credentials,
    endpoint: runner.events.endpoint,
  });
  try {
    await bus.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: runner.deployment.eventBus,
            Source: 'acme.payments',
            DetailType: TRACK_PAYMENT_DETAIL_TYPE,
            Detail: JSON.stringify({
              paymentKind: 'tributos',
              idTransacao: payment.idTransacao,
              account: { cooperativa: account.cooperativa, conta: account.conta },
            }),
          },
        ],
      }),
    );
  } finally {
    bus.destroy();
  }
  await runner.settle(60_000);
  expect(
    runner
      .verifiedEvents(since)
      .map((e) => [subjects([e])[0], (e.detail as { state: { status: string } }).state.status]),
  ).toEqual([[`payment:tributos:${payment.idTransacao}`, 'RECEBIDO']]);
  // Still pending: each sweep looks again, and its settlement is found though never notified.
  await runner.control.setFaults({ loseDeliveries: true });
  await runner.control.settlePayment('tributos', payment.idTransacao);
  await runner.control.clearFaults();
  await runner.sweep();
  await runner.settle(60_000);
  expect(runner.verifiedEvents(since).map((e) => (e.detail as { state: { status: string } }).state.status)).toEqual([
    'RECEBIDO',
    'EFETIVADO',
  ]);
});

it("follows a payment id of the bank's full 100 characters to its final status, and quarantines once, asking the bank nothing, an id outside the bank's pattern", async () => {
  const since = runner.checkpoint();
  const long = `E:${'b2-'.repeat(32)}Z9`;
  await runner.control.setFaults({ loseDeliveries: true });
  await runner.control.createPayment({ tipo: 'pix', valor: 7, idTransacao: long });
  await runner.control.clearFaults();
  const account = runner.simulator.accounts[0];
  const queriesBefore = runner.simulator.queryCounts()[QueryOperation.PAYMENT_QUERY];
  const bus = new EventBridgeClient({
    region: LOCAL_AWS.region,
    credentials: LOCAL_AWS.credentials,
    endpoint: runner.events.endpoint,
  });
  const track = (idTransacao: string) => ({
    EventBusName: runner.deployment.eventBus,
    Source: 'acme.payments',
    DetailType: TRACK_PAYMENT_DETAIL_TYPE,
    Detail: JSON.stringify({
      paymentKind: 'pix',
      idTransacao,
      account: { cooperativa: account.cooperativa, conta: account.conta },
    }),
  });
  try {
    await bus.send(new PutEventsCommand({ Entries: [track(long), track('..')] }));
  } finally {
    bus.destroy();
  }
  await runner.settle(60_000);
  expect(
    runner
      .verifiedEvents(since)
      .map((e) => [subjects([e])[0], (e.detail as { state: { status: string } }).state.status]),
  ).toEqual([[`payment:pix:${long}`, 'RECEBIDO']]);
  // One query, the long id's: the ".." was refused before any call.
  expect(runner.simulator.queryCounts()[QueryOperation.PAYMENT_QUERY] - queriesBefore).toBe(1);
  // Still pending: the sweep looks again (its index holds the 100-character id) and finds it paid.
  await runner.control.setFaults({ loseDeliveries: true });
  await runner.control.settlePayment('pix', long);
  await runner.control.clearFaults();
  const report = await runner.sweep();
  await runner.settle(60_000);
  expect(report.paymentsToVerify).toBeGreaterThanOrEqual(1);
  expect(runner.verifiedEvents(since).map((e) => (e.detail as { state: { status: string } }).state.status)).toEqual([
    'RECEBIDO',
    'EFETIVADO',
  ]);
  // The "..": one quarantined message with its reason.
  const quarantined = runner.quarantined.slice(since.quarantined);
  expect(quarantined.map((q) => q.reason)).toEqual([
    expect.stringContaining('idTransacao ".."; it must match the bank\'s pattern'),
  ]);
});

it("runs the template's schedule: sweeps come by themselves until stopped", async () => {
  const since = runner.checkpoint();
  await lostSettlements(2);
  runner.startSchedules(1_000);
  try {
    const until = Date.now() + 30_000;
    while (runner.verifiedEvents(since).length < 2 && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 250));
  } finally {
    runner.stopSchedules();
  }
  await runner.settle(60_000);
  expect(runner.verifiedEvents(since)).toHaveLength(2);
  expect(runner.deployment.reconciliation?.intervalMs).toBe(15 * 60_000);
});

it('logs no credential or token of its own when the bank echoes every request it refuses (listing, token, registration and contract calls)', async () => {
  const logFile = join(runner.logDir, 'reconciliation.log');
  const logged = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  const before = logged().length;
  await runner.control.setFaults({
    echoRequests: true,
    api: [
      { scope: 'token', status: 503, times: 1 },
      { scope: 'query', status: 503, times: 2 },
      { scope: 'registration', status: 503, times: 1 },
      { scope: 'contract', status: 503, times: 1 },
    ],
  });
  const report = await runner.sweep();
  expect(report).toMatchObject({ complete: true });
  expect(report.registrations?.every((f) => f.drift.length === 0)).toBe(true);

  const log = logged().slice(before);
  // The bank did echo the requests the sweep made, and the retries were logged...
  expect(log).toContain('Retrying a bank call');
  expect(log).toContain('requisição recebida');
  // ...with no credential, no webhook token and no bearer token in them.
  const { collection, payments } = runner.simulator.credentials;
  expectNoSecretIn(log, [
    collection.apiKey,
    collection.password,
    payments.clientSecret,
    ...Object.values(runner.tokens).filter((t): t is string => !!t),
  ]);
  expect(log).not.toMatch(/Bearer [A-Za-z0-9]/i);
});

describe('registration watch', () => {
  const alarmOf = (name: string) => Object.entries(runner.alarmStates()).find(([id]) => id.includes(name))?.[1];

  it('finds a contract the bank blocked and a callback someone re-pointed, raises the drift alarm, and repairs nothing by default', async () => {
    const [contract] = await runner.control.contracts();
    const account = runner.simulator.accounts[0];
    const [registration] = await runner.control.registrations();
    await runner.control.changeContract(Number(contract.idContrato), { contratoStatus: 'BLOQUEADO' });
    await runner.control.changeRegistration(account.cooperativa, account.conta, {
      urlCallback: 'https://someone-else.example/hook',
    });
    try {
      const result = await runner.sweep();
      expect(result.registrations).toEqual([
        {
          registration: 'payments',
          state: 'drift',
          drift: ['other-url'],
          repaired: false,
          notRepaired: 'repairRegistrations is off',
        },
        {
          registration: expect.stringMatching(/^boleto /),
          state: 'drift',
          drift: ['blocked'],
          repaired: false,
          notRepaired: 'repairRegistrations is off',
        },
      ]);
      expect(alarmOf('RegistrationDriftAlarm')).toBe(LocalAlarmState.ALARM);
      expect((await runner.control.contracts())[0].contratoStatus).toBe('BLOQUEADO');
      // Nothing secret in what the watch wrote: the other party's URL by origin and path, no token.
      const log = readFileSync(join(runner.logDir, 'reconciliation.log'), 'utf8');
      expect(log).toContain('https://someone-else.example/hook');
      for (const token of Object.values(runner.tokens)) expect(log).not.toContain(token);
    } finally {
      await runner.control.changeContract(Number(contract.idContrato), { contratoStatus: 'ATIVO' });
      await runner.control.changeRegistration(account.cooperativa, account.conta, {
        urlCallback: registration.urlCallback,
      });
    }
    const clean = await runner.sweep();
    expect(clean.registrations?.map((f) => f.state)).toEqual(['in-sync', 'in-sync']);
  });
});
