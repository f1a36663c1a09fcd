/**
 * What the operator CLI (`cdk-bank-webhooks status | trace | dlq`) reads of a deployed receiver:
 * the manifest the construct writes as a stack output, naming every resource an operator acts
 * on, and the CLI's exit statuses. Shared by the construct that writes it and the CLI that reads it.
 */

import { createHash } from 'node:crypto';
import type { SubjectKind } from './events';
import type { BoletoMovementMapping, PaymentStatusMapping } from './processor';

/** The `kind` of a receiver's manifest: the CLI reads only outputs that carry it. */
export const OPERATOR_MANIFEST_KIND = 'cdk-bank-webhooks/receiver@1';

/** The description every manifest output carries (the CLI also accepts any output whose value is a manifest). */
export const OPERATOR_MANIFEST_DESCRIPTION =
  'cdk-bank-webhooks operator manifest: the resources `cdk-bank-webhooks status|trace|dlq` act on';

/** A queue the CLI reads or sends to. */
export interface ManifestQueue {
  readonly url: string;
  readonly arn: string;
}

/**
 * One receiver's resources, as its stack output holds them (JSON). Names, never secrets: the
 * token secrets are not in it.
 */
export interface OperatorManifest {
  readonly kind: typeof OPERATOR_MANIFEST_KIND;
  /** The receiver's `receiverName` (its metrics' `receiver` dimension). */
  readonly receiverName: string;
  /** PRODUCTION or NON_PRODUCTION. */
  readonly stage: string;
  /** The beneficiary code of the account (a boleto's subject id is `boleto:<it>:<nossoNumero>`). */
  readonly codigoBeneficiario: string;
  readonly queues: {
    readonly notifications: ManifestQueue;
    readonly notificationsDeadLetter: ManifestQueue;
    readonly looks: ManifestQueue;
    readonly looksDeadLetter: ManifestQueue;
  };
  /** The processor's table: each subject's record and trail, the sweep's cursors, the watch's states. */
  readonly table: string;
  readonly bus: {
    readonly name: string;
    readonly arn: string;
    /** The archive of a bus the receiver created (none on a bus it was given). */
    readonly archive?: string;
  };
  /** The raw journal's bucket (none when the journal is off). */
  readonly journalBucket?: string;
  readonly functions: {
    readonly receiver: string;
    readonly processor: string;
    /** The reconciliation sweep (none in NON_PRODUCTION or when off). */
    readonly sweep?: string;
  };
  /**
   * The log groups `logs` reads: each function's (the receiver, the processor, the sweep when there
   * is one) and the REST API's access log. Absent in manifests of stacks deployed by releases before it.
   */
  readonly logGroups?: Readonly<Partial<Record<LogSource, string>>>;
  /** The names of the receiver's alarms. */
  readonly alarms: readonly string[];
  /**
   * How long a subject's record outlives its last write (the processor's idempotencyTtl), in
   * seconds: `reverify` refuses a window older than it. Absent in manifests of stacks deployed by
   * releases before it, whose processor would publish again what such a window finds.
   */
  readonly recordsLifetimeSeconds?: number;
  /**
   * The kinds of subject whose records live longer than `recordsLifetimeSeconds` (a receiver with
   * Pix: its Pix and refunds, `pix.recordLifetime`), in seconds: `reverify` reaches that far back
   * for them.
   */
  readonly recordsLifetimeSecondsByKind?: Readonly<Partial<Record<SubjectKind, number>>>;
  /**
   * The audit log (`auditLog.enabled`): the group where a rule of the bus keeps every event of the
   * receiver's source, and the dead-letter queue of what it could not write there; `audit` reads
   * both. Absent when the audit log is off.
   */
  readonly auditLog?: { readonly group: string; readonly deadLetterQueue: ManifestQueue };
  /** The receiver's Pix keys, normalized (a receiver with `pix`): `audit` tells a callback of another key's Pix, dropped and never published, by them. */
  readonly pixKeys?: readonly string[];
  /**
   * The processor's mappings of the bank's words where the receiver sets its own
   * (`boletoMovements`, `paymentStatuses`, with the defaults filled in): `audit` reads a
   * notification's claim as the processor does. Absent where they are the defaults.
   */
  readonly mappings?: {
    readonly boletoMovements?: BoletoMovementMapping;
    readonly paymentStatuses?: PaymentStatusMapping;
  };
  /** The registrations the watch compares with the bank: each one's label and its applied record (the watch's state is kept under it). */
  readonly registrations: readonly { readonly label: string; readonly record: string }[];
}

