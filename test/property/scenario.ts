/**
 * What one run of the property harness is: the bank's actions over time, the faults at every
 * boundary (by the index of the call, the receive, the notification or the event they hit), how
 * many environments race, and the seed of Math.random. All of it is generated and shrunk by
 * fast-check; `runScenario` plays it in the world (world.ts) until nothing is left to do.
 */
import FakeTimers from '@sinonjs/fake-timers';
import fc from 'fast-check';
import {
  type AnswerVariation,
  type BankAction,
  OPTIONAL_ANSWER_FIELDS,
  PIX_OPTIONAL_FIELDS,
  type PixAction,
  subjectOfNotification,
} from './bank-side';
import { RefundNature, RefundStatus } from '../../contracts/pix';
import {
  PixCallbackKey,
  PixChargePixList,
  PixEndToEndIdField,
  PixQueryTime,
  PixRecurringAnswers,
  PixRefundsShape,
  PixTimeZone,
  STANDARD_PIX_BEHAVIOUR,
} from '../../simulator/pix/pix-behaviour';
import { AwsFault, DeliveryFault, type FaultPlan, type Mutant, ReceiveFault } from './faults';
import type { OutgoingNotification } from '../../simulator/bank';
import { BOLETO_TOKEN, BOLETO_TOKEN_HEADER, PAYMENTS_TOKEN, RECEIVER_ORIGIN } from './bank-side';
import { type Delivery, HARNESS_TIMING, World } from './world';
import { Origin } from './faults';

export interface Step {
  /** After the previous step. */
  readonly afterMs: number;
  readonly action: BankAction;
  /** For this long after the change, a query of the subject answers its state from before. */
  readonly lagMs: number;
}

export interface Scenario {
  readonly boletos: number;
  readonly steps: readonly Step[];
  /** Requests with a forged token, posted among the bank's. */
  readonly forged: number;
  /** Notifications with the token of subjects that are not ours: a payment the bank does not have, a boleto of another beneficiary. */
  readonly foreign: ReadonlyArray<'payment' | 'boleto'>;
  /** Event source mappings' pollers (each its own environments) on the notification queue. */
  readonly pollers: number;
  readonly faults: FaultPlan;
  readonly answers: AnswerVariation;
  /** How the bank sends a boleto event: one object, an array of one, or `{"eventos": [...]}` (BANK-NOTES). */
  readonly boletoShape: 'object' | 'array' | 'eventos';
  readonly randomSeed: number;
  /**
   * After everything settled, the clock moves past the records' lifetime and the bank delivers one
   * of its notifications of a boleto it ends settled again (the `redeliver`-th answered 200): its
   * record's TTL strikes just before the `expireAt`-th DynamoDB call from then, between a look and
   * its write.
   */
  readonly late?: { readonly redeliver: number; readonly expireAt: number };
  /**
   * The receiver's Pix settings: whether it is its account's receiver for keyless Pix
   * (`pix.keylessPix`), and whether the sweep publishes a Pix without a txid
   * (`pix.sweep.publishWithoutTxid`). @default neither
   */
  readonly pixReceiver?: { readonly keylessOwner: boolean; readonly publishWithoutTxid: boolean };
  /**
   * Verification by listing at a peak on (`pix.bulkVerification` with no bound: every Pix callback
   * takes it), the provider's listings as `answers.pixListing` says.
   * @default off
   */
  readonly pixBulk?: boolean;
}

/** The Pix readings the harness varies, at the standard's values. */
const STANDARD_READINGS = {
  pixCallbackKey: STANDARD_PIX_BEHAVIOUR.pixCallbackKey,
  pixChargePixList: STANDARD_PIX_BEHAVIOUR.pixChargePixList,
  pixQueryTime: STANDARD_PIX_BEHAVIOUR.pixQueryTime,
  pixRefundsShape: STANDARD_PIX_BEHAVIOUR.pixRefundsShape,
  pixEndToEndIdField: STANDARD_PIX_BEHAVIOUR.pixEndToEndIdField,
  pixTimeZone: STANDARD_PIX_BEHAVIOUR.pixTimeZone,
};

const planned = <T>(fault: fc.Arbitrary<T>, maxIndex: number, maxLength: number) =>
  fc.array(fc.record({ at: fc.nat(maxIndex), fault }), { maxLength });

