/**
 * The shared schedule of a bank rate, kept in one item of the table the library already has
 * (`id` = `rate#<name>`): every environment of the processor and the reconciliation sweep takes
 * its slots there, so together they keep the bank's rate whatever their number.
 */
import { type DynamoDBClient, GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import {
  CallKind,
  IdleTimePacer,
  MemorySlotSchedule,
  PacerByKind,
  RatePacer,
  type SlotSchedule,
  type Slowdown,
} from '../bank/pacing';
import type { BankConnectionSettings } from '../../contracts/bank-connection';
import { IdempotencyTable, QUERY_RATE_NAME } from '../../contracts/processor';
import { isConditionFailure } from './conditions';

/** Tries of one reservation when other environments keep winning the race for the item. */
const RACE_ATTEMPTS = 5;
/** The item lives a day after its last use (TTL). */
const ITEM_TTL_SECONDS = 24 * 3600;

/**
 * The pacing of a function that queries the bank (the processor, the sweep): token requests on
 * this environment's own schedule (they go to the token endpoints), creations at the
 * registration rate, and every other call on the one schedule all environments share through
 * the table (`rate#queries`), so together they keep `queriesPerSecond`.
 */
export function sharedBankPacer(
  client: DynamoDBClient,
  tableName: string,
  connection: BankConnectionSettings,
): PacerByKind {
  return sharedBankPacers(client, tableName, connection).calls;
}

/**
 * The processor's two pacers over the same shared schedule: `calls` as {@link sharedBankPacer},
 * and `looks`, which takes the schedule's idle time only (IdleTimePacer), so a look request's
 * query never makes a notification's wait.
 */
export function sharedBankPacers(
  client: DynamoDBClient,
  tableName: string,
  connection: BankConnectionSettings,
): { calls: PacerByKind; looks: PacerByKind } {
  const byKind = {
    [CallKind.TOKEN]: new RatePacer(new MemorySlotSchedule(), {
      ratePerSecond: connection.queriesPerSecond,
      name: 'bank token requests',
    }),
    [CallKind.CREATION]: new RatePacer(new MemorySlotSchedule(), {
      ratePerSecond: connection.registrationCallsPerSecond,
      name: 'bank registration creations',
    }),
  };
  const schedule = new DynamoDbSlotSchedule(client, tableName, QUERY_RATE_NAME);
  const queries = new RatePacer(schedule, { ratePerSecond: connection.queriesPerSecond, name: 'bank queries' });
  return {
    calls: new PacerByKind(byKind, queries),
    looks: new PacerByKind(byKind, new IdleTimePacer(schedule, queries, { name: 'bank queries for looks' })),
  };
}

export class DynamoDbSlotSchedule implements SlotSchedule {
  private readonly key: Record<string, { S: string }>;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    name: string,
    private readonly now: () => number = Date.now,
  ) {
    this.key = { [IdempotencyTable.KEY]: { S: `rate#${name}` } };
  }

  async reserve(
    costMs: number,
    floor: number,
    latest: number,
  ): Promise<({ end: number } | { next: number }) & { slowdown?: Slowdown }> {
    for (let attempt = 1; attempt <= RACE_ATTEMPTS; attempt++) {
      // The usual case, one write: `next` is within [floor, latest]; move it on.
      const moved = await this.update('SET #next = #next + :cost, #ttl = :ttl', '#next BETWEEN :floor AND :latest', {
        ':cost': costMs,
        ':floor': floor,
        ':latest': latest,
      });
      if (moved) return { end: moved.next, slowdown: moved.slowdown };
      const item = await this.read();
      if (item && item.next > latest) return { next: item.next, slowdown: item.slowdown };
      if (!item || item.next < floor) {
        // Idle (or never used): the schedule starts again from now.
        const started = await this.update(
          'SET #next = :end, #ttl = :ttl',
          'attribute_not_exists(#next) OR #next < :floor',
          { ':end': floor + costMs, ':floor': floor },
        );
        if (started) return { end: started.next, slowdown: started.slowdown };
      }
      // Someone else moved it in between: look again.
    }
    throw new Error(
      `the bank rate schedule ${this.key[IdempotencyTable.KEY].S} kept changing under ${RACE_ATTEMPTS} tries; the call is retried later`,
    );
  }

  async pushBack(until: number, slowdown: Slowdown): Promise<void> {
    const values = { ':until': until, ':factor': slowdown.factor, ':at': slowdown.at };
    const pushed = await this.update(
      'SET #next = :until, #factor = :factor, #at = :at, #ttl = :ttl',
      'attribute_not_exists(#next) OR #next < :until',
      values,
    );
    // Already further on: the slowdown is recorded all the same.
    if (!pushed)
      await this.update('SET #factor = :factor, #at = :at, #ttl = :ttl', undefined, {
        ':factor': slowdown.factor,
        ':at': slowdown.at,
      });
  }

  /** The item after the write, or undefined when the condition did not hold. */
  private async update(
    expression: string,
    condition: string | undefined,
    values: Record<string, number>,
  ): Promise<ScheduleItem | undefined> {
    const attributeValues: Record<string, { N: string }> = Object.fromEntries(
      Object.entries(values).map(([k, v]) => [k, { N: String(k === ':factor' ? v : Math.round(v)) }]),
    );
    attributeValues[':ttl'] = { N: String(Math.floor(this.now() / 1000) + ITEM_TTL_SECONDS) };
    try {
      const result = await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: this.key,
          UpdateExpression: expression,
          ConditionExpression: condition,
          ExpressionAttributeNames: namesIn(expression + (condition ?? '')),
          ExpressionAttributeValues: attributeValues,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return scheduleItem(result.Attributes);
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  private async read(): Promise<ScheduleItem | undefined> {
    const result = await this.client.send(
      new GetItemCommand({ TableName: this.tableName, Key: this.key, ConsistentRead: true }),
    );
    return scheduleItem(result.Item);
  }
}

interface ScheduleItem {
  readonly next: number;
  readonly slowdown?: Slowdown;
}

const ATTRIBUTE_NAMES: Record<string, string> = {
  '#next': 'next',
  '#factor': 'slowdownFactor',
  '#at': 'slowdownAt',
  '#ttl': IdempotencyTable.TTL,
};

/** The attribute names an expression uses. */
function namesIn(expression: string): Record<string, string> {
  return Object.fromEntries(Object.entries(ATTRIBUTE_NAMES).filter(([name]) => expression.includes(name)));
}

function scheduleItem(item: Record<string, { N?: string }> | undefined): ScheduleItem | undefined {
  const next = Number(item?.next?.N);
  if (!item || !Number.isFinite(next)) return undefined;
  const factor = Number(item.slowdownFactor?.N);
  const at = Number(item.slowdownAt?.N);
  return { next, ...(Number.isFinite(factor) && Number.isFinite(at) ? { slowdown: { factor, at } } : {}) };
}
