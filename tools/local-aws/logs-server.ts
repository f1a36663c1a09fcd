import { JsonProtocolServer, ServiceError } from './json-protocol-server';

/** One log event as the local CloudWatch Logs keeps it. */
export interface LocalLogEvent {
  readonly timestamp: number;
  readonly message: string;
}

/** Events a FilterLogEvents page holds locally (CloudWatch Logs' own pages are larger): small, so readers page. */
const PAGE = 50;

/**
 * A local endpoint that speaks CloudWatch Logs' JSON protocol (awsJson1_1) for what the operator
 * CLI's `audit` reads: FilterLogEvents of one group by time, in pages (`nextToken`), with a filter pattern of the forms
 * CloudWatch Logs documents for text (terms all present, `"a phrase"`, `?either ?or`, `-not`) and
 * one JSON comparison (`{ $.status = 401 }`, `!=`; a bare or quoted value). The local
 * runner writes the groups itself, as a rule with a log group target does (`append`); a group
 * nobody wrote answers ResourceNotFoundException, as CloudWatch Logs does. Loopback only.
 */
export class LocalLogs extends JsonProtocolServer {
  private readonly groups = new Map<string, LocalLogEvent[]>();

  constructor() {
    super('Logs_20140328', 'CloudWatch Logs');
  }

  /** Makes a group (empty). */
  createGroup(name: string): void {
    if (!this.groups.has(name)) this.groups.set(name, []);
  }

  /** Appends an event to a group (made if need be). */
  append(group: string, message: string, timestamp = Date.now()): void {
    this.createGroup(group);
    this.groups.get(group)!.push({ timestamp, message });
  }

  /** A group's events, oldest first. */
  eventsOf(group: string): readonly LocalLogEvent[] {
    return this.groups.get(group) ?? [];
  }

  protected handle(operation: string, input: Record<string, unknown>): unknown {
    if (operation !== 'FilterLogEvents')
      throw new ServiceError(400, 'InvalidAction', `${operation} is not supported by the local CloudWatch Logs`);
    const events = this.groups.get(String(input.logGroupName));
    if (!events) throw new ServiceError(400, 'ResourceNotFoundException', 'The specified log group does not exist.');
    const from = typeof input.startTime === 'number' ? input.startTime : 0;
    const to = typeof input.endTime === 'number' ? input.endTime : Number.MAX_SAFE_INTEGER;
    const matches = filterOf(input.filterPattern);
    const matching = events
      .filter((e) => e.timestamp >= from && e.timestamp <= to && matches(e.message))
      .sort((a, b) => a.timestamp - b.timestamp);
    const start = typeof input.nextToken === 'string' ? Number(input.nextToken) : 0;
    const page = matching.slice(start, start + PAGE);
    return {
      events: page.map((e, i) => ({
        logStreamName: 'events',
        timestamp: e.timestamp,
        ingestionTime: e.timestamp,
        message: e.message,
        eventId: String(start + i),
      })),
      ...(start + PAGE < matching.length ? { nextToken: String(start + PAGE) } : {}),
    };
  }
}

/**
 * A filter pattern as a test of a message: the subset of CloudWatch Logs' syntax the runbooks use
 * (anything else is refused, never read loosely).
 */
function filterOf(pattern: unknown): (message: string) => boolean {
  const text = typeof pattern === 'string' ? pattern.trim() : '';
  if (!text) return () => true;
  if (text.startsWith('{')) {
    const m = /^\{\s*\$\.([\w.]+)\s*(!?=)\s*("[^"]*"|[^\s}]+)\s*\}$/.exec(text);
    if (!m)
      throw new ServiceError(
        400,
        'InvalidParameterException',
        `The local CloudWatch Logs reads one JSON comparison only, not ${text}`,
      );
    const [, path, op, raw] = m;
    const want = raw.startsWith('"') ? raw.slice(1, -1) : raw;
    return (message) => {
      let value: unknown;
      try {
        value = path
          .split('.')
          .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], JSON.parse(message));
      } catch {
        return false;
      }
      const equal = ['string', 'number', 'boolean'].includes(typeof value) && String(value) === want;
      return op === '=' ? equal : value !== undefined && !equal;
    };
  }
  const terms = [...text.matchAll(/([?-]?)("([^"]*)"|\S+)/g)].map((m) => ({ sign: m[1], term: m[3] ?? m[2] }));
  const all = terms.filter((t) => !t.sign).map((t) => t.term);
  const any = terms.filter((t) => t.sign === '?').map((t) => t.term);
  const none = terms.filter((t) => t.sign === '-').map((t) => t.term);
  return (message) =>
    all.every((t) => message.includes(t)) &&
    (!any.length || any.some((t) => message.includes(t))) &&
    !none.some((t) => message.includes(t));
}