/** A Pix movement: paid to our key or another receiver's of the account, a charge of ours paid, a refund (asked for, or MED) reaching its final status. */
const pixAction: fc.Arbitrary<PixAction> = fc.oneof(
  fc.record({
    kind: fc.constant('pix' as const),
    act: fc.constant('pay-key' as const),
    key: fc.constantFrom('ours' as const, 'ours' as const, 'other' as const),
    txid: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('pix' as const),
    act: fc.constant('pay-charge' as const),
    charge: fc.constantFrom('cob' as const, 'cobv' as const),
  }),
  fc.record({ kind: fc.constant('pix' as const), act: fc.constant('pay-account' as const), txid: fc.boolean() }),
  fc.record({
    kind: fc.constant('pix' as const),
    act: fc.constant('refund' as const),
    pix: fc.nat(3),
    natureza: fc.constantFrom(...Object.values(RefundNature).filter((n) => n !== RefundNature.RETIRADA)),
    status: fc.constantFrom(RefundStatus.RETURNED as const, RefundStatus.NOT_DONE as const),
  }),
);

const action: fc.Arbitrary<BankAction> = fc.oneof(
  fc.record({
    kind: fc.constant('boleto' as const),
    boleto: fc.nat(2),
    act: fc.constantFrom('settle' as const, 'settle' as const, 'reverse' as const, 'cancel' as const),
    cents: fc.option(fc.integer({ min: 1, max: 99_999 }), { nil: undefined }),
  }),
  fc.record({
    kind: fc.constant('payment' as const),
    payment: fc.nat(1),
    act: fc.constantFrom(
      'create' as const,
      'create' as const,
      'settle' as const,
      'reject' as const,
      'reverse' as const,
      'cancel' as const,
    ),
  }),
  pixAction,
);

/** Every scenario the harness plays. */
const scenarioFields = fc.record({
  boletos: fc.integer({ min: 1, max: 3 }),
  // Steps close together put several notifications of one subject in one batch, or in two environments at once.
  steps: fc.array(
    fc.record({
      afterMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1_500 }), fc.integer({ min: 0, max: 20_000 })),
      action,
      lagMs: fc.constantFrom(0, 0, 2_000, 90_000, 240_000),
    }),
    { minLength: 2, maxLength: 10 },
  ),
  forged: fc.nat(2),
  foreign: fc.array(fc.constantFrom('payment' as const, 'boleto' as const), { maxLength: 2 }),
  pollers: fc.integer({ min: 1, max: 3 }),
  faults: fc.record({
    aws: planned(fc.constantFrom(AwsFault.THROTTLE, AwsFault.ABANDON_BEFORE, AwsFault.ABANDON_AFTER), 200, 4),
    bank: planned(fc.constantFrom(AwsFault.THROTTLE, AwsFault.ABANDON_BEFORE, AwsFault.ABANDON_AFTER), 40, 3),
    deliveries: planned(fc.constantFrom(DeliveryFault.LOSE, DeliveryFault.DUPLICATE, DeliveryFault.DELAY), 8, 3),
    receives: planned(fc.constant(ReceiveFault.DUPLICATE), 30, 3),
    putEntries: planned(fc.constant(true as const), 10, 2),
  }),
  answers: fc.record({
    omitted: fc.subarray([...OPTIONAL_ANSWER_FIELDS]),
    extraFields: fc.boolean(),
    wrapped: fc.boolean(),
    // The standard's own readings in about a third of the runs: there the OpenAPI judges every Pix answer and callback.
    pix: fc.oneof(
      { arbitrary: fc.constant(STANDARD_READINGS), weight: 1 },
      {
        arbitrary: fc.record({
          pixCallbackKey: fc.constantFrom(...Object.values(PixCallbackKey)),
          pixChargePixList: fc.constantFrom(...Object.values(PixChargePixList)),
          pixQueryTime: fc.constantFrom(...Object.values(PixQueryTime)),
          pixRefundsShape: fc.constantFrom(...Object.values(PixRefundsShape)),
          pixEndToEndIdField: fc.constantFrom(...Object.values(PixEndToEndIdField)),
          pixTimeZone: fc.constantFrom(...Object.values(PixTimeZone)),
        }),
        weight: 2,
      },
    ),
    pixOmitted: fc.subarray([...PIX_OPTIONAL_FIELDS]),
    pixGarbledRefund: fc.oneof(
      { arbitrary: fc.constant(false), weight: 3 },
      { arbitrary: fc.constant(true), weight: 1 },
    ),
  }),
  boletoShape: fc.constantFrom('object' as const, 'array' as const, 'eventos' as const),
  randomSeed: fc.integer(),
  late: fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 3 },
    { arbitrary: fc.record({ redeliver: fc.nat(5), expireAt: fc.nat(6) }), weight: 1 },
  ),
  pixReceiver: fc.record({ keylessOwner: fc.boolean(), publishWithoutTxid: fc.boolean() }),
  // Last, so that a seed draws every field above as it did before Pix Automático was in the harness.
  recurring: fc.option(
    fc.record({
      failFirst: fc.boolean(),
      lagMs: fc.constantFrom(0, 2_000, 90_000),
      // The provider writes only what the schemas require: no attempts, no history, callbacks naming only the id.
      lean: fc.boolean(),
    }),
    { freq: 2 },
  ),
  // Last, so that a seed draws every field above as it did before verification by listing was in the harness.
  bulk: fc.option(fc.record({ pageCap: fc.constantFrom(1, 2, 1000), repeatPage: fc.boolean(), lag: fc.boolean() }), {
    freq: 2,
  }),
});

