/**
 * `cdk-bank-webhooks logs <receiver|processor|sweep|access>`: a receiver's log over a time window,
 * optionally filtered (CloudWatch Logs' filter pattern), oldest first. The runbooks' "the processor
 * log" as a command: the log group comes from the manifest, never typed.
 */
import { FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { CliExit, LogSource, type OperatorManifest } from '../../contracts/operations';
import { printable } from '../table';
import { isErrorNamed } from '../../lambda/shared/runtime';
import { type AwsClients, OperatorError } from './aws';
import { checkWindow, parseWhen } from './reverify';
import { type OperatorIo, usage, type Values, withReceiver } from './receiver-command';

/** The window `logs` reads when none is given: the last hour. */
const DEFAULT_WINDOW_MS = 3_600_000;
/** Most events printed, unless `--limit` says otherwise (at most {@link MAX_LIMIT}). */
const DEFAULT_LIMIT = 200;
const MAX_LIMIT = 10_000;

export interface LogsRequest {
  readonly source: LogSource;
  readonly from: number;
  readonly to: number;
  readonly filter?: string;
  readonly limit: number;
}

export interface LogLines {
  readonly group: string;
  readonly events: readonly { readonly at: number; readonly message: string }[];
  /** More events matched than the limit. */
  readonly more: boolean;
}

/** The command line's request, checked whole before AWS is asked. */
export function logsRequest(values: Values, positionals: readonly string[], now: number): LogsRequest {
  const sources = Object.values(LogSource) as string[];
  if (positionals.length !== 1 || !sources.includes(positionals[0]))
    throw usage(
      `logs takes one of ${sources.join(', ')} (got ${positionals.length ? printable(positionals.join(' ')) : 'none'}).`,
    );
  const to = typeof values.to === 'string' ? parseWhen(values.to, '--to', true) : now;
  const from = typeof values.from === 'string' ? parseWhen(values.from, '--from') : to - DEFAULT_WINDOW_MS;
  checkWindow(from, to, 'logs', Number.POSITIVE_INFINITY);
  const limit = typeof values.limit === 'string' ? Number(values.limit) : DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw usage(`--limit must be a whole number from 1 to ${MAX_LIMIT} (got ${printable(String(values.limit))}).`);
  const filter = typeof values.filter === 'string' ? values.filter : undefined;
  return { source: positionals[0] as LogSource, from, to, limit, ...(filter ? { filter } : {}) };
}

/** The log group of `source`, from the manifest: a clear refusal where the stack does not say it. */
export function logGroupOf(manifest: OperatorManifest, source: LogSource): string {
  const group = manifest.logGroups?.[source];
  if (group) return group;
  if (!manifest.logGroups)
    throw new OperatorError(
      `The receiver's manifest names no log group: its stack was deployed by a release before \`logs\`. Deploy it again with this release, or read the ${source} log in the CloudWatch console.`,
      CliExit.NOT_FOUND,
    );
  throw new OperatorError(
    `Receiver ${printable(manifest.receiverName)} has no ${source} log (a sweep runs only in PRODUCTION, with reconciliation on).`,
    CliExit.NOT_FOUND,
  );
}

/** Reads the window's events, page by page, up to the limit. */
export async function readLogs(aws: AwsClients, group: string, request: LogsRequest): Promise<LogLines> {
  const events: { at: number; message: string }[] = [];
  let nextToken: string | undefined;
  try {
    do {
      const page = await aws.logs.send(
        new FilterLogEventsCommand({
          logGroupName: group,
          startTime: request.from,
          endTime: request.to,
          ...(request.filter ? { filterPattern: request.filter } : {}),
          nextToken,
        }),
      );
      for (const event of page.events ?? []) {
        if (events.length === request.limit) return { group, events, more: true };
        events.push({ at: event.timestamp ?? 0, message: event.message ?? '' });
      }
      nextToken = page.nextToken;
    } while (nextToken);
  } catch (error) {
    if (isErrorNamed(error, 'ResourceNotFoundException'))
      throw new OperatorError(
        `The log group ${printable(group)} does not exist (yet): a function's group is made at deploy, and holds nothing until it runs.`,
        CliExit.NOT_FOUND,
      );
    throw error;
  }
  return { group, events, more: false };
}

/** A log message on one line: its control characters (line breaks, escapes a writer put in) escaped, its quotes left as they are. */
const oneLine = (text: string) =>
  text.replace(
    // eslint-disable-next-line no-control-regex -- control characters are what it escapes
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => ({ '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/** One line per event, `<time>  <message>`, a message's own line breaks and control characters escaped. */
export function formatLogs(lines: LogLines, request: LogsRequest): string {
  const window = `${new Date(request.from).toISOString()} to ${new Date(request.to).toISOString()}`;
  const matching = request.filter ? `, matching ${printable(request.filter)}` : '';
  if (!lines.events.length) return `No event in ${printable(lines.group)} from ${window}${matching}.`;
  return [
    `${printable(lines.group)}, ${window}${matching}:`,
    ...lines.events.map((e) => `${new Date(e.at).toISOString()}  ${oneLine(e.message.trimEnd())}`),
    ...(lines.more
      ? [`… more events matched: narrow --from/--to or --filter, or raise --limit (${request.limit} now).`]
      : []),
  ].join('\n');
}

export async function logsCommand(args: readonly string[], io: OperatorIo): Promise<number> {
  const now = (io.now ?? Date.now)();
  let request: LogsRequest | undefined;
  return withReceiver(
    'logs',
    args,
    io,
    async ({ aws, manifest }) => {
      const lines = await readLogs(aws, logGroupOf(manifest, request!.source), request!);
      io.out(formatLogs(lines, request!));
      return lines.events.length ? CliExit.OK : CliExit.ATTENTION;
    },
    (values, positionals) => {
      request = logsRequest(values, positionals, now);
    },
  );
}
