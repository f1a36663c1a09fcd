/**
 * The operator's commands (`status`, `trace`, `dlq list`, `dlq redrive`): each finds the receiver
 * from its stack's manifest output and acts with the operator's own AWS credentials.
 */
import { PaymentKind } from '../../contracts/events';
import { CliExit, type OperatorManifest, OperatorDefaults } from '../../contracts/operations';
import { formatTable, humanDuration, printable, quoted } from '../table';
import { OperatorError } from './aws';
import { type OperatorIo, usage, type Values, withReceiver } from './receiver-command';
import { DeadLetterQueue, type DeadLetter, failuresTable, redrive, withDeadLetters } from './dead-letters';
import { deleteCommand } from './dlq-delete';
import { formatStatus, receiverStatus } from './status';
import { candidateSubjects, formatTrace, subjectsInJournal, traceSubject } from './trace';
import { checkWindow, parseWhen, reverify } from './reverify';
import { checkReplayWindow, startReplay, waitForReplay } from './replay';
import { formatSweep, runSweep } from './sweep';
import { auditWindow, formatAudit } from './audit';

/** Most messages a `dlq` command reads of a queue. */
const MAX_LETTERS = OperatorDefaults.dlqMaxMessages;

export async function statusCommand(args: readonly string[], io: OperatorIo): Promise<number> {
  return withReceiver(
    'status',
    args,
    io,
    async ({ aws, manifest }) => {
      const now = (io.now ?? Date.now)();
      const status = await receiverStatus(aws, manifest, now);
      io.out(formatStatus(status, now));
      return status.attention ? CliExit.ATTENTION : CliExit.OK;
    },
    (_values, positionals) => {
      if (positionals.length) throw usage(`status takes no arguments (got ${positionals.join(' ')}).`);
    },
  );
}

export async function traceCommand(args: readonly string[], io: OperatorIo): Promise<number> {
  return withReceiver(
    'trace',
    args,
    io,
    async ({ aws, manifest, values, positionals }) => {
      let trace = await traceSubject(
        aws,
        manifest,
        candidateSubjects(positionals[0], manifest, values.kind as PaymentKind | undefined),
      );
      if (!trace.record && !trace.raw.length) {
        // Nothing under the ids the argument makes: it may be a refund's own id, found in the journal's index.
        const found = await subjectsInJournal(aws, manifest, positionals[0]);
        if (found.length > 1) {
          io.out(
            [
              `"${printable(positionals[0])}" names ${found.length} subjects in the journal; trace one by its subject id (the same command with it in place of "${printable(positionals[0])}"):`,
              ...found.map((id) => `  ${printable(id)}`),
            ].join('\n'),
          );
          return CliExit.ATTENTION;
        }
        if (found.length === 1) trace = await traceSubject(aws, manifest, found);
      }
      io.out(formatTrace(trace));
      return trace.record || trace.raw.length ? CliExit.OK : CliExit.ATTENTION;
    },
    (values, positionals) => {
      if (positionals.length !== 1) throw usage('trace takes one nossoNumero, idTransacao or subject id.');
      const kind = values.kind as string | undefined;
      if (kind !== undefined && !(Object.values(PaymentKind) as string[]).includes(kind))
        throw usage(`--kind must be one of ${Object.values(PaymentKind).join(', ')} (got "${kind}").`);
    },
  );
}

/** The dead-letter queue `--queue` names, and the queue its messages go back to. */
function queuesOf(
  manifest: OperatorManifest,
  name: string,
): { queue: DeadLetterQueue; deadLetterUrl: string; targetUrl: string } {
  return name === String(DeadLetterQueue.LOOKS)
    ? {
        queue: DeadLetterQueue.LOOKS,
        deadLetterUrl: manifest.queues.looksDeadLetter.url,
        targetUrl: manifest.queues.looks.url,
      }
    : {
        queue: DeadLetterQueue.NOTIFICATIONS,
        deadLetterUrl: manifest.queues.notificationsDeadLetter.url,
        targetUrl: manifest.queues.notifications.url,
      };
}

/** The letters `--reason` and `--subject` select (every one without them). */
function selected(letters: readonly DeadLetter[], values: Values): DeadLetter[] {
  const reason = (values.reason as string | undefined)?.toLowerCase();
  const subject = values.subject as string | undefined;
  // A subject id, or its last part: an idTransacao, or a nossoNumero (zero-padded to the bank's nine digits).
  const ends =
    subject === undefined
      ? []
      : [`:${subject}`, ...(/^\d{1,9}$/.test(subject) ? [`:${subject.padStart(9, '0')}`] : [])];
  const messageId = values['message-id'] as string | undefined;
  return letters.filter(
    (letter) =>
      (messageId === undefined || letter.message.MessageId === messageId) &&
      (reason === undefined || (letter.reason ?? '').toLowerCase().includes(reason)) &&
      (subject === undefined || letter.subjects.some((s) => s === subject || ends.some((end) => s.endsWith(end)))),
  );
}

