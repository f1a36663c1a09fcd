/** The faults the property harness injects, and who posts a notification: shared by the scenario, the world and the invariants. */

/** What can go wrong at an AWS call (DynamoDB, SQS, S3, EventBridge, Secrets Manager) or a bank call. */
export enum AwsFault {
  /** Throttled past the SDK's own retries. */
  THROTTLE = 'throttle',
  /** The invocation ends (a Lambda timeout) before the call reaches the service. */
  ABANDON_BEFORE = 'abandon-before',
  /** The invocation ends after the service carried the call out, before its answer is read. */
  ABANDON_AFTER = 'abandon-after',
  /** DynamoDB's TTL deletes the items past their expiration just before a call: between a look at a record and its write. */
  TTL_EXPIRED = 'ttl-expired',
}

/** What can happen to one notification the bank sends. */
export enum DeliveryFault {
  LOSE = 'lose',
  DUPLICATE = 'duplicate',
  /** Delivered 45 s late (after later ones: reordered). */
  DELAY = 'delay',
}

/** What can happen to one message an event source mapping receives. */
export enum ReceiveFault {
  /** SQS hands it to another receiver as well (at-least-once). */
  DUPLICATE = 'duplicate-receive',
}

/** A fault at the index of what it hits. */
export interface Planned<T> {
  readonly at: number;
  readonly fault: T;
}

export interface FaultPlan {
  readonly aws: ReadonlyArray<Planned<AwsFault>>;
  readonly bank: ReadonlyArray<Planned<AwsFault>>;
  readonly deliveries: ReadonlyArray<Planned<DeliveryFault>>;
  readonly receives: ReadonlyArray<Planned<ReceiveFault>>;
  /** PutEvents entries answered as failed. */
  readonly putEntries: ReadonlyArray<Planned<true>>;
}

/** Who posted a notification. */
export enum Origin {
  /** The bank, of a change it made. */
  BANK = 'bank',
  /** Someone without the token. */
  FORGED = 'forged',
  /** With the token, of a subject that is not this account's (another customer's, or none the bank has): never verifiable. */
  FOREIGN = 'foreign',
}

/**
 * Bugs the harness can plant in the handlers' dependencies, to show the invariants catch them:
 * each is a change a careless edit could make.
 */
export enum Mutant {
  /** The subject store's first write of a record loses its condition (attribute_not_exists). */
  UNCONDITIONAL_WRITE = 'unconditional-write',
  /** The events are published before the record that holds them is written. */
  PUBLISH_BEFORE_RECORD = 'publish-before-record',
  /** The bank's 404 is read as "not yet" (retryable) every time, never as final. */
  NOT_FOUND_AS_LAG = 'not-found-as-lag',
  /** The processor holds every key of the account as the receiver's (another receiver's Pix are then taken for ours). */
  ACCOUNT_KEYS = 'account-keys',
}
