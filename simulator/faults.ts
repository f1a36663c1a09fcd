import { BankError, gatewayError, HtmlPage, serviceError } from './errors';
import type { DeliveryFaults } from './notifier';

/** Parts of the bank's API that faults and rate limits can target. */
export const API_GROUPS = ['token', 'registration', 'contract', 'query'] as const;
export type ApiGroup = (typeof API_GROUPS)[number];

/** A fault on the bank's API: answer `status` (5xx or 429) and/or answer after `delayMs`. */
export interface ApiFault {
  /** Which part of the API it hits. */
  readonly scope: ApiGroup | 'all';
  /** Answer this status instead of the real answer (429 carries Retry-After). @default the real answer */
  readonly status?: number;
  /** Wait this long before answering. @default 0 */
  readonly delayMs?: number;
  /** Apply to this many calls, then stop. @default every call until faults are cleared */
  readonly times?: number;
  /** Let this many calls through first (a fault on the third call of a sequence). @default 0 */
  readonly skip?: number;
  /** Retry-After seconds of a 429. @default 1 */
  readonly retryAfterSeconds?: number;
  /** Answer 200 with an HTML page instead (a proxy's or a maintenance page), not `status`. @default false */
  readonly htmlPage?: boolean;
  /**
   * Carry the call out first, then answer `status` (or the HTML page) instead of the bank's
   * answer: a gateway that lost the answer of a change the bank made. @default false
   */
  readonly afterApplying?: boolean;
}

/** Everything injectable, as the control API takes it (PUT /control/faults). */
export interface SimulatorFaults extends DeliveryFaults {
  readonly api?: readonly ApiFault[];
  /** Calls per second each part of the API allows before answering 429 (the bank's sibling API: 10/s for queries). @default unlimited */
  readonly rateLimitPerSecond?: Partial<Record<ApiGroup, number>>;
  /**
   * Every error answer of the bank's API echoes the request it answers (method, URL, headers and
   * body) in its message, as some APIs do: a client must keep the secrets it sent out of its logs.
   * @default false
   */
  readonly echoRequests?: boolean;
  /**
   * After each PATCH of a payment callback registration, this many GETs of it still answer what
   * it held before (reads that lag a change the bank made). @default 0
   */
  readonly staleRegistrationReads?: number;
}

/** Validates faults given over the control API; returns the problems (empty when fine). */
export function faultProblems(input: unknown): string[] {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return ['faults must be a JSON object'];
  const faults = input as Record<string, unknown>;
  const problems: string[] = [];
  const known = [
    'duplicateDeliveries',
    'deliveryDelayMs',
    'reorderWindowMs',
    'loseDeliveries',
    'api',
    'rateLimitPerSecond',
    'echoRequests',
    'staleRegistrationReads',
  ];
  for (const key of Object.keys(faults))
    if (!known.includes(key)) problems.push(`unknown fault "${key}" (known: ${known.join(', ')})`);
  for (const key of ['duplicateDeliveries', 'deliveryDelayMs', 'reorderWindowMs', 'staleRegistrationReads']) {
    const value = faults[key];
    if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0))
      problems.push(`${key} must be a whole number >= 0`);
  }
  if (faults.loseDeliveries !== undefined && typeof faults.loseDeliveries !== 'boolean')
    problems.push('loseDeliveries must be true or false');
  if (faults.api !== undefined) {
    if (!Array.isArray(faults.api)) problems.push('api must be a list of faults');
    else
      faults.api.forEach((fault: Record<string, unknown>, i) => {
        if (![...API_GROUPS, 'all'].includes(fault?.scope as string))
          problems.push(`api[${i}].scope must be one of ${[...API_GROUPS, 'all'].join(', ')}`);
        if (
          fault?.status !== undefined &&
          !(
            Number.isInteger(fault.status) &&
            ((fault.status as number) === 429 || ((fault.status as number) >= 500 && (fault.status as number) <= 599))
          )
        ) {
          problems.push(`api[${i}].status must be 429 or 5xx`);
        }
        for (const key of ['htmlPage', 'afterApplying']) {
          if (fault?.[key] !== undefined && typeof fault[key] !== 'boolean')
            problems.push(`api[${i}].${key} must be true or false`);
        }
        if (fault?.afterApplying === true && fault.status === undefined && fault.htmlPage !== true)
          problems.push(`api[${i}]: afterApplying needs a status or htmlPage to answer instead`);
        if (fault?.htmlPage === true && fault.status !== undefined)
          problems.push(`api[${i}]: htmlPage answers 200, so it takes no status`);
        for (const key of ['delayMs', 'times', 'retryAfterSeconds', 'skip']) {
          if (fault?.[key] !== undefined && !(Number.isInteger(fault[key]) && (fault[key] as number) >= 0))
            problems.push(`api[${i}].${key} must be a whole number >= 0`);
        }
      });
  }
  if (faults.echoRequests !== undefined && typeof faults.echoRequests !== 'boolean')
    problems.push('echoRequests must be true or false');
  if (faults.rateLimitPerSecond !== undefined) {
    const limits = faults.rateLimitPerSecond as Record<string, unknown>;
    if (!limits || typeof limits !== 'object') problems.push('rateLimitPerSecond must be an object');
    else
      for (const [group, value] of Object.entries(limits)) {
        if (!(API_GROUPS as readonly string[]).includes(group))
          problems.push(`rateLimitPerSecond.${group}: unknown part (known: ${API_GROUPS.join(', ')})`);
        else if (!(typeof value === 'number' && value > 0))
          problems.push(`rateLimitPerSecond.${group} must be a number > 0`);
      }
  }
  return problems;
}

