import {
  CallKind,
  IDLE_WAIT_MS,
  IdleTimePacer,
  MAX_PUSH_BACK_MS,
  PacerByKind,
  MAX_SLOTS_PER_RESERVATION,
  MemorySlotSchedule,
  OutOfRate,
  RatePacer,
  SLOWDOWN_HALF_LIFE_MS,
  type SlotSchedule,
  type Slowdown,
} from '../../../lambda/bank/pacing';
import { DynamoDbSlotSchedule } from '../../../lambda/store/slot-schedule';
import { type Dynalite, startDynalite } from '../../../tools/local-aws/dynalite';

/** A clock that only moves when a pacer sleeps (or the test says so), and the times calls went out. */
function fakeTime(start = 1_000_000) {
  const clock = { now: start };
  const sent: number[] = [];
  return {
    clock,
    sent,
    now: () => clock.now,
    // Sleeps of concurrent callers overlap: each wakes at its own time, the clock never goes back.
    sleep: (ms: number) =>
      new Promise<void>((resolve) =>
        setImmediate(() => {
          clock.now = Math.max(clock.now, clock.now + ms);
          resolve();
        }),
      ),
  };
}

/** Counts the writes a schedule receives. */
function counted(schedule: SlotSchedule): SlotSchedule & { reservations: number } {
  const wrapper = {
    reservations: 0,
    reserve: (cost: number, floor: number, latest: number) => {
      wrapper.reservations++;
      return schedule.reserve(cost, floor, latest);
    },
    pushBack: (until: number, slowdown: Slowdown) => schedule.pushBack(until, slowdown),
  };
  return wrapper;
}

