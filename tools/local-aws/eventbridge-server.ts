import { randomUUID } from 'node:crypto';
import { JsonProtocolServer, ServiceError } from './json-protocol-server';

/** One event accepted by PutEvents, as recorded. */
export interface RecordedEvent {
  readonly id: string;
  readonly eventBusName: string;
  readonly source: string;
  readonly detailType: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an event detail is any JSON object
  readonly detail: Record<string, any>;
  readonly time?: string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * A local EventBridge sink that speaks the service's JSON protocol (awsJson1_1) for PutEvents
 * (and DescribeRule, of the rules the local runner says exist),
 * so the real `@aws-sdk/client-eventbridge` can be pointed at it
 * (`AWS_ENDPOINT_URL_EVENTBRIDGE`). It records what it accepts, and can refuse entries the way
 * EventBridge reports a partial failure (`FailedEntryCount`, per-entry `ErrorCode`).
 */
export class LocalEventBridge extends JsonProtocolServer {
  /** Every accepted event, in order. */
  readonly events: RecordedEvent[] = [];
  private readonly listeners: Array<(event: RecordedEvent) => void> = [];
  private failuresLeft = 0;
  private failureCode = 'InternalFailure';
  /** The rules that exist, by name, and their state (DescribeRule). */
  private readonly rules = new Map<string, 'ENABLED' | 'DISABLED'>();

  constructor() {
    super('AWSEvents', 'EventBridge');
  }

  /** The next `count` entries are refused with `errorCode` (a partial failure, HTTP 200). */
  failNextEntries(count: number, errorCode = 'InternalFailure'): void {
    this.failuresLeft = count;
    this.failureCode = errorCode;
  }

  /** Calls `listener` with every event accepted from now on (a rule's target). */
  subscribe(listener: (event: RecordedEvent) => void): void {
    this.listeners.push(listener);
  }

  /** Accepted events of one detail type. */
  ofType(detailType: string): RecordedEvent[] {
    return this.events.filter((event) => event.detailType === detailType);
  }

  clear(): void {
    this.events.length = 0;
  }

  /** A rule now exists (as CloudFormation creates it), in `state`. */
  putRule(name: string, state: 'ENABLED' | 'DISABLED' = 'ENABLED'): void {
    this.rules.set(name, state);
  }

  /** A rule is gone (as CloudFormation deletes it). */
  deleteRule(name: string): void {
    this.rules.delete(name);
  }

  protected handle(operation: string, input: Record<string, unknown>): unknown {
    if (operation === 'DescribeRule') {
      const name = text(input.Name);
      const state = this.rules.get(name);
      if (!state) throw new ServiceError(400, 'ResourceNotFoundException', `Rule ${name} does not exist.`);
      return { Name: name, State: state };
    }
    if (operation !== 'PutEvents') throw new ServiceError(400, 'UnknownOperationException', `Operation ${operation || '(none)'} is not supported by the local EventBridge`);
    const entries = input.Entries;
    if (!Array.isArray(entries) || entries.length === 0 || entries.length > 10) {
      throw new ServiceError(400, 'ValidationException', 'Entries must hold 1 to 10 entries');
    }
    let failed = 0;
    const results = (entries as Record<string, unknown>[]).map((entry) => {
      if (this.failuresLeft > 0) {
        this.failuresLeft--;
        failed++;
        return { ErrorCode: this.failureCode, ErrorMessage: 'Simulated PutEvents entry failure' };
      }
      let detail: Record<string, unknown>;
      try {
        detail = JSON.parse(String(entry.Detail)) as Record<string, unknown>;
      } catch {
        failed++;
        return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
      }
      if (!text(entry.Source) || !text(entry.DetailType)) {
        failed++;
        return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Source and DetailType are required.' };
      }
      const id = randomUUID();
      const event: RecordedEvent = {
        id,
        eventBusName: text(entry.EventBusName) || 'default',
        source: text(entry.Source),
        detailType: text(entry.DetailType),
        detail,
        time: entry.Time === undefined ? undefined : new Date(Number(entry.Time) * 1000).toISOString(),
      };
      this.events.push(event);
      for (const listener of this.listeners) listener(event);
      return { EventId: id };
    });
    return { FailedEntryCount: failed, Entries: results };
  }
}
