/**
 * `cdk-bank-webhooks trace <nossoNumero | idTransacao | endToEndId>`: what happened to one boleto, payment or Pix received.
 * Its record's verified state and trail, and its raw notifications in the journal.
 */
import { type PaymentKind, SubjectKind } from '../../contracts/events';
import { CliExit, type OperatorManifest } from '../../contracts/operations';
import { type TrailEntry, TrailEntryKind } from '../../contracts/record';
import { SUBJECT_RULES } from '../../lambda/bank/families';
import { DynamoDbSubjectStore, type SubjectRecord } from '../../lambda/store/subject-store';
import { formatTable, printable } from '../table';
import { type AwsClients, OperatorError } from './aws';
import { journalKeysOf, journalSubjectsMatching } from './journal';
import { isTraceId } from '../../contracts/tracing';

export interface SubjectTrace {
  readonly subjectId: string;
  /** The record, when the receiver keeps one (none: never seen, or expired with its TTL). */
  readonly record?: SubjectRecord;
  /** The raw notifications' keys in the journal, oldest first (none without a journal). */
  readonly raw: readonly string[];
  readonly journalBucket?: string;
}

/** Whether an argument is a subject id already: `<kind>:…`, of any kind (the Pix Automático ones included). */
const isSubjectId = (arg: string) => Object.values(SubjectKind).some((kind) => arg.startsWith(`${kind}:`));

/** The subject ids an operator's argument may name, the likeliest first: each kind's rules guess their own. */
export function candidateSubjects(arg: string, manifest: OperatorManifest, kind?: PaymentKind): string[] {
  if (isSubjectId(arg)) return [arg];
  const guesses = SUBJECT_RULES.flatMap((rules) => rules.guessIds?.(arg, manifest.codigoBeneficiario, kind) ?? []);
  const only = guesses.find((guess) => guess.only);
  if (only) return [...only.ids];
  if (!guesses.length) {
    throw new OperatorError(
      `"${printable(arg)}" is neither a nossoNumero (up to 9 digits), an idTransacao (the bank's pattern: letters, digits, ':' and '-', 1 to 100) nor a Pix's endToEndId, nor a subject id (${Object.values(
        SubjectKind,
      )
        .map((kind) => `${kind}:…`)
        .join(', ')}).`,
      CliExit.USAGE,
    );
  }
  return [...guesses].sort((a, b) => b.rank - a.rank).flatMap((guess) => guess.ids);
}

/** The first candidate the receiver has a record or a raw notification of (else the first, with neither). */
export async function traceSubject(
  aws: AwsClients,
  manifest: OperatorManifest,
  candidates: readonly string[],
): Promise<SubjectTrace> {
  const store = new DynamoDbSubjectStore(aws.dynamo, manifest.table, 0);
  let first: SubjectTrace | undefined;
  for (const subjectId of candidates) {
    const record = await store.read(subjectId);
    const raw = manifest.journalBucket ? await journalKeysOf(aws, manifest.journalBucket, subjectId) : [];
    const trace: SubjectTrace = {
      subjectId,
      ...(record.version > 0 ? { record } : {}),
      raw,
      journalBucket: manifest.journalBucket,
    };
    if (trace.record || raw.length) return trace;
    first ??= trace;
  }
  return first!;
}

/**
 * The subjects an argument names that only the journal's index can find (a Pix refund's own id),
 * each kind's rules saying where to look; none without a journal or for a subject id.
 */
export async function subjectsInJournal(aws: AwsClients, manifest: OperatorManifest, arg: string): Promise<string[]> {
  if (!manifest.journalBucket || isSubjectId(arg)) return [];
  const found: string[] = [];
  for (const search of SUBJECT_RULES.flatMap((rules) => rules.journalSearch?.(arg) ?? [])) {
    found.push(...(await journalSubjectsMatching(aws, manifest.journalBucket, search.prefix, search.matches)));
  }
  return found;
}

/**
 * A notification's own id as the row shows it: none when it is only the status it claimed (a
 * payment's), and without the status a refund's id carries after it (`<id>:<status>`).
 */
function notificationId(entry: { readonly id: string; readonly claim: string }): string | undefined {
  if (!entry.id || entry.id === entry.claim) return undefined;
  return entry.id.endsWith(`:${entry.claim}`) ? entry.id.slice(0, -entry.claim.length - 1) : entry.id;
}

/** ` · trace <id>` for an entry of a traced run (a record anyone with the table can write: only a trace id is printed). */
function traceOf(entry: { readonly traceId?: unknown }): string {
  return isTraceId(entry.traceId) ? ` · trace ${entry.traceId}` : '';
}