/** The scenarios: a recurring charge paid, when drawn, is the last step. */
export const scenarios: fc.Arbitrary<Scenario> = scenarioFields.map(({ recurring, bulk, ...drawn }) => {
  const scenario = bulk ? { ...drawn, pixBulk: true, answers: { ...drawn.answers, pixListing: bulk } } : drawn;
  return recurring
    ? {
        ...scenario,
        ...(recurring.lean
          ? {
              answers: {
                ...scenario.answers,
                pix: { ...scenario.answers.pix, pixRecurringAnswers: PixRecurringAnswers.LEAN },
              },
            }
          : {}),
        steps: [
          ...scenario.steps,
          {
            afterMs: 0,
            action: { kind: 'pix' as const, act: 'pay-recurring' as const, failFirst: recurring.failFirst },
            lagMs: recurring.lagMs,
          },
        ],
      }
    : scenario;
});

/** The harness's epoch: a Monday afternoon in Brasília, a bank business day. */
export const START = Date.parse('2026-11-02T18:00:00.000Z');
/** How long after the faults stop everything reported must be published: the retries' span, with room. */
export const SETTLE_BOUND_MS = HARNESS_TIMING.visibilityTimeoutMs * (HARNESS_TIMING.maxReceiveCount + 2) + 10 * 60_000;

function forgedNotification(i: number): OutgoingNotification {
  return {
    id: `forged-${i}`,
    kind: 'boleto',
    subject: 'forged',
    url: `${RECEIVER_ORIGIN}/boleto`,
    authHeader: { name: BOLETO_TOKEN_HEADER, value: 'forged' },
    body: {
      agencia: '0101',
      posto: '02',
      beneficiario: '54321',
      nossoNumero: '001000001',
      movimento: 'LIQUIDACAO_PIX',
      valorLiquidacao: '150.25',
      idEventoWebhook: `forged-${i}`,
    },
  };
}

/** A notification with the right token of what is not ours: a payment the bank does not have, or a boleto of another beneficiary. */
export function foreignNotification(kind: 'payment' | 'boleto', i: number): OutgoingNotification {
  return kind === 'payment'
    ? {
        id: `foreign-${i}`,
        kind,
        subject: `foreign payment ${i}`,
        url: `${RECEIVER_ORIGIN}/payments`,
        authHeader: { name: 'Authorization', value: PAYMENTS_TOKEN },
        body: {
          idTransacao: `tx-foreign-${i}`,
          status: 'EFETIVADO',
          valorPagamento: '999.00',
          dataPagamento: '2026-11-02T15:00:00',
          chavePix: 'someone@example.com',
          endToEnd: `E0000000020261102150000foreign0${i}`,
        },
      }
    : {
        id: `foreign-${i}`,
        kind,
        subject: `foreign boleto ${i}`,
        url: `${RECEIVER_ORIGIN}/boleto`,
        authHeader: { name: BOLETO_TOKEN_HEADER, value: BOLETO_TOKEN },
        body: {
          agencia: '0101',
          posto: '02',
          beneficiario: '99999',
          nossoNumero: `00900000${i}`,
          movimento: 'LIQUIDACAO_PIX',
          valorLiquidacao: '10.00',
          idEventoWebhook: `foreign-${i}`,
        },
      };
}

