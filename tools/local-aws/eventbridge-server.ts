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
  /** When the bus accepted it (epoch ms): what an archive's replay window reads. */
  readonly receivedAt?: number;
  /** A replay's name, when the event is one replayed from the archive. */
  readonly replayName?: string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A rule as CloudFormation's AWS::Events::Rule says it: the properties the local drift detection compares. */
export interface RuleDefinition {
  EventPattern?: unknown;
  State?: string;
  Targets?: unknown[];
}

/**
 * A local EventBridge sink that speaks the service's JSON protocol (awsJson1_1) for PutEvents
 * (and DescribeRule and ListRules, of the rules the local runner says exist; PutRule, PutTargets,
 * RemoveTargets and ListTargetsByRule of a rule it defined, which change only what the local drift
 * detection reads: deliveries stay as the runner wired them; DescribeArchive,
 * StartReplay and DescribeReplay of its archive: a replay delivers the window's events to the one
 * rule it names, through the listener that rule was given),
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
  /** What each rule delivers to (its target), by name: a replay reaches a rule's alone. */
  private readonly ruleTargets = new Map<string, (event: RecordedEvent) => void>();
  /** The archives, by name (every event of the bus is in each). */
  private readonly archives = new Set<string>();
  private readonly replays = new Map<string, { state: string; reason?: string }>();
  /** What a rule says (its pattern and targets), for the rules defined with defineRule: PutRule, PutTargets and RemoveTargets change it. */
  private readonly definitions = new Map<string, RuleDefinition>();

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
    this.ruleTargets.delete(name);
  }

  /** A rule with a target: every event accepted is offered to `deliver` (which matches its own pattern), and a replay naming the rule too. */
  putRuleWithTarget(name: string, deliver: (event: RecordedEvent) => void): void {
    this.putRule(name);
    this.ruleTargets.set(name, deliver);
    this.subscribe((event) => {
      if (this.rules.get(name) === 'ENABLED' && this.ruleTargets.get(name) === deliver) deliver(event);
    });
  }

  /** A rule's definition as CloudFormation deployed it (its pattern, state and targets); the local drift detection compares the template with it. */
  defineRule(name: string, definition: RuleDefinition): void {
    if (!this.rules.has(name)) this.putRule(name, definition.State === 'DISABLED' ? 'DISABLED' : 'ENABLED');
    this.definitions.set(name, structuredClone(definition));
  }

  /** A defined rule's definition now (after any PutRule, PutTargets, RemoveTargets); undefined once deleted. */
  ruleDefinition(name: string): RuleDefinition | undefined {
    return this.rules.has(name) ? structuredClone(this.definitions.get(name)) : undefined;
  }

  /** PutRule, PutTargets, RemoveTargets and ListTargetsByRule on a defined rule, as EventBridge's API changes or reads it. */
  private changeRule(operation: string, input: Record<string, unknown>): unknown {
    const name = text(input.Rule) || text(input.Name);
    const definition = this.definitions.get(name);
    if (!definition || !this.rules.has(name))
      throw new ServiceError(400, 'ResourceNotFoundException', `Rule ${name} does not exist.`);
    const targets = (definition.Targets ?? []) as Array<Record<string, unknown>>;
    if (operation === 'ListTargetsByRule') return { Targets: targets };
    if (operation === 'PutRule') {
      if (input.EventPattern !== undefined) definition.EventPattern = JSON.parse(text(input.EventPattern)) as unknown;
      if (input.State !== undefined) {
        definition.State = text(input.State);
        this.rules.set(name, definition.State === 'DISABLED' ? 'DISABLED' : 'ENABLED');
      }
      return { RuleArn: this.ruleArn(name) };
    }
    if (operation === 'PutTargets') {
      for (const target of (input.Targets ?? []) as Array<Record<string, unknown>>) {
        const at = targets.findIndex((t) => t.Id === target.Id);
        if (at >= 0) targets[at] = target;
        else targets.push(target);
      }
      definition.Targets = targets;
      return { FailedEntryCount: 0, FailedEntries: [] };
    }
    const ids = (input.Ids ?? []) as string[];
    definition.Targets = targets.filter((t) => !ids.includes(text(t.Id)));
    return { FailedEntryCount: 0, FailedEntries: [] };
  }

  /** An archive of the bus exists (as CloudFormation creates it). */
  putArchive(name: string): void {
    this.archives.add(name);
  }

  private ruleArn(name: string): string {
    return `arn:aws:events:us-east-1:000000000000:rule/${name}`;
  }

  /** StartReplay: the archive's events of the window, to the rules its filter names (their targets alone), at once. */
  private startReplay(input: Record<string, unknown>): unknown {
    const name = text(input.ReplayName);
    const archive = /archive\/(.+)$/.exec(text(input.EventSourceArn))?.[1] ?? '';
    if (!this.archives.has(archive))
      throw new ServiceError(400, 'ResourceNotFoundException', `Archive ${archive} does not exist.`);
    if (this.replays.has(name))
      throw new ServiceError(400, 'ResourceAlreadyExistsException', `Replay ${name} already exists.`);
    const from = Number(input.EventStartTime) * 1000;
    const to = Number(input.EventEndTime) * 1000;
    const destination = input.Destination as { FilterArns?: string[] } | undefined;
    const targets = [...this.ruleTargets.entries()].filter(([rule]) =>
      (destination?.FilterArns ?? []).includes(this.ruleArn(rule)),
    );
    const window = this.events.filter(
      (event) => !event.replayName && (event.receivedAt ?? 0) >= from && (event.receivedAt ?? 0) <= to,
    );
    for (const event of window) for (const [, deliver] of targets) deliver({ ...event, replayName: name });
    this.replays.set(name, { state: 'COMPLETED' });
    return { ReplayArn: `arn:aws:events:us-east-1:000000000000:replay/${name}`, State: 'STARTING' };
  }

  protected handle(operation: string, input: Record<string, unknown>): unknown {
    if (operation === 'DescribeRule') {
      const name = text(input.Name);
      const state = this.rules.get(name);
      if (!state) throw new ServiceError(400, 'ResourceNotFoundException', `Rule ${name} does not exist.`);
      return { Name: name, Arn: this.ruleArn(name), State: state };
    }
    if (operation === 'ListRules')
      return {
        Rules: [...this.rules.entries()].map(([name, state]) => ({
          Name: name,
          Arn: this.ruleArn(name),
          State: state,
        })),
      };
    if (operation === 'DescribeArchive') {
      const name = text(input.ArchiveName);
      if (!this.archives.has(name))
        throw new ServiceError(400, 'ResourceNotFoundException', `Archive ${name} does not exist.`);
      return {
        ArchiveName: name,
        ArchiveArn: `arn:aws:events:us-east-1:000000000000:archive/${name}`,
        State: 'ENABLED',
      };
    }
    if (operation === 'StartReplay') return this.startReplay(input);
    if (['PutRule', 'PutTargets', 'RemoveTargets', 'ListTargetsByRule'].includes(operation))
      return this.changeRule(operation, input);
    if (operation === 'DescribeReplay') {
      const replay = this.replays.get(text(input.ReplayName));
      if (!replay)
        throw new ServiceError(400, 'ResourceNotFoundException', `Replay ${text(input.ReplayName)} does not exist.`);
      return { ReplayName: text(input.ReplayName), State: replay.state };
    }
    if (operation !== 'PutEvents')
      throw new ServiceError(
        400,
        'UnknownOperationException',
        `Operation ${operation || '(none)'} is not supported by the local EventBridge`,
      );
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
        receivedAt: Date.now(),
      };
      this.events.push(event);
      for (const listener of this.listeners) listener(event);
      return { EventId: id };
    });
    return { FailedEntryCount: failed, Entries: results };
  }
}
