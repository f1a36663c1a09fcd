/** The receiver's sections of `npm run bench`: its requests against a bare SendMessage, and its cold start. */
import { join } from 'node:path';
import { restProxyEvent } from '../local-aws/api-gateway';
import { BenchWorker } from './bench-worker';
import { type ColdStart, coldStartMs } from './cold-start';
import { ms, PLAN, rate, receiverBundle } from './plan';
import { formatTable } from './report';
import { type BenchContext, forked, medians, pairedRatio, pixCallbackBody } from './sections';
import { median, round } from './stats';

/**
 * The receiver handler against a bare SendMessage, forked and paired round by round: on the
 * payments route (a token checked) and on the Pix route (a callback with three Pix; no token,
 * its body read for the validation call), each against a SendMessage of its own envelope.
 */
export async function receiverSection(ctx: BenchContext): Promise<void> {
  const { peers, results, details, logs, section, floorSend } = ctx;
  const body = await ctx.notificationBody();
  const pixBody = pixCallbackBody();
  const p = PLAN.receiver;
  const runners = ['receiver', 'floor', 'pix', 'pixFloor'] as const;
  const runs = await forked(p.forks, p, () => {
    const worker = new BenchWorker(peers.receiverEnvironment(), join(logs, 'receiver.log'));
    const notify = (floor: boolean, route: 'payments' | 'pix', what: unknown) => () => worker.run({
      type: 'notify', entry: floor ? floorSend : receiverBundle, floor, route, token: peers.token, body: what, requests: p.requests, concurrency: p.concurrency,
    });
    return {
      runners: { receiver: notify(false, 'payments', body), floor: notify(true, 'payments', body), pix: notify(false, 'pix', pixBody), pixFloor: notify(true, 'pix', pixBody) },
      stop: () => worker.stop(),
    };
  }, () => peers.purgeQueue());
  results.receiver_p99_ratio = round(pairedRatio(runs.receiver, runs.floor, 'p99Ms', runners.length));
  results.receiver_throughput_ratio = round(pairedRatio(runs.receiver, runs.floor, 'perSecond', runners.length));
  results.receiver_pix_p99_ratio = round(pairedRatio(runs.pix, runs.pixFloor, 'p99Ms', runners.length));
  results.receiver_pix_throughput_ratio = round(pairedRatio(runs.pix, runs.pixFloor, 'perSecond', runners.length));
  const [r, f, x, xf] = [medians(runs.receiver), medians(runs.floor), medians(runs.pix), medians(runs.pixFloor)];
  details.receiver = {
    receiver: r, bare_send_message: f, pix_route: x, bare_send_message_pix: xf, plan: p,
    by_round: runs.receiver.map((run, i) => ({ rate_ratio: round(run.perSecond / runs.floor[i].perSecond), p99_ratio: round(run.p99Ms / runs.floor[i].p99Ms) })),
    pix_by_round: runs.pix.map((run, i) => ({ rate_ratio: round(run.perSecond / runs.pixFloor[i].perSecond), p99_ratio: round(run.p99Ms / runs.pixFloor[i].p99Ms) })),
  };
  section(`Receiver in one process, concurrency ${p.concurrency}, ${p.requests} requests × ${p.repetitions} rounds × ${p.forks} processes (medians)`, formatTable(['', 'p50', 'p99', 'rate', 'CPU per request'], [
    ['receiver handler, /payments', ms(r.p50Ms), ms(r.p99Ms), rate(r.perSecond), ms(r.cpuMsPerOperation, 2)],
    ['bare SendMessage', ms(f.p50Ms), ms(f.p99Ms), rate(f.perSecond), ms(f.cpuMsPerOperation, 2)],
    ['receiver handler, /pix (three Pix)', ms(x.p50Ms), ms(x.p99Ms), rate(x.perSecond), ms(x.cpuMsPerOperation, 2)],
    ['bare SendMessage of its envelope', ms(xf.p50Ms), ms(xf.p99Ms), rate(xf.perSecond), ms(xf.cpuMsPerOperation, 2)],
  ]));
}

/** Module load and first invocation, in fresh processes, the receiver's bundle against the same SDK clients and one SendMessage. */
export async function coldStartSection(ctx: BenchContext): Promise<void> {
  const { peers, results, details, section, floorSend, preload } = ctx;
  const body = await ctx.notificationBody();
  const receiverEvent = restProxyEvent({ route: 'payments', headers: { Authorization: peers.token, 'Content-Type': 'application/json' }, body: JSON.stringify(body), sourceIp: '127.0.0.1' });
  const floorEvent = { messageBody: JSON.stringify({ body }), route: 'payments' };
  const environment = peers.receiverEnvironment();
  const starts: Record<'receiver' | 'floor' | 'authenticating', ColdStart[]> = { receiver: [], floor: [], authenticating: [] };
  await coldStartMs(receiverBundle, receiverEvent, environment, preload); // warm the file system cache
  await coldStartMs(floorSend, floorEvent, environment, preload);
  const start = {
    receiver: () => coldStartMs(receiverBundle, receiverEvent, environment, preload),
    floor: () => coldStartMs(floorSend, floorEvent, environment, preload),
    authenticating: () => coldStartMs(floorSend, floorEvent, environment, preload, 'authenticatingHandler'),
  };
  const order = Object.keys(start) as (keyof typeof start)[];
  // The order turns each round: the first process after the stand-ins' last answers starts on a busier machine.
  for (let i = 0; i < PLAN.coldStart.processes; i++) {
    for (let j = 0; j < order.length; j++) {
      const which = order[(i + j) % order.length];
      starts[which].push(await start[which]());
    }
  }
  const summary = (list: ColdStart[]) => ({ ms: median(list.map((s) => s.ms)), loadMs: median(list.map((s) => s.loadMs)), firstCallMs: median(list.map((s) => s.ms - s.loadMs)) });
  const [r, f, a] = [summary(starts.receiver), summary(starts.floor), summary(starts.authenticating)];
  results.cold_start_ratio = round(r.ms / f.ms);
  // No target: the receiver against a floor that reads its token once too (what the secret's read costs, apart from the receiver's code).
  results.cold_start_ratio_authenticating_floor = round(r.ms / a.ms);
  details.cold_start_ms = { receiver: r, floor: f, authenticating_floor: a, processes: PLAN.coldStart.processes };
  section(`Cold start: module load + first invocation, median of ${PLAN.coldStart.processes} fresh node processes each`, formatTable(['', 'total', 'load', 'first call'], [
    ['receiver bundle (token check + SendMessage)', ms(r.ms), ms(r.loadMs), ms(r.firstCallMs)],
    ['same SDK clients + one SendMessage', ms(f.ms), ms(f.loadMs), ms(f.firstCallMs)],
    ['the same + one GetSecretValue first (no target)', ms(a.ms), ms(a.loadMs), ms(a.firstCallMs)],
  ]));
}