/** A small seeded generator (mulberry32) for Math.random during a run: the handlers' backoff jitter. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Plays a scenario: the bank's steps at their times, deliveries and forged requests, pollers on
 * both queues; faults stop after the last step, and the run goes on until nothing is left to do
 * (or the bound passes). Answers the world, to be checked by the invariants.
 */
export async function runScenario(scenario: Scenario, scheduler: fc.Scheduler, mutant?: Mutant): Promise<World> {
  const clock = FakeTimers.withGlobal(globalThis).install({
    now: START,
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate', 'Date'],
  });
  const random = Math.random;
  Math.random = seeded(scenario.randomSeed);
  try {
    const world = new World(scheduler, scenario, mutant);
    world.bank.openBoletos(scenario.boletos, 15_025);
    let at = 0;
    for (const step of scenario.steps) {
      at += step.afterMs;
      world.later(at, () => world.bank.act(step.action, step.lagMs));
    }
    for (let i = 0; i < scenario.forged; i++)
      world.later(1_000 + i * 3_000, () => world.deliver(forgedNotification(i), Origin.FORGED));
    scenario.foreign.forEach((kind, i) =>
      world.later(2_000 + i * 5_000, () => world.deliver(foreignNotification(kind, i), Origin.FOREIGN)),
    );
    const faultsStopAt = START + at + 1;
    // The reconciliation sweep's schedule (every 15 minutes): two runs, both after the faults stop.
    for (const when of [1, 2]) world.later(when * HARNESS_TIMING.sweepEveryMs, () => world.sweep());
    setTimeout(() => {
      world.faultsStoppedAt = Date.now();
    }, at + 1);
    const pollers = [
      ...Array.from({ length: scenario.pollers }, () => world.poll(world.queue)),
      world.poll(world.lookQueue),
    ];
    for (;;) {
      await scheduler.waitIdle();
      if (world.quiet() && Date.now() >= faultsStopAt) world.stopped = true;
      if (Date.now() > faultsStopAt + SETTLE_BOUND_MS) world.stopped = true;
      if (clock.countTimers() === 0) break;
      clock.next();
    }
    await Promise.race([Promise.all(pollers), scheduler.waitIdle()]);
    if (scenario.late) await latePhase(world, scenario.late, clock, scheduler);
    return world;
  } finally {
    Math.random = random;
    clock.uninstall();
  }
}

/** The late phase (Scenario.late): a notification again, after its record's lifetime, the TTL striking mid-look. */
async function latePhase(
  world: World,
  late: NonNullable<Scenario['late']>,
  clock: ReturnType<ReturnType<typeof FakeTimers.withGlobal>['install']>,
  scheduler: fc.Scheduler,
): Promise<void> {
  // A notification of a boleto the bank ends settled: its state is dated (the settlement's date), which
  // the records-lifetime rule reads. A state with no date is published again past its record's
  // lifetime, sequence from 1 (docs/events.md, "Guarantees and limits"): not played here.
  const settledAtTheEnd = (d: Delivery) => {
    const subject = subjectOfNotification(d.notification.body);
    return d.notification.kind === 'boleto' && !!subject && world.bank.ledger.get(subject)?.at(-1)?.cents !== undefined;
  };
  const delivered = world.deliveries.filter((d) => d.origin === Origin.BANK && d.status === 200 && settledAtTheEnd(d));
  if (!delivered.length) return;
  // Past every record's expiration (written at most SETTLE_BOUND_MS ago), a day more: the TTL may delete any of them.
  clock.setSystemTime(Date.now() + world.settings.idempotencyTtlSeconds * 1000 + SETTLE_BOUND_MS + 86_400_000);
  world.beginLatePhase(late.expireAt);
  const pollers = [world.poll(world.queue), world.poll(world.lookQueue)];
  const from = Date.now();
  void world.deliver(delivered[late.redeliver % delivered.length].notification, Origin.BANK);
  for (;;) {
    await scheduler.waitIdle();
    if (world.quiet() || Date.now() > from + SETTLE_BOUND_MS) world.stopped = true;
    if (clock.countTimers() === 0) break;
    clock.next();
  }
  await Promise.race([Promise.all(pollers), scheduler.waitIdle()]);
}