function lettersTable(letters: readonly DeadLetter[], now: number): string {
  return formatTable(
    ['age', 'subject', 'reason', 'message id', 'request id (its raw copy in the journal)'],
    letters.map((letter) => [
      humanDuration(now - letter.at),
      letter.subjects.join(' ') || '(unreadable)',
      (letter.reason ?? '(none: moved by SQS after a crash or timeout)').slice(0, 160),
      letter.message.MessageId ?? '?',
      letter.requestId ?? '-',
    ]),
  );
}

export async function dlqCommand(args: readonly string[], io: OperatorIo): Promise<number> {
  const [action, ...rest] = args;
  if (action !== 'list' && action !== 'redrive' && action !== 'delete')
    throw usage(`dlq takes list, redrive or delete (got ${action === undefined ? 'nothing' : quoted(action)}).`);
  return withReceiver(
    `dlq ${action}`,
    rest,
    io,
    async ({ aws, manifest, values }) => {
      const { queue, deadLetterUrl, targetUrl } = queuesOf(
        manifest,
        (values.queue as string | undefined) ?? DeadLetterQueue.NOTIFICATIONS,
      );
      const filtered =
        values.reason !== undefined || values.subject !== undefined || values['message-id'] !== undefined;
      const now = (io.now ?? Date.now)();
      if (action === 'delete' && !manifest.journalBucket)
        throw new OperatorError(
          `Receiver ${printable(manifest.receiverName)} keeps no journal (journal.enabled is false), where dlq delete records what it deletes first: nothing deleted. Record the messages yourself (dlq list), then delete them with the AWS CLI's sqs delete-message.`,
          CliExit.NOT_FOUND,
        );
      return withDeadLetters(
        aws.sqs,
        queue,
        deadLetterUrl,
        manifest.codigoBeneficiario,
        MAX_LETTERS,
        async (letters, taken) => {
          const chosen = selected(letters, values);
          const read = letters.length >= MAX_LETTERS ? ` (the first ${MAX_LETTERS} read)` : '';
          const held = `${letters.length} message(s) in the ${queue} dead-letter queue${read}`;
          if (!letters.length) {
            io.out(`The ${queue} dead-letter queue is empty${action === 'redrive' ? ': nothing to send back' : ''}.`);
            return CliExit.OK;
          }
          if (action === 'delete')
            return deleteCommand(io, aws, manifest.journalBucket!, deadLetterUrl, chosen, taken, {
              held,
              dryRun: values['dry-run'] === true,
              table: (letters) => lettersTable(letters, now),
            });
          if (action === 'list' || values['dry-run']) {
            const which = filtered ? `${chosen.length} of ${held} match` : held;
            io.out(
              action === 'redrive'
                ? chosen.length
                  ? `Dry run: would send back ${chosen.length} of ${held}.`
                  : `Dry run: none of ${held} matches; nothing would be sent back.`
                : `${which}.`,
            );
            if (chosen.length) io.out(lettersTable(chosen, now));
            return CliExit.OK;
          }
          if (!chosen.length) {
            io.out(`None of ${held} matches: nothing sent back.`);
            return CliExit.OK;
          }
          const result = await redrive(aws.sqs, deadLetterUrl, targetUrl, chosen, taken);
          io.out(
            `Sent ${result.sent} of ${chosen.length} message(s) back to the ${queue} queue; a change already published is not published again.`,
          );
          if (!result.failed.length) return CliExit.OK;
          io.err(
            `${result.failed.length} of ${chosen.length} message(s) were not moved (exit ${CliExit.FAILED}); they stay in the dead-letter queue unless said otherwise:`,
          );
          io.err(failuresTable(result.failed));
          return CliExit.FAILED;
        },
      );
    },
    (values, positionals) => {
      if (positionals.length)
        throw usage(
          `dlq ${action} takes no arguments (got ${positionals.join(' ')}); filter with --reason or --subject.`,
        );
      const name = values.queue as string | undefined;
      if (name !== undefined && !(Object.values(DeadLetterQueue) as string[]).includes(name))
        throw usage(
          `--queue must be ${DeadLetterQueue.NOTIFICATIONS} or ${DeadLetterQueue.LOOKS} (got ${quoted(name)}).`,
        );
      const filtered =
        values.reason !== undefined || values.subject !== undefined || values['message-id'] !== undefined;
      if (action === 'redrive' && !filtered && !values.all)
        throw usage('dlq redrive needs --all, or a filter: --reason <text> or --subject <id>.');
      if (action === 'delete' && !filtered)
        throw usage(
          'dlq delete needs a filter: --message-id <id>, --reason <text> or --subject <id> (dlq list shows them).',
        );
    },
  );
}