describe('RatePacer', () => {
  it('spaces the calls of one environment by the interval of its rate', async () => {
    const t = fakeTime();
    const pacer = new RatePacer(new MemorySlotSchedule(), {
      ratePerSecond: 10,
      name: 'queries',
      now: t.now,
      sleep: t.sleep,
    });
    const start = t.now();
    for (let i = 0; i < 5; i++) {
      await pacer.acquire('query', start + 60_000);
      t.sent.push(t.now() - start);
    }
    expect(t.sent).toEqual([0, 100, 200, 300, 400]);
  });

  it('keeps one rate between environments that share the schedule, whatever their number', async () => {
    const schedule = new MemorySlotSchedule();
    const start = 5_000_000;
    // Sixteen environments, each asking for its slots at once: the slots handed out never overlap.
    const slots: number[] = [];
    const pacers = Array.from(
      { length: 16 },
      () =>
        new RatePacer(schedule, {
          ratePerSecond: 10,
          name: 'queries',
          now: () => start,
          sleep: (ms) => {
            slots.push(start + ms);
            return Promise.resolve();
          },
        }),
    );
    await Promise.all(pacers.flatMap((pacer) => [0, 1, 2].map(() => pacer.acquire('query', start + 60_000))));
    const sorted = [...slots, ...Array(48 - slots.length).fill(start)].sort((a, b) => a - b);
    expect(sorted).toHaveLength(48);
    // 48 calls at 10/s take 4.7 s of slots, 100 ms apart.
    expect(sorted[47] - sorted[0]).toBe(4_700);
    sorted.slice(1).forEach((slot, i) => expect(slot - sorted[i]).toBe(100));
  });

  it('takes the slots of calls waiting at once in one reservation', async () => {
    const t = fakeTime();
    const schedule = counted(new MemorySlotSchedule());
    const pacer = new RatePacer(schedule, { ratePerSecond: 10, name: 'queries', now: t.now, sleep: t.sleep });
    await Promise.all(Array.from({ length: 8 }, () => pacer.acquire('query', t.now() + 60_000)));
    // The first call reserves alone (nobody else was waiting yet); the others in batches of up to 4.
    expect(schedule.reservations).toBeLessThanOrEqual(1 + Math.ceil(7 / MAX_SLOTS_PER_RESERVATION));
  });

  it('at a generous rate, takes slots for the calls about to come too: one write serves several calls one after the other', async () => {
    const t = fakeTime();
    const schedule = counted(new MemorySlotSchedule());
    const pacer = new RatePacer(schedule, { ratePerSecond: 1_000, name: 'queries', now: t.now, sleep: t.sleep });
    for (let i = 0; i < 30; i++) await pacer.acquire('query', t.now() + 60_000);
    expect(schedule.reservations).toBe(3);
    // At 10/s each call reserves its own slot: no spare slot would be taken and go unused.
    const slow = counted(new MemorySlotSchedule());
    const paced = new RatePacer(slow, { ratePerSecond: 10, name: 'queries', now: t.now, sleep: t.sleep });
    for (let i = 0; i < 5; i++) await paced.acquire('query', t.now() + 60_000);
    expect(slow.reservations).toBe(5);
  });

  it('refuses a call whose slot starts after its deadline, taking nothing and saying when to come back', async () => {
    const t = fakeTime();
    const schedule = new MemorySlotSchedule();
    schedule.next = t.now() + 30_000; // the rate is taken for the next 30 s
    const pacer = new RatePacer(schedule, { ratePerSecond: 10, name: 'bank queries', now: t.now, sleep: t.sleep });

    const error = (await pacer
      .acquire('boleto query (nossoNumero 1)', t.now() + 5_000)
      .catch((e: unknown) => e)) as OutOfRate;
    expect(error).toBeInstanceOf(OutOfRate);
    expect(error).toMatchObject({
      retryAt: t.now() + 30_000,
      retryable: true,
      outOfTime: true,
      operation: 'boleto query (nossoNumero 1)',
    });
    expect(error.message).toBe(
      "boleto query (nossoNumero 1) failed: bank queries: no slot of the 10/s rate before this invocation's deadline (the next starts in 30000 ms)",
    );
    expect(schedule.next).toBe(t.now() + 30_000);
  });

  it('gives a lone call the slot that fits when a batch of them does not', async () => {
    const t = fakeTime();
    const schedule = new MemorySlotSchedule();
    const pacer = new RatePacer(schedule, { ratePerSecond: 10, name: 'queries', now: t.now, sleep: t.sleep });
    schedule.next = t.now() + 1_000;
    // Room for one slot (at +1000) and not two: each must start 200 ms before the deadline.
    const deadline = t.now() + 1_250;
    const outcomes = await Promise.allSettled([0, 1, 2].map(() => pacer.acquire('query', deadline)));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(schedule.next).toBe(deadline - 250 + 100);
  });

  it('after a 429, nobody calls before Retry-After, the pace slows, and it recovers gradually', async () => {
    const t = fakeTime();
    const schedule = new MemorySlotSchedule();
    const pacer = new RatePacer(schedule, { ratePerSecond: 10, name: 'queries', now: t.now, sleep: t.sleep });
    const other = new RatePacer(schedule, { ratePerSecond: 10, name: 'queries', now: t.now, sleep: t.sleep });
    expect(pacer.currentIntervalMs()).toBe(100);

    const at = t.now();
    await pacer.throttled(2_000);
    expect(pacer.currentIntervalMs()).toBe(200);
    await pacer.throttled(2_000);
    expect(pacer.currentIntervalMs()).toBe(400);
    // Another environment sharing the schedule waits for Retry-After too.
    await other.acquire('query', at + 60_000);
    expect(t.now() - at).toBe(2_000);
    // The excess over 100 ms halves every half-life.
    t.clock.now = at + SLOWDOWN_HALF_LIFE_MS;
    expect(pacer.currentIntervalMs()).toBeCloseTo(250, 6);
    t.clock.now = at + 10 * SLOWDOWN_HALF_LIFE_MS;
    expect(pacer.currentIntervalMs()).toBeLessThan(101);
  });

  it('slows every environment sharing the schedule down after one of them got a 429', async () => {
    const t = fakeTime();
    const schedule = new MemorySlotSchedule();
    const throttled = new RatePacer(schedule, { ratePerSecond: 10, name: 'queries', now: t.now, sleep: t.sleep });
    const other = new RatePacer(schedule, { ratePerSecond: 10, name: 'queries', now: t.now, sleep: t.sleep });
    await throttled.throttled(1_000);
    expect(other.currentIntervalMs()).toBe(100);
    // Its next reservation learns the slowdown (and is itself taken at the configured pace).
    await other.acquire('query', t.now() + 60_000);
    expect(other.currentIntervalMs()).toBeCloseTo(throttled.currentIntervalMs(), 6);
    expect(other.currentIntervalMs()).toBeGreaterThan(150);
  });

  it('gives a call that was waiting for its slot when a 429 came a new slot after the pause, not the old one', async () => {
    const schedule = new MemorySlotSchedule();
    let now = 1_000_000;
    let wake: (() => void) | undefined;
    const pacer = new RatePacer(schedule, {
      ratePerSecond: 10,
      name: 'queries',
      now: () => now,
      sleep: (ms) =>
        new Promise<void>((resolve) => {
          wake = () => {
            now += ms;
            resolve();
          };
        }),
    });
    await pacer.acquire('first', now + 60_000); // slot at once: no sleep
    const second = pacer.acquire('second', now + 60_000); // its slot is 100 ms away: it sleeps
    await new Promise((resolve) => setImmediate(resolve));
    await pacer.throttled(2_000); // the first call got a 429 meanwhile
    const slept = now;
    wake!();
    await new Promise((resolve) => setImmediate(resolve));
    // It woke at its old slot, and went back for one after the bank's Retry-After.
    wake!();
    await second;
    expect(now - slept).toBeGreaterThanOrEqual(2_000);
  });

  it('honours at most MAX_PUSH_BACK_MS of a Retry-After for the shared schedule', async () => {
    const t = fakeTime();
    const schedule = new MemorySlotSchedule();
    const pacer = new RatePacer(schedule, { ratePerSecond: 10, name: 'queries', now: t.now, sleep: t.sleep });
    await pacer.throttled(24 * 3600_000);
    expect(schedule.next).toBe(t.now() + MAX_PUSH_BACK_MS);
  });

  it('paces a kind of call at its own rate and every other call at another (the bank limits creations more)', async () => {
    const t = fakeTime();
    const creations = counted(new MemorySlotSchedule());
    const others = counted(new MemorySlotSchedule());
    const pacer = new PacerByKind(
      {
        [CallKind.CREATION]: new RatePacer(creations, {
          ratePerSecond: 2,
          name: 'creations',
          now: t.now,
          sleep: t.sleep,
        }),
      },
      new RatePacer(others, { ratePerSecond: 10, name: 'calls', now: t.now, sleep: t.sleep }),
    );
    const start = t.now();
    await pacer.acquire('GET contracts', start + 60_000, CallKind.OTHER);
    await pacer.acquire('POST contract', start + 60_000, CallKind.CREATION);
    await pacer.acquire('token', start + 60_000, CallKind.TOKEN);
    await pacer.acquire('POST contract', start + 60_000, CallKind.CREATION);
    expect([creations.reservations, others.reservations]).toEqual([2, 2]);
    // Two creations 500 ms apart; the other calls did not wait behind them.
    expect(t.now() - start).toBe(500);
    // A 429 to a creation pauses creations, not the rest.
    await pacer.throttled(5_000, CallKind.CREATION);
    const before = t.now();
    await pacer.acquire('GET contracts', before + 60_000, CallKind.OTHER);
    expect(t.now() - before).toBeLessThan(200);
    await pacer.acquire('POST contract', before + 60_000, CallKind.CREATION);
    expect(t.now() - before).toBeGreaterThanOrEqual(5_000);
  });

  it('refuses a rate that is not above 0', () => {
    expect(() => new RatePacer(new MemorySlotSchedule(), { ratePerSecond: 0, name: 'bank queries' })).toThrow(
      'bank queries: the rate must be above 0 calls per second, got 0',
    );
  });
});