/** One trail entry as a row: when, what, and its details. */
function trailRow(entry: TrailEntry): string[] {
  switch (entry.kind) {
    case TrailEntryKind.NOTIFICATION: {
      const id = notificationId(entry);
      return [
        entry.at,
        'notification',
        `${entry.claim} ${entry.matched ? 'matched the bank' : 'NOT CONFIRMED by the bank'} (${id ? `id ${id}, ` : ''}request ${entry.requestId || '?'})${traceOf(entry)}`,
      ];
    }
    case TrailEntryKind.LOOK:
      return [
        entry.at,
        'look',
        `the bank showed ${entry.status} (${entry.trigger}${entry.reason ? `: ${entry.reason}` : ''})${entry.unpublished ? `; not published: ${entry.unpublished}` : ''}${traceOf(entry)}`,
      ];
    case TrailEntryKind.PUBLISHED:
      return [entry.at, 'published', `${entry.detailType} #${entry.sequence} (${entry.idempotencyKey})`];
    case TrailEntryKind.RECOVERED:
      return [
        entry.at,
        'recovered',
        `no notification of ${entry.change} came in the grace period: the bank lost it, the sweep found it`,
      ];
    case TrailEntryKind.QUARANTINED:
      return [entry.at, 'quarantined', `${entry.reason}${entry.requestId ? ` (request ${entry.requestId})` : ''}`];
    case TrailEntryKind.NOT_ATTRIBUTED:
      return [
        entry.at,
        "not this receiver's",
        `${entry.reason}: never published here (${entry.trigger}${entry.requestId ? `, request ${entry.requestId}` : ''})`,
      ];
    default:
      return [(entry as { at?: string }).at ?? '?', String((entry as { kind?: string }).kind), JSON.stringify(entry)];
  }
}

/**
 * The trail in time order: entries are written as the processor handles them, so a notification
 * stored a moment before another may be handled after it. Entries of the same instant keep the
 * order they were written in (a look before what it published).
 */
function inTimeOrder(trail: readonly TrailEntry[]): TrailEntry[] {
  const at = (entry: TrailEntry) => {
    const ms = Date.parse(entry.at);
    return Number.isFinite(ms) ? ms : Number.POSITIVE_INFINITY;
  };
  return trail
    .map((entry, i) => ({ entry, i }))
    .sort((a, b) => at(a.entry) - at(b.entry) || a.i - b.i)
    .map(({ entry }) => entry);
}

/** The verified state in a line: its status, amount and date, the amount once. */
function stateLine(s: NonNullable<SubjectRecord['state']>): string {
  const settled = s.settlement ? `, settled ${s.settlement.date} ${s.settlement.amount.decimal}` : '';
  const amount =
    s.amount && !(s.settlement && s.settlement.amount.cents === s.amount.cents) ? `, ${s.amount.decimal}` : '';
  return `${s.status} (${s.statusClass})${amount}${s.paidAt ? `, paid ${s.paidAt}` : ''}${settled}`;
}

export function formatTrace(t: SubjectTrace): string {
  const lines = [`Subject ${printable(t.subjectId)}`];
  const r = t.record;
  if (!r) {
    lines.push(
      '',
      "No record: the receiver has not verified anything of it (or its record expired with the table's TTL).",
    );
  } else {
    const s = r.state;
    lines.push(
      `  verified state   ${s ? stateLine(s) : 'none yet'}`,
      `  changes          ${r.sequence} published${r.outbox ? ' (one being published now)' : ''}${r.pendingSince !== undefined ? `; pending since ${new Date(r.pendingSince).toISOString()} (the sweep follows it)` : ''}`,
    );
    if (r.unnotified?.length)
      lines.push(
        `  awaiting         a notification of ${r.unnotified.map((u) => u.key).join(', ')} (else counted as recovered)`,
      );
    lines.push(
      '',
      r.trail?.length
        ? formatTable(['at', 'what', 'details'], inTimeOrder(r.trail).map(trailRow))
        : 'Trail: empty (written by releases before the trail).',
    );
  }
  lines.push('');
  if (!t.journalBucket) lines.push('Raw notifications: the journal is off.');
  else if (!t.raw.length)
    lines.push(
      `Raw notifications: none in s3://${t.journalBucket}/${r ? ' (none received: a sweep, a Track Payment or a reverify found it)' : ''}.`,
    );
  else lines.push(`Raw notifications (${t.raw.length}):`, ...t.raw.map((key) => `  s3://${t.journalBucket}/${key}`));
  return lines.join('\n');
}
