import { randomUUID } from 'node:crypto';
import type { Route } from '../../contracts/receiver';
import { encodeStoredNotification } from '../../lambda/store/stored-notification';
import { mapConcurrently } from '../../lambda/shared/concurrency';
import type { BankSimulatorClient } from '../../simulator/control-client';
import { median, type RunSummary, summarizeRun, type TimedRun } from './stats';
import type { BenchPeers } from './peers';

export interface Repetitions {
  readonly warmup: number;
  readonly repetitions: number;
}

/**
 * Runs each of `runners` `repetitions` times, in turn and in a rotating order, after `warmup`
 * rounds that are not counted; `between` runs after every run. Returns each runner's summaries
 * by round.
 */
export async function alternate<K extends string>(
  reps: Repetitions,
  runners: Record<K, (round: number) => Promise<TimedRun>>,
  between: () => Promise<void> = () => Promise.resolve(),
): Promise<Record<K, RunSummary[]>> {
  const names = Object.keys(runners) as K[];
  const runs = Object.fromEntries(names.map((name) => [name, [] as RunSummary[]])) as Record<K, RunSummary[]>;
  for (let round = 0; round < reps.warmup + reps.repetitions; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]);
    for (const name of order) {
      const run = await runners[name](round);
      if (round >= reps.warmup) runs[name].push(summarizeRun(run));
      await between();
    }
  }
  return runs;
}

/** The runners of one fork, and how to end its processes. */
export interface Fork<K extends string> {
  readonly runners: Record<K, (round: number) => Promise<TimedRun>>;
  readonly stop: () => Promise<void>;
}

/**
 * {@link alternate} in `forks` fresh sets of processes, one after the other, each with its own
 * warm-up; the rounds of all of them, in order. A process's JIT can settle on faster or slower
 * code for the whole of its life (runs of one process measured 0.82 of another's on the same
 * code), so, as JMH runs a benchmark in several forks of the JVM, no one process decides a ratio.
 */
export async function forked<K extends string>(forks: number, reps: Repetitions, start: () => Fork<K>, between?: () => Promise<void>): Promise<Record<K, RunSummary[]>> {
  let all: Record<K, RunSummary[]> | undefined;
  for (let i = 0; i < forks; i++) {
    const fork = start();
    try {
      const runs = await alternate(reps, fork.runners, between);
      all = all ? Object.fromEntries(Object.entries(all).map(([name, list]) => [name, [...(list as RunSummary[]), ...runs[name as K]]])) as Record<K, RunSummary[]> : runs;
    } finally {
      await fork.stop();
    }
  }
  return all!;
}

/** Medians of a runner's rounds. */
export function medians(runs: readonly RunSummary[]): { p50Ms: number; p99Ms: number; perSecond: number; cpuMsPerOperation?: number } {
  const cpu = runs.flatMap((r) => (r.cpuMsPerOperation === undefined ? [] : [r.cpuMsPerOperation]));
  return {
    p50Ms: median(runs.map((r) => r.p50Ms)), p99Ms: median(runs.map((r) => r.p99Ms)), perSecond: median(runs.map((r) => r.perSecond)),
    ...(cpu.length ? { cpuMsPerOperation: median(cpu) } : {}),
  };
}

/**
 * `field` of `subject` over `floor`, same round against same round: a round's runs share the
 * machine's state (other processes, the queue's size, the JIT), so their ratio is steadier than a
 * ratio of medians. Which runner goes first in a round matters (the second inherits the first's
 * garbage and the queue service's work), so rounds are taken in blocks of `block` consecutive
 * rounds (one full rotation of {@link alternate}'s order; the geometric mean of their ratios),
 * and the result is the median of the blocks. Rounds that do not fill a block are refused.
 */
export function pairedRatio(subject: readonly RunSummary[], floor: readonly RunSummary[], field: 'p99Ms' | 'perSecond', block = 1): number {
  if (subject.length !== floor.length) throw new Error(`pairedRatio needs as many rounds of each (${subject.length} and ${floor.length})`);
  if (subject.length === 0 || subject.length % block !== 0) throw new Error(`pairedRatio needs whole blocks of ${block} rounds; got ${subject.length}`);
  const blocks: number[] = [];
  for (let start = 0; start < subject.length; start += block) {
    let logSum = 0;
    for (let i = start; i < start + block; i++) logSum += Math.log(subject[i][field] / floor[i][field]);
    blocks.push(Math.exp(logSum / block));
  }
  return median(blocks);
}

