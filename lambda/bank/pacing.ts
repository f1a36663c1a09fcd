/**
 * Pacing of bank calls: every call takes a time slot from a schedule shared by everyone who calls
 * the same bank API with the same credentials (GCRA, the "virtual scheduling" form of a token
 * bucket). The schedule is one number, `next`: when the next free slot starts. Taking `n` slots
 * moves it on by `n` intervals in one conditional write, so many Lambda environments share one
 * rate without talking to each other, and nobody is refused a slot it can wait for: a call whose
 * slot starts too late for its deadline takes none and is told when to come back ({@link OutOfRate}).
 *
 * On a 429 the schedule is pushed past the bank's `Retry-After` for everyone, and the interval
 * doubles (at most {@link MAX_SLOWDOWN} times the configured one), its excess halving every
 * {@link SLOWDOWN_HALF_LIFE_MS}: everyone slows down at once (the slowdown is recorded with the
 * schedule) and recovers gradually.
 */
import { BankApiError } from './errors';
import { sleep as defaultSleep } from '../shared/retry';

/** A call that found no slot before its deadline: try again at `retryAt` (epoch ms). */
export class OutOfRate extends BankApiError {
  constructor(
    operation: string,
    readonly retryAt: number,
    detail: string,
    status?: number,
    attempts = 0,
  ) {
    super(operation, status, detail, true, attempts, true);
    this.name = 'OutOfRate';
  }
}

/** A slowdown after a 429: the interval times `factor` at `at` (epoch ms), its excess halving every half-life. */
export interface Slowdown {
  readonly factor: number;
  readonly at: number;
}

/** Where the schedule of one rate lives (a DynamoDB item for the shared one, a number in memory). */
export interface SlotSchedule {
  /**
   * Moves `next` on by `costMs` if it lies within [`floor`, `latest`] (below `floor` it counts
   * as `floor`: unused time is not saved up). Answers the reserved span's end, or, when `next`
   * is past `latest`, `{ next }` and reserves nothing; either way with the last slowdown recorded.
   */
  reserve(
    costMs: number,
    floor: number,
    latest: number,
  ): Promise<({ readonly end: number } | { readonly next: number }) & { readonly slowdown?: Slowdown }>;
  /** Moves `next` to `until` if it is earlier (nobody calls before then), and records the slowdown for everyone. */
  pushBack(until: number, slowdown: Slowdown): Promise<void>;
}

/** What a call does, for pacers that pace kinds apart (the bank limits creations more than the rest). */
export enum CallKind {
  /** A token request. */
  TOKEN = 'token',
  /** A POST that creates something (a webhook contract). */
  CREATION = 'creation',
  /** Any other call: queries, reads, updates. */
  OTHER = 'other',
}

/** What a bank client asks of its pacer before each call, and tells it after a 429. */
export interface BankPacer {
  /** Waits for this call's slot; throws {@link OutOfRate} when none starts early enough for `deadline`. */
  acquire(operation: string, deadline: number, kind?: CallKind): Promise<void>;
  /** The bank answered 429 to a call of `kind`: nobody calls before `retryAfterMs` (when given), and this caller slows down. */
  throttled(retryAfterMs: number | undefined, kind?: CallKind): Promise<void>;
}

/** Slowest pace after 429s: the configured interval times this. */
export const MAX_SLOWDOWN = 8;
/** Time for the excess of the interval over the configured one to halve after a 429. */
export const SLOWDOWN_HALF_LIFE_MS = 30_000;
/** Most slots one reservation takes (calls waiting at once in one environment share a write). */
export const MAX_SLOTS_PER_RESERVATION = 10;
/**
 * When this span holds more than one interval (a generous rate), a reservation also takes slots
 * for calls about to come, each usable until this long after its start: at 10/s there are none,
 * at 1000/s one write serves ten calls.
 */
export const SPARE_SLOT_MS = 100;
/** A slot must start this long before the caller's deadline to be worth taking. */
export const MIN_SLOT_LEAD_MS = 200;
/** Longest `Retry-After` honoured for the shared schedule (a longer one is the bank's mistake, or a block). */
export const MAX_PUSH_BACK_MS = 5 * 60_000;

