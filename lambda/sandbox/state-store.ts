/**
 * The deployed simulator's state: one DynamoDB item, its JSON gzipped, written only over the
 * version it was read at. Every request reads it, runs, and writes it back; a request that lost
 * the race to another one runs again on the newer state, so instances share no memory and never
 * overwrite each other's changes.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { SANDBOX_STATE_KEY, SandboxDefaults } from '../../contracts/sandbox';
import type { DeliveryRecord, SimulatorState } from '../../simulator';

/** The delivery log a deployed simulator keeps with its state. */
export interface StoredDeliveries {
  readonly log: DeliveryRecord[];
  readonly nextSeq: number;
  /** Notifications a request is delivering and has not yet logged, with when that request will surely have ended (epoch ms). */
  readonly pending: ReadonlyArray<{ readonly id: string; readonly until: number }>;
}

/** Everything stored: the simulator's state (none before the first request) and its deliveries. */
export interface StoredSandbox {
  readonly simulator?: SimulatorState;
  readonly deliveries: StoredDeliveries;
  /** The function URL's origin (`https://<id>.lambda-url.<region>.on.aws`), as the last request through it came. */
  readonly origin?: string;
}

export interface VersionedSandbox {
  readonly version: number;
  readonly value: StoredSandbox;
  /** The JSON read, to tell whether a request changed anything. */
  readonly json: string;
}

export const EMPTY_SANDBOX: StoredSandbox = { deliveries: { log: [], nextSeq: 1, pending: [] } };

/** The state is larger than one DynamoDB item holds. */
export class SandboxStateFullError extends Error {
  constructor(readonly bytes: number) {
    super(
      `The simulator's state is full (${Math.round(bytes / 1024)} KB gzipped; one DynamoDB item holds ${Math.round(SandboxDefaults.maxStateBytes / 1024)} KB): the change was not made. Redeploy the sandbox (or delete its table's item) to start empty.`,
    );
    this.name = 'SandboxStateFullError';
  }
}

export class SandboxStateStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async read(): Promise<VersionedSandbox> {
    const { Item } = await this.client.send(
      new GetItemCommand({
        TableName: this.tableName,
        Key: { [SANDBOX_STATE_KEY.attribute]: { S: SANDBOX_STATE_KEY.value } },
        ConsistentRead: true,
      }),
    );
    if (!Item?.state?.B) return { version: 0, value: EMPTY_SANDBOX, json: JSON.stringify(EMPTY_SANDBOX) };
    const json = gunzipSync(Item.state.B).toString('utf8');
    return { version: Number(Item.version?.N ?? 0), value: JSON.parse(json) as StoredSandbox, json };
  }

  /** Writes `value` over `version`; false when another request wrote first. */
  async write(value: StoredSandbox, version: number): Promise<boolean> {
    const state = gzipSync(JSON.stringify(value));
    if (state.length > SandboxDefaults.maxStateBytes) throw new SandboxStateFullError(state.length);
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            [SANDBOX_STATE_KEY.attribute]: { S: SANDBOX_STATE_KEY.value },
            version: { N: String(version + 1) },
            state: { B: state },
          },
          ConditionExpression: version === 0 ? 'attribute_not_exists(#id)' : '#version = :version',
          ExpressionAttributeNames: version === 0 ? { '#id': SANDBOX_STATE_KEY.attribute } : { '#version': 'version' },
          ...(version === 0 ? {} : { ExpressionAttributeValues: { ':version': { N: String(version) } } }),
        }),
      );
      return true;
    } catch (error) {
      if (
        error instanceof ConditionalCheckFailedException ||
        (error as Error).name === 'ConditionalCheckFailedException'
      )
        return false;
      throw error;
    }
  }
}