/** Calls the API answered, and how many of them it refused with 429 for its rate limit, per part. */
export type ApiCallCounts = Record<ApiGroup, { calls: number; throttled: number }>;

const zeroCounts = (): ApiCallCounts =>
  Object.fromEntries(API_GROUPS.map((group) => [group, { calls: 0, throttled: 0 }])) as ApiCallCounts;

/** What a fault injector holds between calls, as plain JSON. */
export interface FaultState {
  readonly faults: SimulatorFaults;
  readonly remaining: ReadonlyArray<number | null>;
  readonly skipping: readonly number[];
  readonly buckets: ReadonlyArray<readonly [ApiGroup, { readonly tokens: number; readonly at: number }]>;
  readonly counts: ApiCallCounts;
}

/** Applies API faults and rate limits to each call. */
export class FaultInjector {
  /** Since the faults were last set (or cleared). */
  counts: ApiCallCounts = zeroCounts();
  private faults: SimulatorFaults = {};
  private remaining: Array<number | undefined> = [];
  private skipping: number[] = [];
  private readonly buckets = new Map<ApiGroup, { tokens: number; at: number }>();

  get current(): SimulatorFaults {
    return this.faults;
  }

  /** The faults in force and how far each has gone (a copy). */
  exportState(): FaultState {
    return structuredClone({
      faults: this.faults,
      remaining: this.remaining.map((n) => n ?? null),
      skipping: this.skipping,
      buckets: [...this.buckets.entries()],
      counts: this.counts,
    });
  }

  /** Takes back what {@link exportState} gave. */
  restoreState(state: FaultState): void {
    const copy = structuredClone<FaultState>(state);
    this.faults = copy.faults;
    this.remaining = copy.remaining.map((n) => n ?? undefined);
    this.skipping = [...copy.skipping];
    this.buckets.clear();
    for (const [group, bucket] of copy.buckets) this.buckets.set(group, { ...bucket });
    this.counts = copy.counts;
  }

  /** Puts `faults` in force; throws, naming every problem, when they are invalid. */
  set(faults: SimulatorFaults): void {
    const problems = faultProblems(faults);
    if (problems.length) throw new Error(`Invalid faults: ${problems.join('; ')}.`);
    this.faults = faults;
    this.remaining = (faults.api ?? []).map((fault) => fault.times);
    this.skipping = (faults.api ?? []).map((fault) => fault.skip ?? 0);
    this.buckets.clear();
    this.counts = zeroCounts();
  }

  /**
   * Waits and/or throws the injected answer for a call to `group`. Returns normally otherwise, with
   * the answer to throw once the call was carried out when the fault is `afterApplying`.
   */
  async apply(group: ApiGroup): Promise<(() => never) | undefined> {
    this.counts[group].calls++;
    const limit = this.faults.rateLimitPerSecond?.[group];
    if (limit) this.takeFromBucket(group, limit);
    const index = (this.faults.api ?? []).findIndex(
      (fault, i) => (fault.scope === group || fault.scope === 'all') && this.remaining[i] !== 0,
    );
    if (index < 0) return undefined;
    const fault = this.faults.api![index];
    if (this.skipping[index] > 0) {
      this.skipping[index]--;
      return undefined;
    }
    if (this.remaining[index] !== undefined) this.remaining[index]--;
    if (fault.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs).unref());
    const answer = (): never => {
      if (fault.htmlPage)
        throw new BankError(
          200,
          new HtmlPage(
            '<!DOCTYPE html><html><head><title>Manutenção</title></head><body><h1>Sistema em manutenção</h1></body></html>',
          ),
        );
      if (fault.status === 429)
        throw gatewayError(429, 'Too many requests', { 'retry-after': String(fault.retryAfterSeconds ?? 1) });
      throw serviceError(fault.status!, 'Serviço temporariamente indisponível. Tente novamente mais tarde.');
    };
    if (fault.afterApplying) return answer;
    if (fault.htmlPage || fault.status) answer();
    return undefined;
  }

  private takeFromBucket(group: ApiGroup, perSecond: number): void {
    // Wall-clock time: a deployed simulator's instances share one bucket through their state.
    const now = Date.now();
    const bucket = this.buckets.get(group) ?? { tokens: perSecond, at: now };
    bucket.tokens = Math.min(perSecond, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    this.buckets.set(group, bucket);
    if (bucket.tokens < 1) {
      this.counts[group].throttled++;
      const waitSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
      throw gatewayError(429, 'Too many requests', { 'retry-after': String(waitSeconds) });
    }
    bucket.tokens -= 1;
  }
}
