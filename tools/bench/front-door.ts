import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mapConcurrently } from '../../lambda/shared/concurrency';
import { LocalRunner } from '../local-runner/runner';
import { peakRssMb } from './bench-worker';
import { median, percentile } from './stats';
import { LocalReceiverStack, QUERIES_PER_SECOND_CONTEXT_KEY } from '../local-runner/local-stack';

export interface FrontDoorLoad {
  /** Notifications per second the bank sends. */
  readonly ratePerSecond: number;
  /** Length of one measured round. */
  readonly seconds: number;
  /** Measured rounds: each figure is the median of the rounds (one stall decides a single round's p99). */
  readonly rounds: number;
  /** Seconds at the same rate before the measured rounds, not counted. */
  readonly warmupSeconds: number;
  /** Length of each run that times the bank's POST to the verified event, with the processor working. */
  readonly latencySeconds: number;
  /** The bank's rates in those runs. */
  readonly latencyRates: readonly number[];
}

/** From the bank's POST to the verified event on the bus, at one rate. */
export interface PostToEvent {
  readonly ratePerSecond: number;
  readonly notifications: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** Ack times of one round, from the bank's delivery log. */
export interface AckRound {
  readonly sent: number;
  readonly delivered: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly offeredPerSecond: number;
}

export interface FrontDoorResult {
  readonly sent: number;
  readonly delivered: number;
  readonly notDelivered: number;
  /** Medians of the rounds. */
  readonly ackP50Ms: number;
  readonly ackP99Ms: number;
  readonly ackMaxMs: number;
  /** Settlements the bank managed per second (the load actually offered; median of the rounds). */
  readonly offeredPerSecond: number;
  readonly rounds: readonly AckRound[];
  readonly receiver: { readonly peakRssMb: number; readonly memoryMb: number };
  readonly processor: { readonly peakRssMb: number; readonly memoryMb: number; readonly verifiedEvents: number; readonly verifiedPerSecond: number; readonly seconds: number };
  /** From the bank's POST to the verified event on the bus, with the processor working during the load. */
  readonly postToEvent: readonly PostToEvent[];
}

/**
 * Settles `boletos` at `ratePerSecond` in an open loop (each on the clock, whatever the earlier
 * ones are doing); every settlement is a notification the bank delivers at once.
 */
async function settleAtRate(runner: LocalRunner, boletos: readonly string[], ratePerSecond: number): Promise<void> {
  const failures: string[] = [];
  // In the simulator's process, not over its control API: the load generator's own HTTPS calls
  // would take CPU from the deliveries it measures (the bank, the front door and the runner share it).
  const settle = (nossoNumero: string) => {
    try {
      runner.simulator.changeBoleto(nossoNumero, 'settle', { canal: 'PIX' });
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
    }
  };
  const started = performance.now();
  const tickMs = 5; // one settlement per tick at 200/s: evenly spaced, not bursts of ten every 50 ms
  await new Promise<void>((resolve) => {
    let next = 0;
    const timer = setInterval(() => {
      const due = Math.min(boletos.length, Math.ceil(((performance.now() - started) / 1000) * ratePerSecond));
      while (next < due) settle(boletos[next++]);
      if (next >= boletos.length) {
        clearInterval(timer);
        resolve();
      }
    }, tickMs);
  });
  if (failures.length) throw new Error(`${failures.length} of ${boletos.length} settlements failed in the simulator (the load generator, not the flow measured): ${failures[0]}`);
}

/**
 * The whole local flow (the example stack in the local runner: the bank simulator, the front
 * door, the receiver and processor bundles in their own processes, fauxqs) under the bank's
 * load: boletos are made first, then settled at `ratePerSecond`, each settlement a notification
 * the bank delivers at once: a warm-up, then `rounds` measured rounds of `seconds`. Ack time is
 * the bank's own: from its POST to the 200, as its delivery log records it.
 *
 * On AWS the receiver and the processor never share a CPU; on a small machine they would. So
 * the processor is paused while the bank sends, and then works through the backlog the load
 * left (for as long as a round lasted). Peak memory is each function process's VmHWM. Last, with
 * the queue emptied and the processor working, a run of `latencySeconds` at each of `latencyRates` times each
 * notification from the bank's POST to its verified event on the bus. The query rate is
 * unlimited here (the example's context `bankQueriesPerSecond`): pacing is measured apart.
 */
export async function frontDoorUnderLoad(load: FrontDoorLoad, logDir: string, queriesPerSecond: number): Promise<FrontDoorResult> {
  mkdirSync(logDir, { recursive: true });
  const runner = await LocalRunner.start({
    logDir,
    stack: (app, id) => {
      app.node.setContext(QUERIES_PER_SECOND_CONTEXT_KEY, String(queriesPerSecond));
      return new LocalReceiverStack(app, id);
    },
  });
  try {
    await runner.register();
    await runner.pauseProcessing();
    const perRound = load.ratePerSecond * load.seconds;
    const warmup = load.ratePerSecond * load.warmupSeconds;
    // Boletos are made just before the run that settles them, not all at once beforehand.
    const newBoletos = async (count: number): Promise<string[]> => {
      const made = new Array<string>(count);
      await mapConcurrently(Array.from({ length: count }, (_, i) => i), 8, async (i) => {
        made[i] = (await runner.control.createBoleto({ valor: (10 + (i % 990)).toFixed(2) })).nossoNumero;
      });
      return made;
    };
    // Warm-up: the receiver's first environment starts, and the JIT warms, at the same rate; not counted.
    await settleAtRate(runner, await newBoletos(warmup), load.ratePerSecond);
    if (!(await runner.control.waitForDeliveries(60_000))) throw new Error('the bank still had deliveries in flight a minute after the warm-up');

    const rounds: AckRound[] = [];
    let sent = 0;
    let delivered = 0;
    for (let round = 0; round < load.rounds; round++) {
      // Each round starts from an empty queue, as the first does: a backlog of earlier rounds
      // would make each round measure a larger queue (the last round's is worked through below).
      await runner.purgeQueue();
      const boletos = await newBoletos(perRound);
      const since = (await runner.control.deliveries()).at(-1)?.seq ?? 0;
      const started = performance.now();
      await settleAtRate(runner, boletos, load.ratePerSecond);
      const offeredPerSecond = perRound / ((performance.now() - started) / 1000);
      if (!(await runner.control.waitForDeliveries(60_000))) throw new Error('the bank still had deliveries in flight a minute after the load ended');
      const deliveries = (await runner.control.deliveries(since)).filter((d) => d.kind === 'boleto');
      // The bank's delivery log, without bodies, for looking into the tail (kept with BENCH_KEEP).
      writeFileSync(join(logDir, `deliveries-${round + 1}.json`), JSON.stringify(deliveries.map(({ body: _body, ...record }) => record)));
      const durations = deliveries.filter((d) => d.outcome === 'ENTREGUE').map((d) => d.durationMs);
      sent += deliveries.length;
      delivered += durations.length;
      rounds.push({
        sent: deliveries.length, delivered: durations.length, offeredPerSecond,
        p50Ms: percentile(durations, 50), p99Ms: percentile(durations, 99), maxMs: Math.max(...durations),
      });
    }
    const receiverPid = runner.receiver.pid;
    if (!receiverPid) throw new Error(`the receiver's process was not running at the end of the load; see the logs in ${logDir}`);
    const receiverPeakRssMb = peakRssMb(receiverPid);

    const before = runner.counts().verifiedEvents;
    const drainStarted = performance.now();
    runner.resumeProcessing();
    await new Promise((resolve) => setTimeout(resolve, load.seconds * 1000));
    const processorPid = runner.processor.pid;
    if (!processorPid) throw new Error(`the processor's process was not running after the load; see the logs in ${logDir}`);
    const processorPeakRssMb = peakRssMb(processorPid);
    const drainSeconds = (performance.now() - drainStarted) / 1000;
    const verifiedEvents = runner.counts().verifiedEvents - before;
    await runner.pauseProcessing();

    // POST to verified event: an empty queue, the processor working while the bank sends.
    const arrived = new Map<string, number>();
    runner.events.subscribe((event) => {
      const nossoNumero = (event.detail as { subject?: { nossoNumero?: string } }).subject?.nossoNumero;
      if (nossoNumero && !arrived.has(nossoNumero)) arrived.set(nossoNumero, Date.now());
    });
    const postToEvent: PostToEvent[] = [];
    for (const ratePerSecond of load.latencyRates) {
      await runner.purgeQueue();
      const measured = await newBoletos(ratePerSecond * load.latencySeconds);
      const since = (await runner.control.deliveries()).at(-1)?.seq ?? 0;
      runner.resumeProcessing();
      await settleAtRate(runner, measured, ratePerSecond);
      if (!(await runner.control.waitForDeliveries(60_000))) throw new Error('the bank still had deliveries in flight a minute after the latency run');
      const posted = new Map<string, number>();
      for (const d of await runner.control.deliveries(since)) {
        // The subject reads "boleto <nossoNumero> <movimento>".
        if (d.kind === 'boleto' && d.outcome === 'ENTREGUE' && d.attempt === 1) posted.set(d.subject.split(' ')[1], Date.parse(d.startedAt));
      }
      const until = Date.now() + 120_000;
      while ([...posted.keys()].some((key) => !arrived.has(key)) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
      await runner.pauseProcessing();
      const latencies = [...posted].filter(([key]) => arrived.has(key)).map(([key, at]) => arrived.get(key)! - at);
      if (latencies.length < posted.size) throw new Error(`${posted.size - latencies.length} of ${posted.size} notifications had no verified event two minutes after the latency run; see the logs in ${logDir}`);
      postToEvent.push({ ratePerSecond, notifications: latencies.length, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), maxMs: Math.max(...latencies) });
    }

    const middle = (pick: (round: AckRound) => number) => median(rounds.map(pick));
    return {
      sent,
      delivered,
      notDelivered: sent - delivered,
      ackP50Ms: middle((r) => r.p50Ms),
      ackP99Ms: middle((r) => r.p99Ms),
      ackMaxMs: middle((r) => r.maxMs),
      offeredPerSecond: middle((r) => r.offeredPerSecond),
      rounds,
      receiver: { peakRssMb: receiverPeakRssMb, memoryMb: runner.deployment.receiver.memorySize },
      processor: { peakRssMb: processorPeakRssMb, memoryMb: runner.deployment.processor.memorySize, verifiedEvents, verifiedPerSecond: verifiedEvents / drainSeconds, seconds: drainSeconds },
      postToEvent,
    };
  } finally {
    await runner.stop();
  }
}
