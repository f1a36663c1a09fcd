/**
 * `cdk-bank-webhooks reverify --from --to`: asks the bank again about every subject the journal's
 * notifications of a time window named. Each becomes a look request on the look queue, so it
 * takes the looks' share of the query budget (notifications first) and publishes only what
 * changed: a change whose notification was lost is published once, the rest cost a query and
 * publish nothing. Only within what the records remember: past their lifetime a subject whose
 * record expired looks new, so such a window is refused unless asked for (`--past-records`), and
 * then its looks are replays (trigger `replay`) that publish what they find.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { EventTrigger } from '../../contracts/events';
import { recordsRememberSince } from '../../contracts/processor';
import { CliExit, OperatorDefaults, type OperatorManifest } from '../../contracts/operations';
import { encodeLookRequest } from '../../lambda/store/look-request';
import { type AwsClients, OperatorError } from './aws';
import { DAY_MS, journalKeysBetween } from './journal';
import { type NamedSubject, namedSubjects } from './subjects';

/** A time the command line gives: an ISO 8601 instant, or a day (`YYYY-MM-DD`, UTC) that stands for its start, or with `end` its end. */
export function parseWhen(value: string, option: string, end = false): number {
  const refuse = (why: string): never => {
    throw new OperatorError(
      `${option} must be a day (2026-11-25, UTC) or an ISO 8601 time with its zone (2026-11-25T14:00:00Z, 2026-11-25T11:00:00-03:00), got "${value}"${why}.`,
      CliExit.USAGE,
    );
  };
  const parts = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/i.exec(
    value,
  );
  if (!parts) return refuse('');
  const [, year, month, day, hour, minute, second, zone] = parts;
  // A date the calendar does not have (2026-02-30) is refused, never rolled over into the next month.
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (
    date.getUTCFullYear() !== Number(year) ||
    date.getUTCMonth() !== Number(month) - 1 ||
    date.getUTCDate() !== Number(day)
  )
    return refuse(`: ${year}-${month} has no day ${day}`);
  if (hour === undefined) return end ? date.getTime() + DAY_MS - 1 : date.getTime();
  // A time without its zone would be read in this machine's zone: refused, never guessed.
  if (zone === undefined) return refuse(': a time needs its zone (Z for UTC, or an offset such as -03:00)');
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second ?? 0) > 59) return refuse(': no such time of day');
  const at = Date.parse(value.toUpperCase());
  return Number.isFinite(at) ? at : refuse('');
}

/** Checks a window: in order, and no wider than `maxDays` (reverify's: each subject costs a look). */
export function checkWindow(
  from: number,
  to: number,
  command = 'reverify',
  maxDays: number = OperatorDefaults.reverifyMaxWindowDays,
): void {
  if (to < from)
    throw new OperatorError(
      `--to (${new Date(to).toISOString()}) is before --from (${new Date(from).toISOString()}).`,
      CliExit.USAGE,
    );
  const days = (to - from) / DAY_MS;
  if (days > maxDays) {
    const why =
      command === 'reverify' ? " (each subject costs a look from the looks' share of the bank's query budget)" : '';
    throw new OperatorError(
      `The window is ${days.toFixed(1)} days wide; ${command} takes at most ${maxDays} days at a time${why}: run it once per week.`,
      CliExit.USAGE,
    );
  }
}

/**
 * Checks the window against what the receiver's records remember: a manifest that does not say
 * (a stack of an earlier release, whose processor would publish such looks again) is refused, and
 * so is a window that starts before the records' lifetime (less a day's margin) unless
 * `pastRecords`. Records of some kinds may live longer (a receiver's Pix): `kinds` names the
 * kinds the window's subjects are of, each held to its own lifetime; without it, the window is
 * held to the longest (what the journal may hold is not read yet).
 */
