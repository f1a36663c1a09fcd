/**
 * The seam between the handlers and an API family (this bank's collection and payments APIs; the
 * standard Pix API next): what the processor needs of each kind of subject a family verifies. A
 * family is a folder under lambda/bank/ that exports its rules; families.ts registers them. The
 * processor's core asks the rules of a subject, never a family's internals (the guard test says so).
 */
import type { BankAccount, PaymentType, ZuluTimestamps } from '../../contracts/bank-connection';
import type { EventAccount, EventSubject, NotificationClaim, SubjectKind } from '../../contracts/events';
import type { ProcessorSettings } from '../../contracts/processor';
import type { Route } from '../../contracts/receiver';
import type { LookSubject } from '../../contracts/reconciliation';
import type { Change, ClaimCheck, KeyedState, SubjectState } from './verified-state';

/** The provider's queries a family's rules make (the bank client fits). */
export interface ProviderQueries {
  queryBoleto(codigoBeneficiario: string, nossoNumero: string, deadline: number): Promise<Record<string, unknown>>;
  queryPayment(type: PaymentType, idTransacao: string, deadline: number): Promise<Record<string, unknown>>;
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

/** How one kind of subject is verified: named, asked about, read, compared and published. */
export interface SubjectRules {
  readonly kind: SubjectKind;
  /** Whether a look target is of this kind. */
  owns(target: LookSubject): boolean;
  /** The target a notification item names, when the item is of this kind. */
  targetOf(item: SubjectItem): LookSubject | undefined;
  /** Why the item is not this receiver's to verify (it names another beneficiary), or undefined. */
  notOurs(item: SubjectItem, account: BankAccount): string | undefined;
  /** The provider's id of the notification (a re-delivery has the same). */
  notificationId(item: SubjectItem): string;
  /** Asks the provider under our credentials; throws {@link NotOurs} for an answer about someone else's. */
  query(target: LookSubject, provider: ProviderQueries, context: RulesContext, deadline: number): Promise<Record<string, unknown>>;
  /** The verified state an answer shows (the record's previous state given). */
  verify(previous: SubjectState | undefined, answer: Record<string, unknown>, context: RulesContext): KeyedState;
  /** The changes from `previous` to `now`, oldest first. */
  changes(previous: SubjectState | undefined, now: KeyedState): Change[];
  /** What a notification item claims, and whether the verified state bears it out. */
  claim(item: SubjectItem, state: SubjectState, history: readonly string[], context: RulesContext): { claim: NotificationClaim; check: ClaimCheck };
  /**
   * When its verified state happened, in epoch ms (a settlement's date, a payment's), or undefined
   * when the state has no date: what the records-lifetime rule reads.
   */
  datedAt(state: SubjectState): number | undefined;
  /** Whether the sweep asks about it again until it is final (a payment not yet final). */
  pendingUntilFinal(state: SubjectState | undefined): boolean;
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

/** One API family: the receiver's routes whose bodies it reads, how it reads them, and its kinds of subject. */
export interface ApiFamily {
  readonly name: string;
  readonly routes: readonly Route[];
  /** The subjects of a body stored from one of its routes. */
  parse(route: Route, body: Buffer, settings: ProcessorSettings): ParsedBody;
  readonly subjects: readonly SubjectRules[];
}
