/**
 * What the reconciliation sweep costs in bank calls: the sweep bundle against the simulator's
 * listing, with a day of settlements of which a share was lost (no record holds them) and the
 * rest published (their records written as the processor writes them). A first sweep reads the
 * whole day; then, sweep after sweep, a few settlements come in between (as through a day), and
 * each sweep's listing calls and look requests are counted by the bank itself.
 */
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { DynamoDbSubjectStore, EMPTY_RECORD } from '../../lambda/store/subject-store';
import { StatusClass } from '../../contracts/events';
import { SweepDefaults, type SweepReport } from '../../contracts/reconciliation';
import { bankDay } from '../../lambda/bank/cooperative/answers';
import { subjectIdOf } from '../../lambda/store/look-request';
import { QueryOperation } from '../../simulator/simulator';
import { HANDLER_OUT_DIR } from '../bundle-handlers';
import { LocalFunction } from '../local-aws/local-function';
import type { BenchPeers } from './peers';

export interface ReconciliationPlan {
  /** Settlements on the day swept. */
  readonly settledPerDay: number;
  /** Share of them whose notification was lost. */
  readonly lostFraction: number;
  /** Sweeps measured after the first, with the settlements of one interval between each. */
  readonly steadySweeps: number;
}

export interface ReconciliationCost {
  readonly firstSweep: { readonly listingCalls: number; readonly lookRequests: number; readonly lost: number; readonly ms: number };
  readonly steady: { readonly listingCallsPerSweep: number; readonly lookRequestsPerSweep: number; readonly boletoQueriesBySweep: number; readonly msPerSweep: number };
  readonly sweepsPerDay: number;
  /** Listing calls a day, plus one boleto query per lost settlement (made by the processor). */
  readonly bankCallsPerDay: number;
}

export async function reconciliationCost(peers: BenchPeers, plan: ReconciliationPlan, logDir: string): Promise<ReconciliationCost> {
  const log = createWriteStream(join(logDir, 'reconciliation.log'));
  const sweeper = new LocalFunction({
    name: 'reconciliation', entry: join(HANDLER_OUT_DIR, 'reconciliation', 'index.js'), environment: peers.sweepEnvironment(), timeoutMs: SweepDefaults.timeoutSeconds * 1000, memoryMb: 512,
    onLog: (line) => log.write(`${line}\n`),
  });
  const store = new DynamoDbSubjectStore(peers.dynamo.client, peers.tableName, 86_400);
  const beneficiario = peers.simulator.accounts[0].beneficiario;
  const day = bankDay(Date.now()).iso;
  let settled = 0;
  /** Settles `count` boletos; those not `lost` get the record the processor would have written. */
  const settle = async (count: number, lost: (i: number) => boolean): Promise<number> => {
    let lostCount = 0;
    for (let i = 0; i < count; i++) {
      const cents = 10_000 + settled++;
      const boleto = await peers.simulator.control.createBoleto({ valor: (cents / 100).toFixed(2) });
      await peers.simulator.control.settleBoleto(boleto.nossoNumero);
      if (lost(i)) {
        lostCount++;
        continue;
      }
      const id = `${day}:${cents}`;
      await store.write(subjectIdOf({ kind: 'boleto', nossoNumero: boleto.nossoNumero }, beneficiario), 0, {
        ...EMPTY_RECORD, sequence: 1, history: [`${StatusClass.SETTLED}:${id}`],
        state: { status: 'LIQUIDADO', statusClass: StatusClass.SETTLED, settlement: { id, date: day, amount: { cents, decimal: (cents / 100).toFixed(2) } } },
      });
    }
    return lostCount;
  };
  const sweep = async () => {
    const before = peers.simulator.queryCounts();
    const started = performance.now();
    const report = await sweeper.invoke<SweepReport>({ 'detail-type': 'Scheduled Event', source: 'aws.events', time: new Date().toISOString(), detail: {} });
    const after = peers.simulator.queryCounts();
    return {
      report, ms: performance.now() - started,
      listingCalls: after[QueryOperation.SETTLED_LISTING] - before[QueryOperation.SETTLED_LISTING],
      boletoQueries: after[QueryOperation.BOLETO_QUERY] - before[QueryOperation.BOLETO_QUERY],
    };
  };
  try {
    const every = Math.round(1 / plan.lostFraction);
    const lost = await settle(plan.settledPerDay, (i) => i % every === 0);
    const first = await sweep();
    if (first.report.settlementsToVerify !== lost) {
      throw new Error(`the first sweep asked about ${first.report.settlementsToVerify} settlements; ${lost} were lost (the section must run before any other settles boletos on the same bank)`);
    }
    const sweepsPerDay = (24 * 60) / SweepDefaults.intervalMinutes;
    const perInterval = Math.max(1, Math.round(plan.settledPerDay / sweepsPerDay));
    const steady: Array<Awaited<ReturnType<typeof sweep>>> = [];
    for (let i = 0; i < plan.steadySweeps; i++) {
      await settle(perInterval, () => false);
      steady.push(await sweep());
    }
    const mean = (pick: (s: (typeof steady)[number]) => number) => steady.reduce((total, s) => total + pick(s), 0) / steady.length;
    const listingCallsPerSweep = mean((s) => s.listingCalls);
    return {
      firstSweep: { listingCalls: first.listingCalls, lookRequests: first.report.settlementsToVerify, lost, ms: first.ms },
      steady: { listingCallsPerSweep, lookRequestsPerSweep: mean((s) => s.report.settlementsToVerify), boletoQueriesBySweep: mean((s) => s.boletoQueries), msPerSweep: mean((s) => s.ms) },
      sweepsPerDay,
      bankCallsPerDay: Math.round(listingCallsPerSweep * sweepsPerDay + plan.settledPerDay * plan.lostFraction),
    };
  } finally {
    await sweeper.stop();
    await new Promise((resolve) => log.end(resolve));
    await peers.purgeQueue();
  }
}