export interface RatePacerOptions {
  /** Calls per second the bank allows these credentials on this API. */
  readonly ratePerSecond: number;
  /** Names the rate in errors, such as "bank queries". */
  readonly name: string;
  /** @default Date.now */
  readonly now?: () => number;
  /** @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
}

interface Waiter {
  readonly operation: string;
  readonly deadline: number;
  readonly resolve: (slotStart: number) => void;
  readonly reject: (error: Error) => void;
}

/** Paces calls on a {@link SlotSchedule}, several waiting calls of this environment taking their slots in one write. */
export class RatePacer implements BankPacer {
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly intervalMs: number;
  private slowdown: Slowdown = { factor: 1, at: 0 };
  /** 429s this pacer was told of. */
  private throttles = 0;
  private waiting: Waiter[] = [];
  private reserving = false;
  /** The next reservation is for one call only (a larger one did not fit). */
  private single = false;
  /** Starts of slots reserved for calls about to come (see SPARE_SLOT_MS). */
  private spare: number[] = [];

  constructor(
    private readonly schedule: SlotSchedule,
    private readonly options: RatePacerOptions,
  ) {
    if (!(options.ratePerSecond > 0))
      throw new Error(`${options.name}: the rate must be above 0 calls per second, got ${options.ratePerSecond}`);
    this.intervalMs = 1000 / options.ratePerSecond;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? defaultSleep;
  }

  /** The interval between two calls now: the configured one, stretched after a 429 and recovering. */
  currentIntervalMs(): number {
    return this.intervalMs * this.factorNow(this.slowdown);
  }

  private factorNow(slowdown: Slowdown): number {
    return 1 + (slowdown.factor - 1) * 0.5 ** (Math.max(0, this.now() - slowdown.at) / SLOWDOWN_HALF_LIFE_MS);
  }

  /** Takes a slowdown another environment recorded (the schedule answers it with each reservation) when it is the stronger one now. */
  adopt(shared: Slowdown | undefined): void {
    if (shared && this.factorNow(shared) > this.factorNow(this.slowdown)) this.slowdown = shared;
  }

  async acquire(operation: string, deadline: number): Promise<void> {
    for (;;) {
      const throttles = this.throttles;
      const start = await new Promise<number>((resolve, reject) => {
        this.waiting.push({ operation, deadline, resolve, reject });
        void this.reserveForWaiting();
      });
      const wait = start - this.now();
      if (wait > 0) await this.sleep(wait);
      // A 429 while this call waited: its slot was taken at the old pace, before the pause. Take a new one.
      if (throttles === this.throttles) return;
    }
  }

  async throttled(retryAfterMs: number | undefined): Promise<void> {
    const now = this.now();
    this.throttles++;
    this.spare = [];
    this.slowdown = { factor: Math.min(MAX_SLOWDOWN, this.factorNow(this.slowdown) * 2), at: now };
    const pause = Math.min(MAX_PUSH_BACK_MS, Math.max(retryAfterMs ?? 0, this.currentIntervalMs()));
    await this.schedule.pushBack(now + pause, this.slowdown);
  }

