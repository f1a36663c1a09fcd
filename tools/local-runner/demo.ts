/**
 * `npm run demo`: the whole flow on this machine with the handler bundles `cdk deploy` ships.
 * Registers both endpoints with the simulated bank through the registration handler, makes the
 * bank settle, reverse and reject boletos and payments (every notification delivered twice), sends
 * two forged requests and one the processor cannot understand, waits for the verified events,
 * receives Pix (charges, a static code, a refund, another customer's Pix sent to our URL),
 * re-sends a settlement under new notification ids, makes the bank lose notifications and lets
 * the reconciliation sweep recover them, prints a summary, then runs the operator CLI as an
 * operator would: `status`, and `trace` of a recovered boleto and of a notified one (with where its
 * raw notification is in the journal), unregisters and stops.
 * Exits 0 only if every change was published exactly once and every notification is accounted
 * for by the bank's verified state or a deliberate quarantine.
 *
 *   npm run demo [-- --consumer path/to/consumer.ts[#exportName]]
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BankEventDetailType } from '../../contracts/events';
import { ProcessorMetric } from '../../contracts/processor';
import { RegistrationDrift } from '../../contracts/reconciliation';
import { bundleHandlers, bundlesAreFresh } from '../bundle-handlers';
import { LocalAlarmState } from './alarms';
import { demoPix } from './demo-pix';
import { docSampleDrift, summaryTable, traceOf } from './demo-report';
import { LocalReceiverStack } from './local-stack';
import { LocalRunner } from './runner';
import { TracingMode } from '../../lib/core/tracing';
import { LOCAL_AWS } from '../local-aws/local-env';
import { OtlpCollector } from '../local-aws/otlp-collector';

const started = Date.now();
const stamp = (): string => `[${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s]`;
const say = (line: string): void => console.log(`${stamp()} ${line}`);

function parseArgs(argv: string[]): { consumer?: { entry: string; exportName?: string } } {
  const at = argv.indexOf('--consumer');
  if (at < 0) return {};
  const value = argv[at + 1];
  if (!value) throw new Error('--consumer needs a module path, such as --consumer examples/local-consumer/consumer.ts');
  const [file, exportName] = value.split('#');
  return { consumer: { entry: resolve(file), exportName } };
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  console.log('cdk-bank-webhooks demo: the whole flow on this machine, with the handler bundles `cdk deploy` ships\n');
  if (!bundlesAreFresh()) {
    say('Bundling the handlers (the files the constructs deploy; `npm run build` does this too)');
    await bundleHandlers();
  }
  say(
    'Synthesizing a receiver stack (as the basic example deploys one) against a local bank; starting fauxqs (SQS), dynalite (DynamoDB), local Secrets Manager and EventBridge, and the HTTPS front door',
  );
  const logDir = join(tmpdir(), 'cdk-bank-webhooks-demo-logs');
  rmSync(logDir, { recursive: true, force: true });
  // Spans of every function (AWS's layer's local stand-in) come to a local OTLP/HTTP collector.
  const collector = new OtlpCollector();
  await collector.start();
  const runner = await LocalRunner.start({
    // With Pix: its own API, every Pix confirmed with the provider (a NON_PRODUCTION stack until mutual TLS).
    stack: (app, id) =>
      new LocalReceiverStack(app, id, {
        pix: true,
        pixRecurring: true,
        env: { region: LOCAL_AWS.region },
        receiver: { tracing: TracingMode.OPENTELEMETRY },
      }),
    // The example consumer continues each event's trace; yours, with --consumer, prints what it logs.
    consumer: args.consumer ?? { entry: join(__dirname, '..', '..', 'examples', 'local-consumer', 'consumer.ts') },
    traces: collector,
    // The dead letters stay where an operator finds them, until `audit` has read them (then the summary reads them back).
    keepQuarantine: true,
    logDir,
    onLog: (name, line) => {
      if (name === 'consumer' && args.consumer) console.log(`        consumer │ ${line}`);
    },
  }).catch(async (error: unknown) => {
    await collector.stop();
    throw error;
  });
  let exitCode: number;
  try {
    say(
      `Ready. Front door ${runner.apiUrl} · Pix API ${runner.pixUrl ?? '(none)'} · function logs in ${runner.logDir}`,
    );
    await runner.register();
    const [payment] = await runner.control.registrations();
    const [contract] = await runner.control.contracts();
    say('Registered through the registration handler (CloudFormation Create):');
    console.log(`          payments callback       → ${payment?.urlCallback ?? '(none)'}`);
    console.log(
      `          boleto contract ${contract?.idContrato ?? '?'}    → ${contract?.url ?? '(none)'} (${contract?.contratoStatus ?? '?'})`,
    );

    let last = '';
    const progress = (): void => {
      const c = runner.counts();
      const line = `answered 200: ${c.answered[200] ?? 0} · 401: ${c.answered[401] ?? 0} · enqueued ${c.metrics.NotificationsStored ?? 0} · verified ${c.verifiedEvents} · duplicates suppressed ${c.metrics[ProcessorMetric.DUPLICATES] ?? 0} · quarantined ${c.quarantined}`;
      if (line !== last) say(`  ${line}`);
      last = line;
    };
    // Each step waits for the verified events before the bank changes the same things again: the
    // processor checks every notification against the bank's current state, so a boleto reversed
    // before its settlement was verified would (rightly) wait for more verification attempts.
    const step = async (description: string, act: () => Promise<string | void>): Promise<void> => {
      const extra = await act();
      say(`${description}${extra ? ` ${extra}` : ''}`);
      await runner.settle(20_000, progress);
    };

    await runner.control.setFaults({ duplicateDeliveries: 1 });
    say('The bank now delivers every notification twice, at the same moment');
    const boletos = await Promise.all([150.25, 89.9, 1200, 45].map((valor) => runner.control.createBoleto({ valor })));
    await step('Boletos: created 4, settled 3 (by Pix, COMPE and the cooperative network)', async () => {
      await runner.control.settleBoleto(boletos[0].nossoNumero, { canal: 'PIX' });
      await runner.control.settleBoleto(boletos[1].nossoNumero, { canal: 'COMPE_H5' });
      await runner.control.settleBoleto(boletos[2].nossoNumero, { canal: 'REDE' });
    });
    await step('Boletos: reversed 1 settlement, rejected 1', async () => {
      await runner.control.reverseBoleto(boletos[0].nossoNumero);
      const rejected = await runner.control.rejectBoleto(boletos[3].nossoNumero);
      return rejected.skipped ? `(the rejection is not notified: ${rejected.skipped})` : undefined;
    });
    const payments = {} as Record<'pix' | 'boleto' | 'tributos', string>;
    await step('Payments: a Pix, a boleto and a tax payment received', async () => {
      for (const [tipo, valor] of [
        ['pix', 320.5],
        ['boleto', 980],
        ['tributos', 57.31],
      ] as const) {
        payments[tipo] = (await runner.control.createPayment({ tipo, valor })).payment.idTransacao;
      }
    });
    await step('Payments: Pix and tax payment paid, boleto payment rejected', async () => {
      await runner.control.settlePayment('pix', payments.pix);
      await runner.control.settlePayment('tributos', payments.tributos);
      await runner.control.rejectPayment('boleto', payments.boleto, { motivo: 'Saldo insuficiente' });
    });
    const pix = await demoPix(runner, step, say);
    await runner.control.clearFaults();

    // The bank's answer is the truth: a settlement announced again under new ids (a bank re-send,
    // or anyone holding the token) is looked at and publishes nothing more.
    const settledBefore = runner.events.ofType(BankEventDetailType.BOLETO_SETTLED).length;
    const original = (await runner.control.deliveries()).find((d) =>
      String((d.body as { movimento?: string }).movimento).startsWith('LIQUIDACAO'),
    )!.body as Record<string, unknown>;
    let resentStatus = 0;
    await step('A settlement announced again under 3 new notification ids, with the right token', async () => {
      for (let i = 0; i < 3; i++)
        resentStatus = (await runner.post('boleto', JSON.stringify({ ...original, idEventoWebhook: `resent-${i}` })))
          .status;
      return `→ ${resentStatus}; the bank shows nothing new, so nothing more may be published`;
    });
    const republished = runner.events.ofType(BankEventDetailType.BOLETO_SETTLED).length - settledBefore;

    const forged = await runner.post(
      'payments',
      JSON.stringify({ idTransacao: 'forged-1', status: 'PAGO', valorPagamento: '1000000.00', idPagamentoPix: 'x' }),
      null,
    );
    const wrongToken = await runner.post(
      'boleto',
      JSON.stringify({ idEventoWebhook: 'forged-2', movimento: 'LIQUIDACAO_PIX' }),
      'not-the-token',
    );
    say(
      `Forged requests: no token → ${forged.status}, wrong token → ${wrongToken.status} (neither may reach the queue)`,
    );
    let junkStatus = 0;
    await step('A notification with the right token that names no payment kind', async () => {
      junkStatus = (await runner.post('payments', JSON.stringify({ idTransacao: 'no-kind-1', status: 'PAGO' }))).status;
      return `→ ${junkStatus}; the processor must quarantine it`;
    });

    // The bank loses notifications (NÃO ENTREGUE, never resent): the sweep finds what they told of.
    const lostFrom = (await runner.control.deliveries()).length;
    const eventsBeforeLoss = runner.verifiedEvents().length;
    const recoveredBefore = runner.counts().metrics[ProcessorMetric.RECOVERED] ?? 0;
    const pendingPix = (await runner.control.createPayment({ tipo: 'pix', valor: 77.7 })).payment.idTransacao;
    await runner.settle(20_000, progress);
    await runner.control.setFaults({ loseDeliveries: true });
    const lostBoletos = await Promise.all([310, 42.5].map((valor) => runner.control.createBoleto({ valor })));
    for (const boleto of lostBoletos) await runner.control.settleBoleto(boleto.nossoNumero, { canal: 'PIX' });
    await runner.control.settlePayment('pix', pendingPix);
    await runner.control.clearFaults();
    const lost = (await runner.control.deliveries()).slice(lostFrom).filter((d) => d.outcome === 'NÃO ENTREGUE');
    say(
      `The bank lost ${lost.length} notifications (2 boleto settlements, 1 Pix paid): marked NÃO ENTREGUE, never sent, never resent`,
    );
    const sweep = await runner.sweep();
    say(
      `Reconciliation sweep (scheduled every ${(runner.deployment.reconciliation?.intervalMs ?? 0) / 60_000} min; run now): ${sweep.bankCalls} listing calls, ${sweep.settlementsToVerify} settlements and ${sweep.paymentsToVerify} pending payments sent to be verified`,
    );
    await runner.settle(20_000, progress);
    const recovered = (runner.counts().metrics[ProcessorMetric.RECOVERED] ?? 0) - recoveredBefore;
    const recoveredEvents = runner
      .verifiedEvents()
      .slice(eventsBeforeLoss)
      .filter((e) => (e.detail as { trigger?: string }).trigger === 'reconciliation');
    const recoveredKeys = recoveredEvents.map((e) => (e.detail as { idempotencyKey: string }).idempotencyKey);
    const recoveredDuplicates = recoveredKeys.length - new Set(recoveredKeys).size;
    const alarms = runner.alarmStates();
    const recoveredAlarm = Object.entries(alarms).find(([id]) => id.includes('RecoveredAlarm'))?.[1];
    say(
      `Recovered by reconciliation: ${recovered} of ${lost.length} lost · duplicates ${recoveredDuplicates} · alarm on recoveries: ${recoveredAlarm ?? 'missing'}`,
    );

    // The bank blocks the boleto contract on its own: the next sweep's registration watch sees it.
    const [held] = await runner.control.contracts();
    await runner.control.changeContract(Number(held.idContrato), { contratoStatus: 'BLOQUEADO' });
    const watched = await runner.sweep();
    const blocked = watched.registrations?.find((f) => f.drift.includes(RegistrationDrift.BLOCKED));
    const driftAlarm = Object.entries(runner.alarmStates()).find(([id]) => id.includes('RegistrationDriftAlarm'))?.[1];
    say(
      `The bank blocked the boleto contract: the registration watch found ${blocked ? `${blocked.registration}: ${blocked.drift.join(', ')}` : 'nothing'} (${blocked?.notRepaired ?? 'repaired'}) · drift alarm: ${driftAlarm ?? 'missing'}`,
    );
    await runner.control.changeContract(Number(held.idContrato), { contratoStatus: 'ATIVO' });

    // The record of what happened, read as an operator would: the CLI's status, and the trace of a
    // recovered boleto and of a notified one (with where its raw notification is in the journal).
    const recoveredBoleto = recoveredEvents.find(
      (e) => (e.detail as { subject: { kind: string } }).subject.kind === 'boleto',
    );
    const recoveredNumber =
      (recoveredBoleto?.detail as { subject?: { nossoNumero: string } } | undefined)?.subject?.nossoNumero ?? '?';
    const notifiedNumber = boletos[1].nossoNumero.padStart(9, '0');
    const status = await runner.operate(['status']);
    const recoveredTrace = await runner.operate(['trace', recoveredNumber]);
    const notifiedTrace = await runner.operate(['trace', notifiedNumber]);
    const rawKey = /s3:\/\/[^/\s]+\/(notifications\/\S+)/.exec(notifiedTrace.out)?.[1];
    const rawCopy = rawKey ? runner.journal?.text(rawKey) : undefined;
    const recordOk =
      status.status === 1 &&
      /RecoveredAlarm/.test(status.out) &&
      /boleto \S+\s+drift\s+blocked/.test(status.out) &&
      recoveredTrace.status === 0 &&
      /recovered\s+no notification of settled:/.test(recoveredTrace.out) &&
      notifiedTrace.status === 0 &&
      !!rawCopy &&
      rawCopy.includes(boletos[1].nossoNumero);

    const deliveries = await runner.control.deliveries();
    // The same promise as an operator checks it over a deployed stack's record: the journal, the audit log, the dead letters, the records.
    const auditWindow = `--from ${new Date(started).toISOString()} --to ${new Date().toISOString()}`;
    const audited = await runner.operate(['audit', ...auditWindow.split(' ')]);
    await runner.readQuarantine();
    const audit = runner.audit();
    const summary = [
      'Summary',
      ...summaryTable(runner, deliveries, audit, 1),
      ...audit.problems.map((problem) => `  ✗ ${problem}`),
      ...runner.quarantined.map((message) => `  quarantined: ${message.reason ?? '(no reason)'}`),
      `  Settlements published again for the re-sent ids: ${republished}`,
      `  Recovered by reconciliation: ${recovered} (lost by the bank: ${lost.length}, duplicates: ${recoveredDuplicates})`,
    ];
    console.log(`\n${summary.join('\n')}`);
    const notDelivered = deliveries.filter((d) => d.outcome === 'NÃO ENTREGUE');
    const sampleDrift = docSampleDrift(summary);
    if (sampleDrift)
      console.log(
        `  ✗ docs/local-runner.md's sample summary is not what this run printed (${sampleDrift}): copy the summary above into it`,
      );
    const shell = (argv: string, why: string, run: { out: string; err: string }) =>
      console.log(
        `\n$ cdk-bank-webhooks ${argv} --stack ${runner.stackName}${why ? `   # ${why}` : ''}\n${[run.out, run.err].filter(Boolean).join('\n').replace(/^/gm, '  ')}`,
      );
    shell('status', '', status);
    shell(`trace ${recoveredNumber}`, 'lost by the bank, recovered by the sweep', recoveredTrace);
    shell(`trace ${notifiedNumber}`, 'notified twice, settled by COMPE', notifiedTrace);
    shell(`audit ${auditWindow}`, "the promise, over the demo's record", audited);
    console.log(
      `  (the raw notification: ${rawCopy ? `${Buffer.byteLength(rawCopy)} bytes, as the receiver stored it` : 'MISSING'})`,
    );
    const tree = await traceOf(runner, collector, notifiedNumber);
    console.log(
      `\nOne trace: boleto ${notifiedNumber}'s settlement, from the bank's POST to the consumer, as the local OTLP collector received it\n${tree.lines.map((line) => `  ${line}`).join('\n')}`,
    );
    const ok =
      audit.ok &&
      audited.status === 0 &&
      notDelivered.length === lost.length &&
      runner.quarantined.length === 1 &&
      recovered === lost.length &&
      recoveredDuplicates === 0 &&
      recoveredAlarm === LocalAlarmState.ALARM &&
      !!blocked &&
      driftAlarm === LocalAlarmState.ALARM &&
      forged.status === 401 &&
      wrongToken.status === 401 &&
      junkStatus === 200 &&
      resentStatus === 200 &&
      republished === 0 &&
      recordOk &&
      // 8 Pix received (one paid a recurring charge) and 2 refunds (one the provider made under MED); another customer's Pix, delivered twice, dropped twice.
      pix.published() === 10 &&
      pix.recurring.ok &&
      pix.medRefunds === 1 &&
      pix.quietCharge === 1 &&
      pix.foreign === 2 &&
      !sampleDrift &&
      tree.ok;
    console.log('');
    await runner.unregister();
    const after = await runner.control.registrations();
    const contractsAfter = await runner.control.contracts();
    const pixAfter = await runner.control.pix.state();
    const recurringAfter = Object.keys((await runner.control.pix.recurringState()).webhooks).length;
    say(
      `Unregistered (CloudFormation Delete): payments callback ${after[0]?.urlCallback ? 'still set' : 'cleared'}, boleto contract ${contractsAfter[0]?.contratoStatus ?? 'gone'}, Pix key webhooks ${pixAfter.webhooks.length} left, Pix Automático webhooks ${recurringAfter} left`,
    );
    // cdk destroy removes each Pix key's webhook and the account's recurring ones too (ours, so they go).
    exitCode = ok && pixAfter.webhooks.length === 0 && recurringAfter === 0 ? 0 : 1;
    say(
      ok
        ? "Every change was published exactly once, and every notification is accounted for by the bank's verified state or a deliberate quarantine."
        : 'FAILED: see the problems above and the function logs.',
    );
  } finally {
    await runner.stop();
    await collector.stop();
  }
  return exitCode;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(
        `${stamp()} The demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      process.exit(1);
    },
  );
}
