/**
 * The API families the handlers verify through: the one file outside lambda/bank/<family>/ that
 * names them (the receiver's intake.ts names their receiving checks). A family adds its binding
 * here, one line in each list (docs/constructs.md, "Adding an API family"). The processor, the
 * sweep, the deploy-time provider, the store and the CLI find a family's rules, clients, listings
 * and registrations here and nowhere else.
 */
import type { BankConnectionSettings } from '../../contracts/bank-connection';
import type { Route } from '../../contracts/receiver';
import type { LookSubject, SweepSettings } from '../../contracts/reconciliation';
import type { FamilyBinding, FamilyListing, HandlerWiring } from './binding';
import type { FamilyAudit } from './audit';
import { cooperativeAudit, cooperativeBinding, cooperativeFamily, readBankConnection } from './cooperative';
import { pixAudit, pixBinding, pixFamily } from './pix';
import {
  type ApiFamily,
  combinedRegistrations,
  type ProviderQueries,
  type RegistrationKinds,
  type SubjectItem,
  type SubjectRules,
} from './family';
import type { BankPacer } from './pacing';

/** Every API family's rules, one line each. */
export const FAMILIES: readonly ApiFamily[] = [cooperativeFamily(), pixFamily()];

/** Every API family's binding, one line each, in the same order. */
const BINDINGS: readonly FamilyBinding[] = [cooperativeBinding, pixBinding];

/** Every API family's part of the audit (cli/audit/invariants.ts), one line each: no handler reads it. */
const AUDITS: readonly FamilyAudit[] = [cooperativeAudit, pixAudit];

/** The audit's part of the family that reads a route's bodies, or undefined for a route no family reads. */
export function auditOfRoute(route: string): { family: ApiFamily; audit: FamilyAudit } | undefined {
  const family = familyReading(route);
  const audit = family && AUDITS.find((a) => a.family === family.name);
  return family && audit && { family, audit };
}

/**
 * The account's connection a construct (`setBy`) put in the environment, checked: the account
 * the receiver verifies for and the query budget every family's calls share. It is the first
 * family's connection, which every receiver has.
 */
export function readAccountConnection(env: NodeJS.ProcessEnv, setBy: string): BankConnectionSettings {
  return readBankConnection(env, setBy);
}

/** Every family bound to one handler, as the handler uses them. */
export interface BoundFamilies {
  /** The clients the rules query, each paced by `pacer` (the families the function has no connection for are left out). */
  queries(pacer: BankPacer): ProviderQueries;
  /** Every listing the sweep reads, paced by `pacer`. */
  listings(pacer: BankPacer, settings: SweepSettings): FamilyListing[];
  /** What the stack deployed, for the watch, with calls paced by `pacer`. */
  deployed(pacer: BankPacer): RegistrationKinds;
  /** Every registration a custom resource may describe, for the deploy-time provider. */
  registrations(): RegistrationKinds;
}

/** Binds every family to a handler's environment. */
export function bindFamilies(wiring: HandlerWiring): BoundFamilies {
  const bound = BINDINGS.map((binding) => binding(wiring));
  return {
    queries: (pacer) => ({
      clients: Object.fromEntries(bound.filter((b) => b.connected).map((b) => [b.family.name, b.client(pacer)])),
    }),
    listings: (pacer, settings) => bound.flatMap((b) => b.listings(pacer, settings)),
    deployed: (pacer) => combinedRegistrations(...bound.flatMap((b) => b.deployed(pacer) ?? [])),
    registrations: () => combinedRegistrations(...bound.map((b) => b.registrations())),
  };
}

/** Every kind of subject of every family. */
export const SUBJECT_RULES: readonly SubjectRules[] = FAMILIES.flatMap((family) => family.subjects);

/** The family that reads the bodies of a route, or undefined for a route no family reads. */
function familyReading(route: string): ApiFamily | undefined {
  return FAMILIES.find((f) => (f.routes as readonly string[]).includes(route));
}

/** The family that reads the bodies of a receiver's route. */
export function familyOfRoute(route: Route): ApiFamily {
  const family = familyReading(route);
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

/**
 * The subject an id of the sweep's index of pending subjects names, where a family follows it its
 * own way (`targetOfId`), with how often it is re-read; undefined for any other (a payment's is the
 * store's to read).
 */
export function followedSubject(subjectId: string): { subject: LookSubject; everyMinutes?: number } | undefined {
  for (const rules of SUBJECT_RULES) {
    const subject = rules.targetOfId?.(subjectId);
    if (subject) return { subject, ...(rules.followUpMinutes ? { everyMinutes: rules.followUpMinutes } : {}) };
  }
  return undefined;
}