export async function reverifyCommand(args: readonly string[], io: OperatorIo): Promise<number> {
  let window: { from: number; to: number } | undefined;
  return withReceiver(
    'reverify',
    args,
    io,
    async ({ aws, manifest, values }) => {
      const { from, to } = window!;
      const now = (io.now ?? Date.now)();
      const dryRun = values['dry-run'] === true;
      const pastRecords = values['past-records'] === true;
      const result = await reverify(aws, manifest, from, to, dryRun, now, pastRecords);
      io.out(
        `${result.notifications} notification(s) in the journal between ${new Date(from).toISOString()} and ${new Date(to).toISOString()} name ${result.subjects.length} subject(s).`,
      );
      if (result.subjects.length) io.out(result.subjects.map((s) => `  ${s.id}`).join('\n'));
      io.out(
        dryRun
          ? 'Dry run: no look requested.'
          : pastRecords
            ? `Sent ${result.sent} replay look request(s) to the look queue: each takes the looks' share of the bank's query budget; what a subject whose record expired shows is published again (trigger replay, its sequence from 1): consumers dedupe on the idempotencyKey without its #sequence. Follow them with status and trace.`
            : `Sent ${result.sent} look request(s) to the look queue: each takes the looks' share of the bank's query budget; what changed is published once (trigger reconciliation), the rest publish nothing. Follow them with status and trace.`,
      );
      return CliExit.OK;
    },
    (values, positionals) => {
      if (positionals.length) throw usage(`reverify takes no arguments (got ${positionals.join(' ')}).`);
      if (!values.from || !values.to)
        throw usage('reverify needs --from and --to (a day such as 2026-11-25, or an ISO 8601 time).');
      window = { from: parseWhen(values.from as string, '--from'), to: parseWhen(values.to as string, '--to', true) };
      checkWindow(window.from, window.to);
    },
  );
}

export async function replayCommand(args: readonly string[], io: OperatorIo): Promise<number> {
  let window: { from: number; to: number } | undefined;
  const now = (io.now ?? Date.now)();
  return withReceiver(
    'replay',
    args,
    io,
    async ({ aws, manifest, values }) => {
      const { from, to } = window!;
      const replay = await startReplay(aws, manifest, values.rule as string, from, to, now);
      io.out(
        `Replay ${replay.name} started (${replay.state}): the archive ${replay.archive}'s events of ${new Date(from).toISOString()} to ${new Date(to).toISOString()}, to the rule ${values.rule as string} alone (${replay.ruleArn}). Its consumer gets each event again: the idempotencyKey tells the ones it already handled.`,
      );
      if (!values.wait) {
        io.out(`Follow it: aws events describe-replay --replay-name ${replay.name}`);
        return CliExit.OK;
      }
      const end = await waitForReplay(aws, replay.name, OperatorDefaults.replayWaitSeconds * 1000);
      io.out(`Replay ${replay.name}: ${end.state}${end.reason ? ` (${end.reason})` : ''}`);
      return end.state === 'COMPLETED' ? CliExit.OK : CliExit.FAILED;
    },
    (values, positionals) => {
      if (positionals.length) throw usage(`replay takes no arguments (got ${positionals.join(' ')}).`);
      if (!values.rule)
        throw usage(
          'replay needs --rule <the one rule to replay to>: never every rule, or the healthy consumers get their events twice.',
        );
      if (!values.from || !values.to)
        throw usage('replay needs --from and --to (a day such as 2026-11-25, or an ISO 8601 time).');
      window = {
        from: parseWhen(values.from as string, '--from'),
        to: Math.min(parseWhen(values.to as string, '--to', true), now),
      };
      checkReplayWindow(window.from, window.to);
    },
  );
}

export async function sweepCommand(args: readonly string[], io: OperatorIo): Promise<number> {
  return withReceiver(
    'sweep',
    args,
    io,
    async ({ aws, manifest }) => {
      const result = await runSweep(aws, manifest, (io.now ?? Date.now)());
      io.out(formatSweep(result));
      return result.complete ? CliExit.OK : CliExit.ATTENTION;
    },
    (_values, positionals) => {
      if (positionals.length) throw usage(`sweep takes no arguments (got ${positionals.join(' ')}).`);
    },
  );
}

export async function auditCommand(args: readonly string[], io: OperatorIo): Promise<number> {
  let window: { from: number; to: number } | undefined;
  const now = (io.now ?? Date.now)();
  return withReceiver(
    'audit',
    args,
    io,
    async ({ aws, manifest }) => {
      const result = await auditWindow(aws, manifest, window!.from, window!.to, now);
      io.out(formatAudit(result));
      return result.violations.length ? CliExit.ATTENTION : CliExit.OK;
    },
    (values, positionals) => {
      if (positionals.length) throw usage(`audit takes no arguments (got ${positionals.join(' ')}).`);
      if (!values.from || !values.to)
        throw usage('audit needs --from and --to (a day such as 2026-11-25, or an ISO 8601 time).');
      window = {
        from: parseWhen(values.from as string, '--from'),
        to: Math.min(parseWhen(values.to as string, '--to', true), now),
      };
      checkWindow(window.from, window.to, 'audit', OperatorDefaults.auditMaxWindowDays);
    },
  );
}

export type { OperatorIo } from './receiver-command';
