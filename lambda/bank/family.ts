/**
 * The seam between the handlers and an API family (this bank's collection and payments APIs, the
 * standard Pix API): what the processor needs of each kind of subject a family verifies, what the
 * sweep reads of its listings and what the provider and the watch do with its registrations. A
 * family is a folder under lambda/bank/ whose index.ts exports its `ApiFamily` and its binding
 * (binding.ts); families.ts binds them all, and is the one file the handlers reach a family by
 * (the guard test says so). Adding one: docs/constructs.md, "Adding an API family".
 */
import type { BankAccount, ZuluTimestamps } from '../../contracts/bank-connection';
import type { EventAccount, EventSubject, NotificationClaim, SubjectKind } from '../../contracts/events';
import type { ProcessorSettings } from '../../contracts/processor';
import type { Route } from '../../contracts/receiver';
import type { ListedSettlement, LookSubject, RegistrationDrift } from '../../contracts/reconciliation';
import type { RegistrationResourceType, RegistrationSpec } from '../../contracts/registration';
import type { Log } from '../shared/runtime';
import type { Change, ClaimCheck, KeyedState, SubjectState } from './verified-state';

/**
 * The providers' clients a family's rules query, by family name (this bank's collection and
 * payments APIs are `cooperative`, the standard Pix API's is `pix`), each where the receiver has its
 * connection: a family's rules read only their own, and say so when it is missing.
 */
export interface ProviderQueries {
  readonly clients: Readonly<Record<string, unknown>>;
}

/** One item of a notification a family read: what it says about one subject, and the item as received. */
export interface SubjectItem {
  /** The family's name for the item's kind (`boleto-event`, `payment`...). */
  readonly kind: string;
  readonly raw: Record<string, unknown>;
}

/** What a subject's rules read besides the subject: this receiver's account and settings, and the provider. */
export interface RulesContext {
  readonly account: BankAccount;
  readonly settings: ProcessorSettings;
  /** How the provider's timestamps written with a Z are read. @default ZuluTimestamps.UTC */
  readonly zuluTimestamps?: ZuluTimestamps;
  /** @default Date.now */
  readonly now?: () => number;
}

/**
 * What a look knows that may make its query cheaper, never what the query answers: the
 * notification's items, when the receiver stored it, and whether this is its first receive.
 */
export interface QueryHint {
  readonly items: readonly SubjectItem[];
  /** When the receiver stored the notification (its `receivedAt`), in epoch ms. */
  readonly storedAt?: number;
  readonly firstReceive: boolean;
}

/**
 * The provider answered about something that is not this receiver's (another beneficiary's
 * boleto, another customer's Pix): never retried, nothing published.
 */
export class NotOurs extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotOurs';
  }
}

/**
 * The provider says the subject is someone else's, and anyone at the provider can cause that (a
 * Pix another customer's webhook sent to our URL, a key that is not ours): dropped and counted,
 * kept only in the journal, never published, never a dead-letter message (or anyone at the same
 * provider could fire our alarm). Its details are a third party's: never logged.
 */
export class Foreign extends Error {
  constructor(
    message: string,
    /**
     * The provider answered that it holds no such subject (404) where only the provider can have
     * sent its notification: the same answer as its lag right after a change, so it is retried like
     * lag and final on the last verification attempt.
     */
    readonly mayBeLag = false,
  ) {
    super(message);
    this.name = 'Foreign';
  }
}

/**
 * The provider shows the subject as the account's, but tied to none of this receiver's keys (to
 * another of the account's keys, or to no key while this receiver is not the account's receiver
 * for keyless Pix): another receiver's to publish. Never published here, never quarantined: the
 * subject's record keeps the reason (so the sweep does not ask again) and its trail shows it.
 */
export class NotAttributed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotAttributed';
  }
}

/** A rule given an item or target of another kind: a wiring error, never the provider's. */
export function wrongKind(kind: string): never {
  throw new Error(`a ${kind} rule was given a subject of another kind`);
}

/** What an operator's argument may name in one kind of subject (see SubjectRules.guessIds). */
export interface IdGuess {
  readonly ids: readonly string[];
  readonly rank: number;
  readonly only?: boolean;
}