describe('IdleTimePacer (looks give way to notifications)', () => {
  /** A shared schedule at 5/s, the notifications' pacer on it, and the looks' pacer on its idle time. */
  function pacers(t: ReturnType<typeof fakeTime>) {
    const schedule = new MemorySlotSchedule();
    const notifications = new RatePacer(schedule, {
      ratePerSecond: 5,
      name: 'bank queries',
      now: t.now,
      sleep: t.sleep,
    });
    const looks = new IdleTimePacer(schedule, notifications, {
      name: 'bank queries for looks',
      now: t.now,
      sleep: t.sleep,
    });
    return { schedule, notifications, looks };
  }

  it('lets a notification go at once right after a look: the look took time nobody used', async () => {
    const t = fakeTime();
    const { notifications, looks } = pacers(t);
    const start = t.now();
    await looks.acquire('payment query', start + 30_000);
    t.clock.now += 5;
    await notifications.acquire('boleto query', start + 30_000);
    expect(t.now() - start).toBe(5);
    // The rate holds after: the next notification waits its interval from the one before.
    await notifications.acquire('boleto query', start + 30_000);
    expect(t.now() - start).toBe(205);

    // Had the look taken a slot of the notifications' own pacer, the notification would have waited for its end.
    const u = fakeTime();
    const shared = pacers(u).notifications;
    await shared.acquire('payment query', u.now() + 30_000);
    u.clock.now += 5;
    await shared.acquire('boleto query', u.now() + 30_000);
    expect(u.now() - 1_000_000).toBe(200);
  });

  it('makes a look wait for a whole idle interval after the last call, and never for a slot a notification holds', async () => {
    const t = fakeTime();
    const { notifications, looks } = pacers(t);
    const start = t.now();
    await notifications.acquire('boleto query', start + 30_000);
    // The notification's slot runs to +200; the look needs +200 idle after it: it goes at +400.
    await looks.acquire('payment query', start + 30_000);
    expect(t.now() - start).toBe(400);
    t.clock.now += 1;
    await notifications.acquire('boleto query', start + 30_000);
    expect(t.now() - start).toBe(401);
  });

  it('gives up with OutOfRate and when to come back while notifications keep the rate busy, rather than wait long', async () => {
    const t = fakeTime();
    const { schedule, looks } = pacers(t);
    const start = t.now();
    // Notifications booked the next 3 seconds.
    await schedule.reserve(3_000, start, start + 3_000);
    const refused = await looks.acquire('payment query', start + 30_000).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OutOfRate);
    expect((refused as OutOfRate).retryAt).toBe(start + 3_200);
    expect((refused as OutOfRate).message).toMatch(
      /bank queries for looks: the bank's rate has no idle time now \(looks give way to notifications/,
    );
    expect(t.now()).toBe(start);
    expect(IDLE_WAIT_MS).toBeLessThan(3_200);
  });

  it("slows down with the notifications' pacer after a 429: a look takes the stretched interval", async () => {
    const t = fakeTime();
    const { notifications, looks } = pacers(t);
    const start = t.now();
    await looks.throttled(undefined);
    expect(notifications.currentIntervalMs()).toBe(400);
    // Nobody calls for the pause (one stretched interval); the look then needs one more idle.
    await looks.acquire('payment query', start + 30_000);
    expect(t.now() - start).toBe(800);
  });

  it('honours a slowdown another environment recorded after a 429, in an environment that only makes looks', async () => {
    const t = fakeTime();
    const schedule = new MemorySlotSchedule();
    // Another environment's notifications were answered 429: the schedule holds its slowdown (4 × the interval).
    await schedule.pushBack(t.now(), { factor: 4, at: t.now() });
    const lookOnly = new RatePacer(schedule, { ratePerSecond: 5, name: 'bank queries', now: t.now, sleep: t.sleep });
    const looks = new IdleTimePacer(schedule, lookOnly, { name: 'bank queries for looks', now: t.now, sleep: t.sleep });
    const start = t.now();
    const sent: number[] = [];
    for (let i = 0; i < 4; i++) {
      await looks.acquire('payment query', start + 30_000);
      sent.push(t.now() - start);
    }
    // At the stretched interval (800 ms) from the first look on, never at the configured 200 ms.
    expect(lookOnly.currentIntervalMs()).toBeGreaterThan(700);
    expect(
      sent
        .slice(1)
        .map((at, i) => at - sent[i])
        .every((gap) => gap >= 700),
    ).toBe(true);
  });
});

