/**
 * The API families the handlers verify through, one registration each: adding a family is a folder
 * under lambda/bank/ and a line here (docs/constructs.md). The processor finds a subject's rules
 * here and nowhere else.
 */
import type { Route } from '../../contracts/receiver';
import type { LookSubject } from '../../contracts/reconciliation';
import { cooperativeFamily } from './cooperative';
import { pixFamily } from './pix';
import type { ApiFamily, SubjectItem, SubjectRules } from './family';

/** Every API family, one line each. */
export const FAMILIES: readonly ApiFamily[] = [cooperativeFamily(), pixFamily()];

/** Every kind of subject of every family. */
export const SUBJECT_RULES: readonly SubjectRules[] = FAMILIES.flatMap((family) => family.subjects);

/** The family that reads the bodies of a receiver's route. */
export function familyOfRoute(route: Route): ApiFamily {
  const family = FAMILIES.find((f) => f.routes.includes(route));
  if (!family) throw new Error(`No API family reads the route ${String(route)}`);
  return family;
}

/** The rules of a look target's kind. */
export function rulesOf(target: LookSubject): SubjectRules {
  const rules = SUBJECT_RULES.find((r) => r.owns(target));
  if (!rules) throw new Error(`No API family verifies subjects of kind ${String((target as { kind?: unknown }).kind)}`);
  return rules;
}

/** The rules of the subject a notification item names, and its target. */
export function rulesOfItem(item: SubjectItem): { rules: SubjectRules; target: LookSubject } {
  for (const rules of SUBJECT_RULES) {
    const target = rules.targetOf(item);
    if (target) return { rules, target };
  }
  throw new Error(`No API family verifies notification items of kind ${String((item as { kind?: unknown }).kind)}`);
}
