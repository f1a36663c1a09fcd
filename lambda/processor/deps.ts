/** What the processor's core is given: its settings, the bank, the store and the AWS calls, as functions and interfaces. */
import type { BankAccount, ZuluTimestamps } from '../../contracts/bank-connection';
import type { ProcessorSettings } from '../../contracts/processor';
import type { SQSRecord } from 'aws-lambda';
import type { ProviderQueries } from '../bank/family';
import type { SlotSchedule } from '../bank/pacing';
import type { MetricUnit } from '../shared/metrics';
import type { Log } from '../shared/runtime';
import type { NotificationJournal } from '../store/journal';
import type { LookMarkers } from '../store/look-markers';
import type { OutboxEntry, SubjectStore } from '../store/subject-store';

/** The provider queries the processor's subject rules make (CooperativeClient fits). */
export type BankQueries = ProviderQueries;

/** The processor's two queues (each with its dead-letter queue): notifications, and look requests apart from them. */
export enum ProcessorQueue {
  NOTIFICATIONS = 'notifications',
  /** The sweep's look requests, Track Payment events and recovery checks. */
  LOOKS = 'looks',
}

/** One event to publish: its detail as JSON text. */
export type PublishEntry = OutboxEntry;

export interface ProcessorDeps {
  readonly settings: ProcessorSettings;
  /** This receiver's account: the only beneficiary it queries, and the account its events carry. */
  readonly account: BankAccount;
  /** How the bank's timestamps written with a Z are read (a settlement's day). @default ZuluTimestamps.UTC */
  readonly zuluTimestamps?: ZuluTimestamps;
  readonly bank: BankQueries;
  /**
   * The bank as look requests call it: out of the query rate's idle time only, so a look never
   * takes a slot a notification could have had. @default bank
   */
  readonly lookBank?: BankQueries;
  readonly store: SubjectStore;
  /** Which subjects have a look in flight (Track Payment's collapse, the sweep's looks released). */
  readonly markers: LookMarkers;
  /**
   * The looks' share of the query budget: the schedule look requests book a slot on, at
   * `ratePerSecond`. Without it, looks are admitted at once (tests of the core).
   */
  readonly looks?: { readonly schedule: SlotSchedule; readonly ratePerSecond: number };
  /**
   * Where every notification's raw copy is kept (the journal). A message is retried until its
   * copy is stored. @default none: nothing is journaled (tests of the core)
   */
  readonly journal?: NotificationJournal;
  /** Publishes the entries (all of them, or throws). */
  readonly publish: (entries: readonly PublishEntry[]) => Promise<void>;
  /** Puts the message in the dead-letter queue of `queue` with a reason; throws when it could not. */
  readonly quarantine: (record: SQSRecord, reason: string, queue: ProcessorQueue) => Promise<void>;
  /**
   * Sends a message body to one of the queues the processor reads (what an invocation had no time
   * or no bank rate for; a look deferred), visible after `delaySeconds` (0 to 900).
   */
  readonly requeue: (messageBody: string, delaySeconds: number, queue: ProcessorQueue) => Promise<void>;
  readonly logger: Log;
  /** Counts a metric (or records `value` in `unit`); `details` are written in the same line (not dimensions). */
  readonly count: (
    metric: string,
    dimensions?: Record<string, string>,
    details?: Record<string, string>,
    value?: number,
    unit?: MetricUnit,
  ) => void;
  /** @default Date.now */
  readonly now?: () => number;
  /** Records of a batch handled at once. @default ProcessorDefaults.recordConcurrency */
  readonly recordConcurrency?: number;
}

/** The part of Lambda's context the processor uses. */
export interface InvocationContext {
  getRemainingTimeInMillis(): number;
}
