/**
 * What one look is about: the subject (a boleto, a payment) a message names, the notifications of
 * it, the look's context, and the outcomes that end a look other than success.
 */
import { createHash } from 'node:crypto';
import type { NotificationClaim } from '../../contracts/events';
import { ProcessorMetric } from '../../contracts/processor';
import type { StoredNotification } from '../../contracts/receiver';
import type { LookRequest, LookSubject } from '../../contracts/reconciliation';
import type { SubjectItem, SubjectRules } from '../bank/family';
import { rulesOf, rulesOfItem } from '../bank/families';
import type { ClaimCheck } from '../bank/verified-state';
import { subjectIdOf } from '../store/look-request';
import type { ProcessorDeps } from './deps';

/** The bank's query does not (yet) show what notifications claim; the record is retried later. */
export class VerificationPending extends Error {
  constructor(mismatches: readonly string[]) {
    super(`the bank does not confirm it yet: ${mismatches.join('; ')}`);
    this.name = 'VerificationPending';
  }
}

/** Another invocation is publishing the subject's outbox; the record is retried later. */
export class PeerInProgress extends Error {
  constructor(subjectId: string) {
    super(`another invocation is publishing a change of ${subjectId}`);
    this.name = 'PeerInProgress';
  }
}

/** The message can never be processed: quarantine it. */
export class Unprocessable extends Error {}

/** Counts and logs a third party's item dropped (its ids and amounts are theirs: never logged). */
export function dropForeign(kind: string, why: string, deps: ProcessorDeps, requestId?: string): void {
  deps.count(ProcessorMetric.FOREIGN);
  deps.logger.info("Not this receiver's: dropped, never published (the journal keeps the body)", {
    kind,
    why,
    ...(requestId ? { requestId } : {}),
  });
}

/** What one message asks to look at: its items grouped by subject, in order of first mention. */
export interface SubjectGroup {
  readonly id: string;
  /** How its kind (`rules.kind`) is verified: its API family's rules. */
  readonly rules: SubjectRules;
  /** What the bank is asked about. */
  readonly target: LookSubject;
  /** The notifications about it (none for a look request). */
  readonly items: SubjectItem[];
}

export function groupBySubject(items: readonly SubjectItem[], codigoBeneficiario: string): SubjectGroup[] {
  const groups = new Map<string, SubjectGroup>();
  for (const item of items) {
    const { rules, target } = rulesOfItem(item);
    const id = subjectIdOf(target, codigoBeneficiario);
    const group = groups.get(id) ?? { id, rules, target, items: [] };
    group.items.push(item);
    groups.set(group.id, group);
  }
  return [...groups.values()];
}

export function groupOf(target: LookSubject, codigoBeneficiario: string): SubjectGroup {
  const rules = rulesOf(target);
  return { id: subjectIdOf(target, codigoBeneficiario), rules, target, items: [] };
}

export interface Look {
  /** The notification that made the processor look (or the look request). */
  readonly stored?: StoredNotification;
  readonly request?: LookRequest;
  /** Where the notification's raw copy is in the journal (none without a journal, or for a look request). */
  readonly journalKey?: string;
  readonly attempt: number;
  readonly lastVerification: boolean;
  readonly deadline: number;
  readonly deps: ProcessorDeps;
}

/** Each item's fingerprint, made once (it is read by the skip check, the record and the events). */
const fingerprints = new WeakMap<SubjectItem, { id: string; value: string }>();

/** A notification's id and a hash of its body: a re-delivery of the very same notification has the same. */
export function fingerprint(item: SubjectItem): { id: string; value: string } {
  let print = fingerprints.get(item);
  if (!print) {
    const id = rulesOfItem(item).rules.notificationId(item);
    const hash = createHash('sha256').update(JSON.stringify(item.raw)).digest('base64url').slice(0, 22);
    print = { id, value: `${id}#${hash}` };
    fingerprints.set(item, print);
  }
  return print;
}

export interface CheckedItem {
  readonly item: SubjectItem;
  readonly claim: NotificationClaim;
  readonly check: ClaimCheck;
}