const NO_SLOWDOWN: Slowdown = { factor: 1, at: 0 };

describe('DynamoDbSlotSchedule (dynalite)', () => {
  let dynamo: Dynalite;
  beforeAll(async () => {
    dynamo = await startDynalite();
    await dynamo.createIdempotencyTable('pacing');
  });
  afterAll(() => dynamo?.stop());

  it('hands out slots that never overlap to many environments at once, starting from now when idle', async () => {
    const schedule = new DynamoDbSlotSchedule(dynamo.client, 'pacing', 'race');
    const now = Date.now();
    const answers = await Promise.all(Array.from({ length: 24 }, () => schedule.reserve(100, now, now + 60_000)));
    const ends = answers.map((a) => ('end' in a ? a.end : NaN)).sort((a, b) => a - b);
    expect(ends).toEqual(Array.from({ length: 24 }, (_, i) => now + 100 * (i + 1)));
  });

  it('answers the next free time without reserving when it is past the latest start', async () => {
    const schedule = new DynamoDbSlotSchedule(dynamo.client, 'pacing', 'busy');
    const now = Date.now();
    await schedule.pushBack(now + 30_000, NO_SLOWDOWN);
    await expect(schedule.reserve(100, now, now + 5_000)).resolves.toEqual({
      next: now + 30_000,
      slowdown: NO_SLOWDOWN,
    });
    await expect(schedule.reserve(100, now, now + 40_000)).resolves.toEqual({
      end: now + 30_100,
      slowdown: NO_SLOWDOWN,
    });
  });

  it('does not save up unused time: after idling, the schedule starts again from now', async () => {
    const schedule = new DynamoDbSlotSchedule(dynamo.client, 'pacing', 'idle');
    const then = Date.now() - 60_000;
    await schedule.reserve(100, then, then + 1_000);
    const now = Date.now();
    await expect(schedule.reserve(100, now, now + 1_000)).resolves.toEqual({ end: now + 100 });
  });

  it('pushes the schedule back only forwards', async () => {
    const schedule = new DynamoDbSlotSchedule(dynamo.client, 'pacing', 'forward');
    const now = Date.now();
    await schedule.pushBack(now + 10_000, NO_SLOWDOWN);
    await schedule.pushBack(now + 5_000, { factor: 2, at: now });
    // The slowdown is recorded all the same.
    await expect(schedule.reserve(100, now, now)).resolves.toEqual({
      next: now + 10_000,
      slowdown: { factor: 2, at: now },
    });
  });
});
