/**
 * One record per subject (a boleto, a payment): its last verified state, the sequence number of
 * its last published change, the keys of what it published, the fingerprints of notifications
 * already handled, and an outbox of events written in the same conditional write as the state
 * they report. Every write is conditional on the version read, so two invocations looking at the
 * same subject cannot both publish a change: the loser reads again and finds it published.
 */
import { randomUUID } from 'node:crypto';
import {
  type AttributeValue,
  BatchGetItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { BankEventDetailType, StatusClass } from '../../contracts/events';
import type { SubjectState } from '../bank/verified-state';
import { IdempotencyTable } from '../../contracts/processor';
import type { TrailEntry } from '../../contracts/record';
import { pendingPaymentAttributes, pendingSinceOf } from './pending-payments';
import { isConditionFailure } from './conditions';
import { inSpan } from '../shared/telemetry';

/** One event waiting in a record's outbox: the `detail` as the JSON text to publish. */
export interface OutboxEntry {
  readonly detailType: BankEventDetailType;
  readonly detail: string;
}

/** Events written with the state they report, published after the write, then cleared. */
export interface Outbox {
  readonly id: string;
  /** Until when (epoch ms) the invocation that wrote or took it over is publishing it. */
  readonly leaseUntil: number;
  readonly entries: readonly OutboxEntry[];
}

export interface SubjectRecord {
  /** Incremented by every write: the condition of the next. 0 when there is no record. */
  readonly version: number;
  /** Sequence number of the last published change (0 when none). */
  readonly sequence: number;
  /** The last verified state recorded. */
  readonly state?: SubjectState;
  /** Keys of the states published, oldest first (bounded). */
  readonly history: readonly string[];
  /** Fingerprints (`<id>#<hash>`) of notifications already handled, oldest first (bounded). */
  readonly seen: readonly string[];
  readonly outbox?: Outbox;
  /**
   * Changes a reconciliation look published that no notification has told of yet (bounded): a
   * notification that bears one out takes it off; one still here when its grace period ends is a
   * webhook the bank lost (NotificationsRecovered).
   */
  readonly unnotified?: readonly UnnotifiedChange[];
  /**
   * A payment not final yet: since when (epoch ms). Written, it puts the record in the sparse
   * index the reconciliation sweep reads (pending-payments.ts); left out, the record leaves it.
   */
  readonly pendingSince?: number;
  /**
   * What happened to the subject, oldest first (bounded by the processor's appendTrail): notifications
   * handled, looks that changed the record, changes published, recoveries, quarantines. Written
   * in the same conditional write as the change it tells of.
   */
  readonly trail?: readonly TrailEntry[];
  /**
   * Why the provider ties the subject to another receiver (a Pix to another of the account's keys,
   * or keyless while this receiver is not the account's receiver for keyless Pix): nothing is
   * published, and the sweep does not ask again.
   */
  readonly notAttributed?: string;
  /**
   * Why the record's state, taken up with no record before it, was not published (dated before
   * what records remember: it may have been published before an earlier record expired). Until a
   * change is published, no Notification Not Confirmed is either: the notifications it judges may
   * have been judged, and told, under the expired record.
   */
  readonly pastRecordLifetime?: string;
}

export type SubjectRecordWrite = Omit<SubjectRecord, 'version'>;

/** A change a look published before any notification told of it. */
export interface UnnotifiedChange {
  /** The change's key (its idempotency key's last part). */
  readonly key: string;
  /** Its state's status class: a notification claiming it tells of the change. */
  readonly statusClass: StatusClass;
}

/** How many changes not told of a record keeps. */
export const UNNOTIFIED_LIMIT = 10;

export const EMPTY_RECORD: SubjectRecord = { version: 0, sequence: 0, history: [], seen: [] };

/** How many published keys and notification fingerprints a record keeps. */
export const HISTORY_LIMIT = 50;
export const SEEN_LIMIT = 200;

export interface SubjectStore {
  /** The subject's record (consistent read), or EMPTY_RECORD. */
  read(subjectId: string): Promise<SubjectRecord>;
  /**
   * The records of several subjects in one request (consistent reads; EMPTY_RECORD for one that
   * has none); a subject the store could not read in time is left out, to be read on its own.
   */
  readMany?(subjectIds: readonly string[]): Promise<Map<string, SubjectRecord>>;
  /** Writes the whole record if its version is still `expectedVersion`; false when it is not. */
  write(subjectId: string, expectedVersion: number, next: SubjectRecordWrite): Promise<boolean>;
  /** Takes over an outbox whose lease ran out (or was given up); false when someone else did. */
  takeOutbox(subjectId: string, outbox: Outbox, leaseUntil: number): Promise<boolean>;
  /** Removes a published outbox; false when it is no longer there. */
  clearOutbox(subjectId: string, outboxId: string): Promise<boolean>;
}

/** A new outbox id. */
export function newOutboxId(): string {
  return randomUUID();
}

/** Keys BatchGetItem takes in one request. */
const BATCH_GET_LIMIT = 100;

/** A subject's record as its item holds it. */
function recordOf(Item: Record<string, AttributeValue>): SubjectRecord {
  const data = JSON.parse(Item.data?.S ?? '{}') as Pick<
    SubjectRecord,
    'state' | 'history' | 'seen' | 'unnotified' | 'trail' | 'notAttributed' | 'pastRecordLifetime'
  >;
  const outbox: Outbox | undefined = Item.outboxId?.S
    ? {
        id: Item.outboxId.S,
        leaseUntil: Number(Item.leaseUntil?.N ?? 0),
        entries: JSON.parse(Item.outbox?.S ?? '[]') as OutboxEntry[],
      }
    : undefined;
  const pendingSince = pendingSinceOf(Item);
  return {
    version: Number(Item.v?.N ?? 0),
    sequence: Number(Item.seq?.N ?? 0),
    state: data.state,
    history: data.history ?? [],
    seen: data.seen ?? [],
    ...(data.unnotified?.length ? { unnotified: data.unnotified } : {}),
    ...(data.trail?.length ? { trail: data.trail } : {}),
    ...(typeof data.notAttributed === 'string' ? { notAttributed: data.notAttributed } : {}),
    ...(typeof data.pastRecordLifetime === 'string' ? { pastRecordLifetime: data.pastRecordLifetime } : {}),
    ...(outbox ? { outbox } : {}),
    ...(pendingSince !== undefined ? { pendingSince } : {}),
  };
}

/**
 * A batch's view of the store: the first read of a subject read with the batch (readMany) answers
 * that record, then every read goes to the store. A copy a little older than a read of its own is
 * safe: every write is conditional on the version read, and a write that loses reads again.
 */
export class PrefetchedSubjects implements SubjectStore {
  constructor(
    private readonly store: SubjectStore,
    private readonly fetched: Map<string, SubjectRecord>,
  ) {}

  read(subjectId: string): Promise<SubjectRecord> {
    const record = this.fetched.get(subjectId);
    if (!record) return this.store.read(subjectId);
    this.fetched.delete(subjectId);
    return Promise.resolve(record);
  }

  write(subjectId: string, expectedVersion: number, next: SubjectRecordWrite): Promise<boolean> {
    this.fetched.delete(subjectId);
    return this.store.write(subjectId, expectedVersion, next);
  }

  takeOutbox(subjectId: string, outbox: Outbox, leaseUntil: number): Promise<boolean> {
    this.fetched.delete(subjectId);
    return this.store.takeOutbox(subjectId, outbox, leaseUntil);
  }

  clearOutbox(subjectId: string, outboxId: string): Promise<boolean> {
    this.fetched.delete(subjectId);
    return this.store.clearOutbox(subjectId, outboxId);
  }
}

/** The subject store on the processor's DynamoDB table (one item per subject, TTL refreshed by each write). */
export class DynamoDbSubjectStore implements SubjectStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
    /** Lifetimes of the kinds of subject whose records live longer (`pix`, `pix-refund`), by the subject id's kind. */
    private readonly ttlSecondsByKind: Readonly<Partial<Record<string, number>>> = {},
  ) {}

  async read(subjectId: string): Promise<SubjectRecord> {
    return inSpan('read subject', {}, async () => {
      const { Item } = await this.client.send(
        new GetItemCommand({ TableName: this.tableName, Key: this.key(subjectId), ConsistentRead: true }),
      );
      return Item ? recordOf(Item) : EMPTY_RECORD;
    });
  }

  async readMany(subjectIds: readonly string[]): Promise<Map<string, SubjectRecord>> {
    const records = new Map<string, SubjectRecord>();
    let keys = [...new Set(subjectIds)].slice(0, BATCH_GET_LIMIT).map((id) => this.key(id));
    const asked = keys.map((key) => key[IdempotencyTable.KEY].S);
    // Keys DynamoDB leaves unprocessed (throttling, the 16 MB answer limit) are asked once more; the rest are read one by one.
    for (let round = 0; keys.length && round < 2; round++) {
      const answer = await this.client.send(
        new BatchGetItemCommand({ RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } } }),
      );
      for (const item of answer.Responses?.[this.tableName] ?? [])
        records.set(item[IdempotencyTable.KEY].S!, recordOf(item));
      keys = (answer.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as typeof keys;
    }
    const unread = new Set(keys.map((key) => key[IdempotencyTable.KEY].S));
    for (const id of asked) if (!records.has(id) && !unread.has(id)) records.set(id, EMPTY_RECORD);
    return records;
  }

  async write(subjectId: string, expectedVersion: number, next: SubjectRecordWrite): Promise<boolean> {
    const item: Record<string, { S: string } | { N: string }> = {
      ...this.key(subjectId),
      v: { N: String(expectedVersion + 1) },
      seq: { N: String(next.sequence) },
      data: {
        S: JSON.stringify({
          state: next.state,
          history: next.history,
          seen: next.seen,
          ...(next.unnotified?.length ? { unnotified: next.unnotified } : {}),
          ...(next.trail?.length ? { trail: next.trail } : {}),
          ...(next.notAttributed ? { notAttributed: next.notAttributed } : {}),
          ...(next.pastRecordLifetime ? { pastRecordLifetime: next.pastRecordLifetime } : {}),
        }),
      },
      [IdempotencyTable.TTL]: {
        N: String(
          Math.floor(this.now() / 1000) +
            (this.ttlSecondsByKind[subjectId.slice(0, subjectId.indexOf(':'))] ?? this.ttlSeconds),
        ),
      },
    };
    if (next.pendingSince !== undefined) Object.assign(item, pendingPaymentAttributes(next.pendingSince));
    if (next.outbox) {
      item.outboxId = { S: next.outbox.id };
      item.leaseUntil = { N: String(next.outbox.leaseUntil) };
      item.outbox = { S: JSON.stringify(next.outbox.entries) };
    }
    return inSpan('write subject', { 'bank.expected_version': expectedVersion }, async (span) => {
      const written = await this.conditional(
        new PutItemCommand({
          TableName: this.tableName,
          Item: item,
          ...(expectedVersion === 0
            ? {
                ConditionExpression: 'attribute_not_exists(#id)',
                ExpressionAttributeNames: { '#id': IdempotencyTable.KEY },
              }
            : {
                ConditionExpression: '#v = :v',
                ExpressionAttributeNames: { '#v': 'v' },
                ExpressionAttributeValues: { ':v': { N: String(expectedVersion) } },
              }),
        }),
      );
      // Lost to another writer: the look reads the subject again.
      span.setAttribute('bank.written', written);
      return written;
    });
  }

  async takeOutbox(subjectId: string, outbox: Outbox, leaseUntil: number): Promise<boolean> {
    return this.conditional(
      new UpdateItemCommand({
        TableName: this.tableName,
        Key: this.key(subjectId),
        UpdateExpression: 'SET leaseUntil = :new',
        ConditionExpression: 'outboxId = :id AND leaseUntil = :old',
        ExpressionAttributeValues: {
          ':id': { S: outbox.id },
          ':old': { N: String(outbox.leaseUntil) },
          ':new': { N: String(leaseUntil) },
        },
      }),
    );
  }

  async clearOutbox(subjectId: string, outboxId: string): Promise<boolean> {
    return this.conditional(
      new UpdateItemCommand({
        TableName: this.tableName,
        Key: this.key(subjectId),
        UpdateExpression: 'REMOVE outboxId, leaseUntil, outbox SET v = v + :one',
        ConditionExpression: 'outboxId = :id',
        ExpressionAttributeValues: { ':id': { S: outboxId }, ':one': { N: '1' } },
      }),
    );
  }

  private key(subjectId: string) {
    return { [IdempotencyTable.KEY]: { S: subjectId } };
  }

  private async conditional(command: PutItemCommand | UpdateItemCommand): Promise<boolean> {
    try {
      await this.client.send(command as PutItemCommand);
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