/** The logs `cdk-bank-webhooks logs` reads, by the name its command line takes. */
export enum LogSource {
  /** The receiver function: each request stored or refused. */
  RECEIVER = 'receiver',
  /** The processor function: each notification verified, published, quarantined; the bank's answers. */
  PROCESSOR = 'processor',
  /** The reconciliation sweep and registration watch. */
  SWEEP = 'sweep',
  /** The REST API's access log: each request's source IP, route and status. */
  ACCESS = 'access',
}

/** The CLI's exit statuses (docs/operations.md, "The operator CLI"). */
export enum CliExit {
  /** Done; for `status`, nothing is in alarm and no dead-letter queue holds a message. */
  OK = 0,
  /** A check failed or something needs attention: `status` with an alarm in ALARM or a message in a dead-letter queue; `trace` of a subject the receiver never saw. */
  ATTENTION = 1,
  /** The command line is wrong. */
  USAGE = 2,
  /** AWS could not be reached as asked: no credentials or region, access denied, no connection to its endpoint. */
  AWS_ACCESS = 3,
  /** The stack, or the receiver in it, was not found. */
  NOT_FOUND = 4,
  /** An operation failed part way (a redrive that could not send or delete every message): what was done is printed. */
  FAILED = 5,
}

/**
 * The start of the name of every dead-letter queue alarm `onVerifiedEvent` makes for a receiver,
 * in its stack or a consumer's: `status` finds the consumers' alarms by it (DescribeAlarms'
 * `AlarmNamePrefix`) without the receiver's stack depending on theirs. The receiver's name is
 * hashed: it may be 255 characters, an alarm's whole name no more.
 */
export function consumerAlarmPrefix(receiverName: string): string {
  return `cdk-bank-webhooks-consumer-${createHash('sha256').update(receiverName, 'utf8').digest('hex').slice(0, 12)}-`;
}

/** What each exit status means, as the CLI's help and docs/operations.md say it (a test holds the docs to it). */
export const CLI_EXIT_MEANING: Readonly<Record<CliExit, string>> = {
  [CliExit.OK]: 'done',
  [CliExit.ATTENTION]: 'something needs attention (each command says what, in its --help)',
  [CliExit.USAGE]:
    'the command line is wrong (an unknown command or option, a missing value, an impossible date, a window too wide or backwards)',
  [CliExit.AWS_ACCESS]:
    'AWS could not be reached as asked: no credentials or region, access denied, or no connection to its endpoint',
  [CliExit.NOT_FOUND]: 'something the command acts on was not found (each command says what, in its --help)',
  [CliExit.FAILED]: 'an operation failed part way (what was done is printed)',
};

/** The audit log's defaults (`auditLog` of the receiver). */
export const AuditLogDefaults = {
  /** How long the audit log keeps an event: a year (CloudWatch Logs' ONE_YEAR). */
  retentionDays: 365,
} as const;

/** Bounds of the operator's commands. */
export const OperatorDefaults = {
  /** The widest window `reverify` takes (each subject notified in it costs one look of the looks' share of the query budget). */
  reverifyMaxWindowDays: 7,
  /** The most raw notifications `reverify` reads from the journal in one run. */
  reverifyMaxNotifications: 20_000,
  /** The widest window `replay` takes: the bus archive's default retention. */
  replayMaxWindowDays: 30,
  /** How long `replay --wait` waits for the replay to end. */
  replayWaitSeconds: 600,
  /** The most messages a `dlq` command reads of a queue. */
  dlqMaxMessages: 1_000,
  /** The widest window `audit` takes. */
  auditMaxWindowDays: 7,
  /**
   * How long after a notification `audit` waits for what accounts for it before it calls it lost:
   * the processor's verification window with room (a notification younger than this that nothing
   * accounts for yet is still pending), and how far past `--to` it reads the audit log.
   */
  auditSettleMinutes: 60,
} as const;