/** Where in the journal's subject index an argument's subjects may be found (see SubjectRules.journalSearch). */
export interface JournalSearch {
  /** The start of the subject ids to list, `<kind>:`. */
  readonly prefix: string;
  readonly matches: (subjectId: string) => boolean;
}

/** How one kind of subject is verified: named, asked about, read, compared and published. */
export interface SubjectRules {
  readonly kind: SubjectKind;
  /** Whether a look target is of this kind. */
  owns(target: LookSubject): boolean;
  /** The subject's id (its record's key and the events' `subject.id`): `<kind>:...`. */
  idOf(target: LookSubject, codigoBeneficiario: string): string;
  /**
   * A target of this kind from what a look request or a Track Payment event wrote (anyone who may
   * send to the look queue can write it): each field checked, or an error naming `what`, the field
   * and the rule it breaks.
   */
  targetFrom(subject: Readonly<Record<string, unknown>>, what: string): LookSubject;
  /**
   * The subject ids of this kind an operator's argument to `trace` may name (a nossoNumero, an
   * idTransacao, an end-to-end id), with how likely they are against the other kinds' (higher
   * first), and whether no other kind may be meant (`only`); undefined when it cannot be one.
   */
  guessIds?(arg: string, codigoBeneficiario: string, paymentKind?: string): IdGuess | undefined;
  /**
   * The subjects of this kind an operator's argument names that no id can be made from alone (a
   * refund's id, without the Pix it returns): the journal's index is listed under
   * `subjects/<prefix>` for the subject ids `matches` accepts. Undefined when it cannot be one.
   */
  journalSearch?(arg: string): JournalSearch | undefined;
  /** The target a notification item names, when the item is of this kind. */
  targetOf(item: SubjectItem): LookSubject | undefined;
  /** Why the item is not this receiver's to verify (it names another beneficiary), or undefined: the message is quarantined. */
  notOurs(item: SubjectItem, account: BankAccount): string | undefined;
  /** Why the item is a third party's that anyone at the provider can send us (see {@link Foreign}), or undefined. */
  foreign?(item: SubjectItem, context: RulesContext): string | undefined;
  /** The provider's id of the notification (a re-delivery has the same). */
  notificationId(item: SubjectItem): string;
  /**
   * Asks the provider under our credentials; throws {@link NotOurs} for an answer about someone
   * else's, {@link Foreign} for a subject the provider holds for someone else. `hint` may choose a
   * cheaper way to ask (a listing at a peak), never the answer.
   */
  query(
    target: LookSubject,
    provider: ProviderQueries,
    context: RulesContext,
    deadline: number,
    hint?: QueryHint,
  ): Promise<Record<string, unknown>>;
  /** The verified state an answer shows (the record's previous state given). */
  verify(previous: SubjectState | undefined, answer: Record<string, unknown>, context: RulesContext): KeyedState;
  /** The changes from `previous` to `now`, oldest first. */
  changes(previous: SubjectState | undefined, now: KeyedState): Change[];
  /** What a notification item claims, and whether the verified state bears it out. */
  claim(
    item: SubjectItem,
    state: SubjectState,
    history: readonly string[],
    context: RulesContext,
  ): { claim: NotificationClaim; check: ClaimCheck };
  /**
   * When its verified state happened, in epoch ms (a settlement's date, a payment's), or undefined
   * when the state has no date: what the records-lifetime rule reads.
   */
  datedAt(state: SubjectState): number | undefined;
  /** Whether the sweep asks about it again until it is final (a payment not yet final). */
  pendingUntilFinal(state: SubjectState | undefined): boolean;
  /**
   * How the sweep follows a subject kept pending until final: re-read once every this many minutes
   * (at the sweep its id picks), never given up for age. Absent: at every sweep, given up past
   * `paymentMaxAge` (a payment).
   */
  readonly followUpMinutes?: number;
  /** The target a subject id names (what the sweep's index of pending subjects holds), or undefined when not of this kind. */
  targetOfId?(subjectId: string): LookSubject | undefined;
  /**
   * Whether every notification item is looked at, even one whose body was handled before: where an
   * item names only a subject, not a change (Pix Automático's callbacks), the same body can tell of
   * two changes, and suppressing it as a duplicate would lose the second until the sweep.
   * @default false
   */
  readonly alwaysLook?: boolean;
  /** The account its events carry. */
  eventAccount(account: BankAccount): EventAccount;
  /** The subject its events carry. */
  eventSubject(id: string, target: LookSubject, sequence: number, account: BankAccount): EventSubject;
}

