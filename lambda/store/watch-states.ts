/**
 * What the registration watch last saw of each registration, one item each beside the subject
 * records: its state and drift (an operator's `status` reads them), and the watch's last repair
 * and contest, so that a registration someone keeps changing back is repaired once, not every sweep.
 */
import { type AttributeValue, type DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { IdempotencyTable } from '../../contracts/processor';
import type { WatchState } from '../../contracts/reconciliation';

export interface WatchStateRecord {
  readonly state: WatchState;
  readonly drift: readonly string[];
  /** When it was watched (epoch ms). */
  readonly watchedAt: number;
  /** When the watch last repaired it (epoch ms), and under which deploy's record (its request id). */
  readonly repairedAt?: number;
  readonly repairedUnder?: string;
  /** The deploy's record under which it is contested (no repair until the bank matches or a deploy records anew), and since when. */
  readonly contestedUnder?: string;
  readonly contestedSince?: number;
}

export interface WatchStates {
  read(appliedRecord: string): Promise<WatchStateRecord | undefined>;
  write(appliedRecord: string, state: WatchStateRecord): Promise<void>;
}

/** The item's key: beside the subject records, never one (theirs start `boleto:`, `payment:`, `look-marker:`…). */
export function watchStateKey(appliedRecord: string): string {
  return `registration-watch:${appliedRecord}`;
}

/** Kept this long after the last watch (a registration removed from the stack stops being watched). */
const KEEP_SECONDS = 30 * 86_400;

const optionalNumber = (value: { N?: string } | undefined) => (value?.N === undefined ? undefined : Number(value.N));

export class DynamoDbWatchStates implements WatchStates {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async read(appliedRecord: string): Promise<WatchStateRecord | undefined> {
    const { Item: item } = await this.client.send(
      new GetItemCommand({
        TableName: this.tableName,
        Key: { [IdempotencyTable.KEY]: { S: watchStateKey(appliedRecord) } },
        ConsistentRead: true,
      }),
    );
    if (!item?.state?.S) return undefined;
    return {
      state: item.state.S as WatchState,
      drift: item.drift?.L?.flatMap((d) => (d.S ? [d.S] : [])) ?? [],
      watchedAt: optionalNumber(item.watchedAt) ?? 0,
      repairedAt: optionalNumber(item.repairedAt),
      repairedUnder: item.repairedUnder?.S,
      contestedUnder: item.contestedUnder?.S,
      contestedSince: optionalNumber(item.contestedSince),
    };
  }

  async write(appliedRecord: string, s: WatchStateRecord): Promise<void> {
    const item: Record<string, AttributeValue> = {
      [IdempotencyTable.KEY]: { S: watchStateKey(appliedRecord) },
      state: { S: s.state },
      drift: { L: s.drift.map((d) => ({ S: d })) },
      watchedAt: { N: String(s.watchedAt) },
      [IdempotencyTable.TTL]: { N: String(Math.ceil(s.watchedAt / 1000) + KEEP_SECONDS) },
    };
    if (s.repairedAt !== undefined) item.repairedAt = { N: String(s.repairedAt) };
    if (s.repairedUnder) item.repairedUnder = { S: s.repairedUnder };
    if (s.contestedUnder) item.contestedUnder = { S: s.contestedUnder };
    if (s.contestedSince !== undefined) item.contestedSince = { N: String(s.contestedSince) };
    await this.client.send(new PutItemCommand({ TableName: this.tableName, Item: item }));
  }
}