export function checkRecordsLifetime(
  manifest: OperatorManifest,
  from: number,
  now: number,
  pastRecords: boolean,
  kinds?: readonly string[],
): void {
  const lifetime = manifest.recordsLifetimeSeconds;
  if (lifetime === undefined) {
    throw new OperatorError(
      `The stack's operator manifest does not say how long receiver ${manifest.receiverName}'s records live: it was deployed by an earlier release of cdk-bank-webhooks, whose processor publishes again what a look finds once a record expired. Deploy the stack with this release, then run reverify again.`,
      CliExit.ATTENTION,
    );
  }
  if (pastRecords || kinds?.length === 0) return;
  const byKind = (manifest.recordsLifetimeSecondsByKind ?? {}) as Readonly<Record<string, number | undefined>>;
  const lifetimeOf = (kind: string) => byKind[kind] ?? lifetime;
  // The shortest lifetime of the kinds named; before the journal is read, the longest any record has.
  const seconds = kinds
    ? Math.min(...kinds.map(lifetimeOf))
    : Math.max(lifetime, ...Object.keys(byKind).map(lifetimeOf));
  const since = recordsRememberSince(now, seconds);
  if (from >= since) return;
  const kind = Object.keys(byKind).find((k) => byKind[k] === seconds && (!kinds || kinds.includes(k)));
  const whose = kind
    ? `its ${kind} records' ${Math.round(seconds / 86_400)}-day lifetime`
    : `its ${Math.round(seconds / 86_400)}-day idempotencyTtl`;
  const named = kinds ? ` (the window's notifications name ${[...new Set(kinds)].join(', ')} subjects)` : '';
  throw new OperatorError(
    `--from (${new Date(from).toISOString()}) is before what the receiver's records remember${named} (${whose} less a day: from ${new Date(since).toISOString()}): a subject whose record expired looks new, and what its look finds would be published again. Start the window at ${new Date(since).toISOString()} or later, or add --past-records to publish what it finds as replays (trigger replay: consumers dedupe on the idempotencyKey without its #sequence).`,
    CliExit.USAGE,
  );
}

export interface ReverifyResult {
  readonly notifications: number;
  readonly subjects: readonly NamedSubject[];
  /** Look requests sent (0 on a dry run). */
  readonly sent: number;
}

/** Reads the window's notifications from the journal and sends one look request per subject they name (none with `dryRun`). */
export async function reverify(
  aws: AwsClients,
  manifest: OperatorManifest,
  from: number,
  to: number,
  dryRun: boolean,
  now = Date.now(),
  pastRecords = false,
): Promise<ReverifyResult> {
  checkRecordsLifetime(manifest, from, now, pastRecords);
  if (!manifest.journalBucket) {
    throw new OperatorError(
      `Receiver ${manifest.receiverName} keeps no journal (journal.enabled is false): reverify reads the window's notifications from it. The reconciliation sweep re-reads the last days' settlements by itself.`,
      CliExit.NOT_FOUND,
    );
  }
  const keys = await journalKeysBetween(aws, manifest.journalBucket, from, to, (count) => {
    if (count > OperatorDefaults.reverifyMaxNotifications) {
      throw new OperatorError(
        `The window holds more than ${OperatorDefaults.reverifyMaxNotifications} notifications: narrow --from and --to.`,
        CliExit.USAGE,
      );
    }
  });
  const subjects = new Map<string, NamedSubject>();
  for (const key of keys) {
    const object = await aws.s3.send(new GetObjectCommand({ Bucket: manifest.journalBucket, Key: key }));
    const body = await object.Body!.transformToString('utf8');
    for (const subject of namedSubjects(body, manifest.codigoBeneficiario, true).subjects)
      subjects.set(subject.id, subject);
  }
  const list = [...subjects.values()];
  // Each kind the window names, held to its own records' lifetime (a Pix's may reach further back than a boleto's).
  checkRecordsLifetime(
    manifest,
    from,
    now,
    pastRecords,
    list.map((subject) => subject.target.kind),
  );
  let sent = 0;
  if (!dryRun) {
    const reason = `${pastRecords ? 'reverify --past-records' : 'reverify'} by an operator: notified between ${new Date(from).toISOString()} and ${new Date(to).toISOString()}`;
    // Past the records' lifetime, what a look finds is published as a replay (the processor's rule for a subject with no record does not hold it back).
    const trigger = pastRecords ? EventTrigger.REPLAY : EventTrigger.RECONCILIATION;
    for (let i = 0; i < list.length; i += 10) {
      const batch = list.slice(i, i + 10);
      const answer = await aws.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: manifest.queues.looks.url,
          Entries: batch.map((subject, j) => ({
            Id: String(j),
            MessageBody: encodeLookRequest({
              trigger,
              subject: subject.target,
              requestedAt: new Date(now).toISOString(),
              reason,
            }),
          })),
        }),
      );
      sent += answer.Successful?.length ?? 0;
      if (answer.Failed?.length) {
        throw new OperatorError(
          `${sent} of ${list.length} look requests sent; the look queue refused ${answer.Failed.length}: ${answer.Failed[0].Code ?? ''} ${answer.Failed[0].Message ?? ''}. Run it again: a look of a subject already verified publishes nothing.`,
          CliExit.FAILED,
        );
      }
    }
  }
  return { notifications: keys.length, subjects: list, sent };
}