/** What a family read of a stored body: the items about its subjects, and why any part could not be read. */
export interface ParsedBody {
  readonly items: SubjectItem[];
  readonly problems: string[];
}

/** What a listing entry is compared with: a subject's record (what it published, and its last verified state). */
export interface HeldRecord {
  readonly history: readonly string[];
  readonly state?: SubjectState;
  /** Why the provider ties the subject to another receiver, when it does (nothing to publish here). */
  readonly notAttributed?: string;
}

/** One entry of a provider's listing, as the sweep reads it. */
export interface ListedEntry {
  /** The entry's identity on its page (the sweep's cursor names it; a repeated page shows the same). */
  readonly key: string;
  /** The subject to look at; undefined when the entry is not this receiver's to verify (`skipped` says why). */
  readonly target?: LookSubject;
  readonly skipped?: string;
  /**
   * Whether a skipped entry is skipped as a matter of course (a Pix to another key of the
   * account): logged at info, where any other skip is a warning.
   */
  readonly routine?: boolean;
  /** The settlement the listing shows, carried to the processor (it compares the day with its query's). */
  readonly listed?: ListedSettlement;
  /** Why the sweep asks for a look, for the look request. */
  readonly reason: string;
  /**
   * Whether the record holds what the entry shows: `true`, `false`, or `'other-day'` (the same
   * change dated a day apart: held, and counted so the operator checks the connection's time reading).
   */
  holds(record: HeldRecord): boolean | 'other-day';
}

/** One page of a listing. */
export interface ListedPage {
  readonly entries: readonly ListedEntry[];
  /** Whether the provider says a next page exists; undefined when it does not say (then a full page may have more). */
  readonly hasNext?: boolean;
  /**
   * The items the provider's page held, when its entries are not one an item (a Pix with none of
   * its refunds final gives no entry in a listing of refunds): an empty page ends the day, a full one may not.
   * @default entries.length
   */
  readonly listedItems?: number;
}

/**
 * A provider's listing of what changed on a day, read by the sweep page by page from its cursor
 * (the cursor, the page bound, repeated pages and the call cap are the sweep's, for every family).
 */
export interface WindowListing {
  /** The listing's name: its cursors' and the sweep report's (`boleto`, `pix`, `pix-refund`). */
  readonly name: string;
  /** The number of the first page (1 for this bank's listing, 0 for the standard Pix API's). */
  readonly firstPage: number;
  /** Entries of a full page: a page this full without `hasNext` may have more. */
  readonly pageSize: number;
  /** The provider's day (`YYYY-MM-DD`) `daysBack` days before the one `at` falls on. */
  dayOf(at: number, daysBack: number): string;
  /** One page of the listing of a day (`YYYY-MM-DD`). */
  page(day: string, page: number, deadline: number): Promise<ListedPage>;
}

/** What a registration's steps share, whoever runs them (the deploy-time provider, the registration watch). */
export interface RegistrationSteps {
  /** Epoch milliseconds by which every call of the step must be over. */
  readonly deadline: number;
  /** The value to register from a token secret (the version a deploy pinned, or the one the record names). */
  readonly tokenValue: (secretArn: string) => Promise<string>;
  readonly log: Log;
  readonly sleep: (ms: number) => Promise<void>;
}

/** The token values a registration may hold without drift (memory only; empty: not compared), and whether the recorded one went stale. */
export interface ExpectedTokens {
  readonly accepted: readonly string[];
  readonly stale: boolean;
}

/** What the provider holds of a registration, against what it should hold. */
export interface RegistrationComparison {
  readonly drift: RegistrationDrift[];
  /** What the provider holds, for the log (a URL without its query, never a token). */
  readonly held: string;
}