/** A boleto notification body as the bank sends it, for a boleto the simulator holds as settled. */
export async function settledBoletoNotifications(control: BankSimulatorClient, count: number): Promise<unknown[]> {
  const bodies: unknown[] = new Array(count);
  await mapConcurrently(Array.from({ length: count }, (_, i) => i), 8, async (i) => {
    const boleto = await control.createBoleto({ valor: (100 + (i % 900)).toFixed(2) });
    bodies[i] = (await control.settleBoleto(boleto.nossoNumero, { canal: 'PIX' })).notification;
  });
  return bodies;
}

/**
 * Pix callbacks as the provider sends them, one Pix each, for Pix the simulator's provider holds
 * for the account (paid to its first key with a static code's txid; no webhook, so none is sent).
 */
export async function receivedPixCallbacks(control: BankSimulatorClient, count: number): Promise<unknown[]> {
  const [chave] = (await control.pix.state()).keys;
  const bodies: unknown[] = new Array(count);
  await mapConcurrently(Array.from({ length: count }, (_, i) => i), 8, async (i) => {
    const [pix] = (await control.pix.payKey(chave, { valor: (1 + (i % 900)).toFixed(2), txid: `QR${i}` })).pix;
    bodies[i] = { pix: [{ endToEndId: pix.endToEndId, txid: pix.txid, valor: pix.valor, chave: pix.chave, horario: pix.horario }] };
  });
  return bodies;
}

/** `/cobr` callbacks of recurring charges issued (each of its own approved recurrence), as the provider sends them. */
export async function issuedRecurringCharges(control: BankSimulatorClient, count: number): Promise<unknown[]> {
  const bodies: unknown[] = new Array(count);
  await mapConcurrently(Array.from({ length: count }, (_, i) => i), 8, async (i) => {
    const { idRec } = await control.pix.createRecurrence({ valorRec: (1 + (i % 900)).toFixed(2) });
    await control.pix.approveRecurrence(idRec);
    const charge = await control.pix.issueRecurringCharge(idRec);
    bodies[i] = { cobsr: [{ idRec, txid: charge.txid, status: charge.status }] };
  });
  return bodies;
}

/** SQS message bodies as the receiver stores them (from `route`), in batches of `batchSize`. */
export function storedBatches(bodies: readonly unknown[], batchSize: number, route: Route = 'boleto'): string[][] {
  const messages = bodies.map((body) => encodeStoredNotification(
    { route, receivedAt: new Date().toISOString(), requestId: randomUUID(), sourceIp: '127.0.0.1', contentType: 'application/json' },
    Buffer.from(JSON.stringify(body)),
  ));
  const batches: string[][] = [];
  for (let i = 0; i < messages.length; i += batchSize) batches.push(messages.slice(i, i + batchSize));
  return batches;
}


/** A Pix callback as the provider sends it: three Pix of one key. */
export function pixCallbackBody(): unknown {
  return {
    pix: [1, 2, 3].map((i) => ({
      endToEndId: `E0118152120261127120000000000${i}`.padEnd(32, '0'), txid: `QR${i}`, valor: `${i}0.00`, chave: 'pix@example.com', horario: '2026-11-27T12:00:00.000Z', infoPagador: 'pedido',
    })),
  };
}

/** What every section works with and writes to. */
export interface BenchContext {
  readonly peers: BenchPeers;
  readonly work: string;
  readonly logs: string;
  /** The baselines' and the DNS preload's bundles. */
  readonly floorSend: string;
  readonly floorVerify: string;
  readonly preload: string;
  readonly results: Record<string, number>;
  readonly details: Record<string, unknown>;
  /** Prints a section's table. */
  readonly section: (title: string, table: string) => void;
  /** One settled boleto's notification, made once for the receiver and the cold start. */
  readonly notificationBody: () => Promise<unknown>;
}
