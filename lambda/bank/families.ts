/**
 * The API families the handlers verify through, one registration each: adding a family is a folder
 * under lambda/bank/ and a line here (docs/constructs.md). The processor finds a subject's rules
 * here and nowhere else.
 */
import type { LookSubject } from '../../contracts/reconciliation';
import { COOPERATIVE_SUBJECTS } from './cooperative';
import type { SubjectRules } from './family';
import type { NotificationItem } from './notification';

/** Every kind of subject of every family. */
export const SUBJECT_RULES: readonly SubjectRules[] = [...COOPERATIVE_SUBJECTS];

/** The rules of a look target's kind. */
export function rulesOf(target: LookSubject): SubjectRules {
  const rules = SUBJECT_RULES.find((r) => r.owns(target));
  if (!rules) throw new Error(`No API family verifies subjects of kind ${String((target as { kind?: unknown }).kind)}`);
  return rules;
}

/** The rules of the subject a notification item names, and its target. */
export function rulesOfItem(item: NotificationItem): { rules: SubjectRules; target: LookSubject } {
  for (const rules of SUBJECT_RULES) {
    const target = rules.targetOf(item);
    if (target) return { rules, target };
  }
  throw new Error(`No API family verifies notification items of kind ${String((item as { kind?: unknown }).kind)}`);
}