/** What applying a registration gave: its physical id and the custom resource's attributes (none secret). */
export interface RegistrationApplied {
  readonly physicalResourceId: string;
  readonly data: Record<string, string>;
}

/**
 * One registration at the provider, bound to its client: a custom resource's (the deploy-time
 * provider), or what the stack deployed (the registration watch). The lifecycle around it (the
 * applied record, the pinned token, CloudFormation's physical ids and failures) is the handlers'.
 */
export interface Registration {
  readonly resourceType: RegistrationResourceType;
  readonly spec: RegistrationSpec;
  /** What the provider keys it by: the applied record's subject. */
  readonly subject: string;
  /** Its physical id when known before it is applied; undefined when the provider's answer gives it. */
  readonly plannedPhysicalId?: string;
  /** What a log line says of it besides the URL (an account, never a token). */
  readonly logged: Record<string, string>;
  /** Throws, saying why, when a deploy would refuse to register this token value. */
  checkToken(value: string, secretArn: string): void;
  /** Creates or updates it; `current` is the resource's physical id on an Update, `previousUrl` the URL it had. */
  apply(
    steps: RegistrationSteps,
    change: { readonly current?: string; readonly previousUrl?: string },
  ): Promise<RegistrationApplied>;
  /** Removes what `physicalResourceId` names, when this family made it: says what it did, or undefined when it is not one to remove. */
  remove(steps: RegistrationSteps, physicalResourceId: string): Promise<string | undefined>;
  /** Reads what the provider holds and compares it with the spec and the expected tokens. */
  compare(steps: RegistrationSteps, tokens: ExpectedTokens): Promise<RegistrationComparison>;
  /** Puts the spec back through the steps a deploy uses (the watch's repair). */
  repair(steps: RegistrationSteps): Promise<void>;
}

/** A family's registrations, bound to the provider's clients by the handler's wiring. */
export interface RegistrationKinds {
  /** The resource types served. */
  readonly resourceTypes: readonly RegistrationResourceType[];
  /** Whether a spec (what the stack deployed) is one of these. */
  ownsSpec(spec: RegistrationSpec): boolean;
  /** The registration a custom resource's properties describe, every field checked (errors name the construct that writes them). */
  fromProperties(resourceType: string, properties: Record<string, unknown>): Registration;
  /** What the stack deployed (the watch's settings), bound to the watch's connection. */
  fromDeployed(spec: RegistrationSpec): Registration;
}

/** Every family's registrations as one: a custom resource goes to the family serving its type, a deployed spec to the family owning it. */
export function combinedRegistrations(...families: readonly RegistrationKinds[]): RegistrationKinds {
  const byType = (resourceType: string) =>
    families.find((f) => (f.resourceTypes as readonly string[]).includes(resourceType));
  return {
    resourceTypes: families.flatMap((f) => f.resourceTypes),
    ownsSpec: (spec) => families.some((f) => f.ownsSpec(spec)),
    fromProperties(resourceType, properties) {
      const family = byType(resourceType);
      if (!family)
        throw new Error(
          `Unknown resource type ${resourceType}: this handler serves ${families.flatMap((f) => f.resourceTypes).join(', ')}`,
        );
      return family.fromProperties(resourceType, properties);
    },
    fromDeployed(spec) {
      const family = families.find((f) => f.ownsSpec(spec));
      if (!family) throw new Error('No API family owns this registration');
      return family.fromDeployed(spec);
    },
  };
}

/** One API family: the receiver's routes whose bodies it reads, how it reads them, and its kinds of subject. */
export interface ApiFamily {
  readonly name: string;
  readonly routes: readonly Route[];
  /**
   * The subjects of a body stored from one of its routes. Each family reads its own part of the
   * settings, and its defaults where a reader has none (the CLI has what the manifest says).
   */
  parse(route: Route, body: Buffer, settings: Partial<ProcessorSettings>): ParsedBody;
  readonly subjects: readonly SubjectRules[];
  /**
   * Subjects of one notification verified at the notification's share of the rate; the rest is
   * sent again, verified at the look queue's share. Set by a family whose notifications anyone
   * at the provider can send, or group without bound (a Pix callback). @default no bound
   */
  readonly subjectsPerNotification?: number;
}