  /**
   * One write at a time takes slots for the calls waiting (up to MAX_SLOTS_PER_RESERVATION),
   * and, when the rate is generous, a few more for the calls about to come (kept for
   * SPARE_SLOT_MS): at a high rate a write serves several calls.
   */
  private async reserveForWaiting(): Promise<void> {
    if (this.reserving) return;
    this.reserving = true;
    try {
      while (this.waiting.length) {
        // Spare slots first, while they are fresh.
        const now = this.now();
        this.spare = this.spare.filter((start) => start + SPARE_SLOT_MS > now);
        if (this.spare.length) {
          this.waiting.shift()!.resolve(this.spare.shift()!);
          continue;
        }
        const batch = this.waiting.splice(0, this.single ? 1 : MAX_SLOTS_PER_RESERVATION);
        try {
          const interval = this.currentIntervalMs();
          const slots = this.single
            ? 1
            : Math.min(MAX_SLOTS_PER_RESERVATION, Math.max(batch.length, Math.floor(SPARE_SLOT_MS / interval)));
          this.single = false;
          // Every call of the batch must start before its own deadline: the earliest decides.
          const latest = Math.min(...batch.map((w) => w.deadline)) - MIN_SLOT_LEAD_MS - interval * (slots - 1);
          const answer = await this.schedule.reserve(interval * slots, now, latest);
          this.adopt(answer.slowdown);
          if ('end' in answer) {
            const first = answer.end - interval * slots;
            batch.forEach((waiter, i) => waiter.resolve(first + i * interval));
            for (let i = batch.length; i < slots; i++) this.spare.push(first + i * interval);
          } else if (slots > 1) {
            // Slots for all of them start too late; one alone may still fit.
            this.waiting.unshift(...batch);
            this.single = true;
          } else {
            const retryAt = answer.next;
            // Calls with no later deadline would find the same: they are told now, without a write each.
            const alike = this.waiting.filter((w) => w.deadline <= batch[0].deadline);
            this.waiting = this.waiting.filter((w) => w.deadline > batch[0].deadline);
            for (const waiter of [...batch, ...alike]) {
              waiter.reject(
                new OutOfRate(
                  waiter.operation,
                  retryAt,
                  `${this.options.name}: no slot of the ${this.options.ratePerSecond}/s rate before this invocation's deadline (the next starts in ${Math.max(0, Math.round(retryAt - now))} ms)`,
                ),
              );
            }
          }
        } catch (error) {
          for (const waiter of batch) waiter.reject(error instanceof Error ? error : new Error(String(error)));
        }
      }
    } finally {
      this.reserving = false;
    }
  }
}

/** Longest an idle-time call waits in the invocation for idle time before giving up with OutOfRate. */
export const IDLE_WAIT_MS = 1_000;

/**
 * Paces calls out of a shared schedule's idle time only: a call goes when nobody has called for a
 * whole interval, and takes that past interval, so that a call of the schedule's other pacers
 * coming next still goes at once (the bank sees at most one call more in any second than its
 * rate). While the schedule is busy it waits (up to {@link IDLE_WAIT_MS}), then gives up with
 * {@link OutOfRate}. Look requests call the bank through it: they never take a slot a
 * notification could have had.
 */
export class IdleTimePacer implements BankPacer {
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  /** @param main the pacer of the same schedule whose interval (and slowdown after a 429) this one keeps */
  constructor(
    private readonly schedule: SlotSchedule,
    private readonly main: RatePacer,
    private readonly options: Pick<RatePacerOptions, 'name' | 'now' | 'sleep'>,
  ) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? defaultSleep;
  }

  async acquire(operation: string, deadline: number): Promise<void> {
    for (;;) {
      const now = this.now();
      const interval = this.main.currentIntervalMs();
      const answer = await this.schedule.reserve(interval, now - interval, now - interval);
      // A slowdown another environment recorded after a 429 holds here too, though this environment may only make looks.
      this.main.adopt(answer.slowdown);
      if ('end' in answer) return;
      const retryAt = answer.next + interval;
      if (retryAt - now > IDLE_WAIT_MS || retryAt > deadline - MIN_SLOT_LEAD_MS) {
        throw new OutOfRate(
          operation,
          retryAt,
          `${this.options.name}: the bank's rate has no idle time now (looks give way to notifications; the next comes in ${Math.max(0, Math.round(retryAt - now))} ms at the earliest)`,
        );
      }
      await this.sleep(retryAt - now);
    }
  }

  throttled(retryAfterMs: number | undefined): Promise<void> {
    return this.main.throttled(retryAfterMs);
  }
}

/** A schedule in this process's memory: for calls made from one place (the registration handler, tests). */
export class MemorySlotSchedule implements SlotSchedule {
  next = 0;
  slowdown?: Slowdown;

  reserve(
    costMs: number,
    floor: number,
    latest: number,
  ): Promise<({ end: number } | { next: number }) & { slowdown?: Slowdown }> {
    const start = Math.max(this.next, floor);
    if (start > latest) return Promise.resolve({ next: start, slowdown: this.slowdown });
    this.next = start + costMs;
    return Promise.resolve({ end: this.next, slowdown: this.slowdown });
  }

  pushBack(until: number, slowdown: Slowdown): Promise<void> {
    this.next = Math.max(this.next, until);
    this.slowdown = slowdown;
    return Promise.resolve();
  }
}

/**
 * Calls of some kinds at their own rates, the rest at a default one: the bank limits creations
 * more than the rest, and token requests go to another endpoint than queries (they must not
 * spend the query rate). A 429 slows the pacer of the call's kind.
 */
export class PacerByKind implements BankPacer {
  constructor(
    private readonly byKind: Partial<Record<CallKind, BankPacer>>,
    private readonly fallback: BankPacer,
  ) {}

  acquire(operation: string, deadline: number, kind?: CallKind): Promise<void> {
    return this.pacerOf(kind).acquire(operation, deadline, kind);
  }

  throttled(retryAfterMs: number | undefined, kind?: CallKind): Promise<void> {
    return this.pacerOf(kind).throttled(retryAfterMs, kind);
  }

  private pacerOf(kind: CallKind | undefined): BankPacer {
    return (kind && this.byKind[kind]) || this.fallback;
  }
}
