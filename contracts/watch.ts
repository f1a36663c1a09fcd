/**
 * The contract of the registration watch (the sweep's, when the stack registers with the bank or
 * the Pix provider): what it reads of each registration, its settings and defaults, how it reads
 * the stack's status, the drifts it names, the states it keeps and what it finds. Every side imports
 * this module (contracts/reconciliation.ts re-exports it for the sweep's readers).
 */
import type { DeployedRegistration } from './registration';

/**
 * A registration the watch reads: its name in findings and logs, what the stack deployed (the
 * watch compares the bank with it and repairs only to it), and where its last deploy recorded
 * what it learned (the token version registered, the contract's id, the deploy's request id).
 */
export interface WatchedRegistration {
  /** `payments`, `boleto <cooperativa>/<posto>/<beneficiário>`, or `pix <chave>`. */
  readonly label: string;
  /** The SSM parameter of its {@link AppliedRegistration} record. */
  readonly appliedRecord: string;
  /** The registration as the stack deployed it, defaults left out (contracts/registration.ts `compactDeployed`). */
  readonly deployed: DeployedRegistration;
}

/**
 * The Pix API's webhooks as the stack deployed them: the URL and takeover once, then each key with
 * its applied record, and the account's Pix Automático webhooks (`pix.recurring`) the same way.
 */
export interface PixKeysWatched {
  readonly url: string;
  readonly takeOverExisting?: boolean;
  /** `[chave, appliedRecord]` per key. */
  readonly keys: ReadonlyArray<readonly [string, string]>;
  /** `[rec or cobr, appliedRecord]` per account webhook. @default none */
  readonly accounts?: ReadonlyArray<readonly [string, string]>;
}

/** The registrations the watch compares with the bank's, and whether it repairs them. */
export interface WatchSettings {
  readonly payment?: WatchedRegistration;
  readonly contracts: readonly WatchedRegistration[];
  /**
   * The key of the stack output holding each Pix key's webhook as the stack deployed it
   * ({@link PixKeysWatched}): read through the DescribeStacks the watch makes anyway, since one
   * entry per key would not fit the function's 4 KB of environment. @default none
   */
  readonly pixKeysOutput?: string;
  /** Put back what the stack deployed when the bank's differs (`repairRegistrations`). */
  readonly repair: boolean;
  /** The stack's id (its ARN): a repair is made only while the stack is in a completed state. */
  readonly stackId: string;
}

/** How the watch repairs, and when it stops. */
export const WatchDefaults = {
  /**
   * A registration that drifts again within this long of a repair made under the same deploy's
   * record is contested (another stack or a person keeps changing it back): no further repair
   * until the bank matches again or a deploy applies it anew.
   */
  contestWindowSeconds: 86_400,
} as const;

/** What the watch does while its stack is in a status. */
export enum StackWatchMode {
  /** Not changing: drift is counted (alarmed) and may be repaired. */
  COMPLETED = 'completed',
  /** A deploy, rollback or delete is under way and will end by itself: reported, not counted; compared again at the next sweep. */
  CHANGING = 'changing',
  /** Stuck until someone acts (it can stay so for days): drift is counted and alarmed; the repair waits for a completed status. */
  STUCK = 'stuck',
  /** A create or a delete that failed or rolled back: no registration serves the stack; nothing is counted. */
  NOT_SERVING = 'not-serving',
}

/**
 * Every CloudFormation stack status, what the watch does in it and why. A status not listed (one
 * AWS adds later) is treated as STUCK: counted and alarmed, never repaired.
 */
export const STACK_STATUS_WATCH: Readonly<Record<string, { readonly mode: StackWatchMode; readonly why: string }>> = {
  CREATE_COMPLETE: { mode: StackWatchMode.COMPLETED, why: 'the stack is deployed' },
  UPDATE_COMPLETE: { mode: StackWatchMode.COMPLETED, why: 'the stack is deployed' },
  UPDATE_ROLLBACK_COMPLETE: {
    mode: StackWatchMode.COMPLETED,
    why: "a failed update was rolled back: the registrations are the previous deploy's again",
  },
  IMPORT_COMPLETE: { mode: StackWatchMode.COMPLETED, why: 'the stack is deployed' },
  IMPORT_ROLLBACK_COMPLETE: { mode: StackWatchMode.COMPLETED, why: 'a failed import was rolled back' },
  CREATE_IN_PROGRESS: { mode: StackWatchMode.CHANGING, why: 'the stack is being created' },
  UPDATE_IN_PROGRESS: {
    mode: StackWatchMode.CHANGING,
    why: 'a deploy is under way (its registrations change the bank and the records)',
  },
  UPDATE_COMPLETE_CLEANUP_IN_PROGRESS: { mode: StackWatchMode.CHANGING, why: 'a deploy is removing what it replaced' },
  UPDATE_ROLLBACK_IN_PROGRESS: {
    mode: StackWatchMode.CHANGING,
    why: 'a rollback is putting the previous registrations back',
  },
  UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS: {
    mode: StackWatchMode.CHANGING,
    why: 'a rollback is removing what the failed deploy made',
  },
  IMPORT_IN_PROGRESS: { mode: StackWatchMode.CHANGING, why: 'an import is under way' },
  IMPORT_ROLLBACK_IN_PROGRESS: { mode: StackWatchMode.CHANGING, why: 'an import is being rolled back' },
  REVIEW_IN_PROGRESS: { mode: StackWatchMode.CHANGING, why: 'a change set is waiting to be executed' },
  ROLLBACK_IN_PROGRESS: { mode: StackWatchMode.CHANGING, why: 'a failed create is being rolled back' },
  DELETE_IN_PROGRESS: {
    mode: StackWatchMode.CHANGING,
    why: 'the stack is being destroyed (its registrations are being removed)',
  },
  UPDATE_FAILED: {
    mode: StackWatchMode.STUCK,
    why: 'a deploy with rollback disabled failed and the stack stays so until the next deploy or a rollback; notifications may be lost meanwhile',
  },
  UPDATE_ROLLBACK_FAILED: {
    mode: StackWatchMode.STUCK,
    why: 'a rollback failed and the stack stays so until someone continues it (ContinueUpdateRollback); notifications may be lost meanwhile',
  },
  IMPORT_ROLLBACK_FAILED: {
    mode: StackWatchMode.STUCK,
    why: "an import's rollback failed and the stack stays so until someone fixes it",
  },
  CREATE_FAILED: { mode: StackWatchMode.NOT_SERVING, why: "the stack's create failed: it never served notifications" },
  ROLLBACK_FAILED: {
    mode: StackWatchMode.NOT_SERVING,
    why: "the stack's create failed and its rollback too: it never served notifications",
  },
  ROLLBACK_COMPLETE: {
    mode: StackWatchMode.NOT_SERVING,
    why: "the stack's create was rolled back: it holds no registration",
  },
  DELETE_FAILED: {
    mode: StackWatchMode.NOT_SERVING,
    why: 'the stack is being destroyed (a delete failed): its registrations are being removed',
  },
  DELETE_COMPLETE: { mode: StackWatchMode.NOT_SERVING, why: 'the stack is destroyed' },
};

/** What the watch does in `status` (a status the table does not name: STUCK). */
export function stackWatchMode(status: string): { readonly mode: StackWatchMode; readonly why: string } {
  return (
    STACK_STATUS_WATCH[status] ?? {
      mode: StackWatchMode.STUCK,
      why: `the stack is in a status this version does not know (${status}): counted as stuck, never repaired`,
    }
  );
}

/** How the bank's registration differs from what the last deploy applied. */
export enum RegistrationDrift {
  /** The bank holds none. */
  MISSING = 'missing',
  /** The bank holds another URL. */
  OTHER_URL = 'other-url',
  /** Our URL with another token (every notification would be refused with 401). */
  TOKEN = 'token',
  /** INATIVO where the deploy applied another status (the bank deactivated it, for example after failed deliveries). */
  INACTIVE = 'inactive',
  /** BLOQUEADO where the deploy applied another status. */
  BLOCKED = 'blocked',
  /** ATIVO where the deploy applied INATIVO or BLOQUEADO (a pause undone by someone). */
  ACTIVE = 'active',
  /**
   * The token the last deploy registered is no longer one the receiver accepts (the secret's value
   * changed without a deploy): every notification is refused. Only a deploy fixes it (tokenVersion).
   */
  STALE_TOKEN = 'stale-token',
}

/** Where one registration stands after a watch. */
export enum WatchState {
  /** The bank holds what the last deploy applied. */
  IN_SYNC = 'in-sync',
  /** The bank differs; not repaired (see `notRepaired`). */
  DRIFT = 'drift',
  /** The bank differed and the watch put back what the last deploy applied. */
  REPAIRED = 'repaired',
  /**
   * The deploy's record is missing or unreadable (deleted, edited, or a stack upgraded without a
   * registration change): the bank is still compared with what the stack deployed, never repaired.
   */
  UNKNOWN = 'unknown',
  /**
   * The deploy's record disagrees with what the stack deployed (another URL, token secret, status,
   * take-over or stack: written by someone else): compared with what the stack deployed, never repaired.
   */
  RECORD_MISMATCH = 'record-mismatch',
  /** It drifted again soon after a repair: another stack or a person changes it back; no more repairs. */
  CONTESTED = 'contested',
}

/** What the registration watch found of one registration. */
export interface WatchFinding {
  /** `payments`, `boleto <cooperativa>/<posto>/<beneficiário>`, or `pix <chave>`. */
  readonly registration: string;
  readonly state: WatchState;
  readonly drift: readonly RegistrationDrift[];
  readonly repaired: boolean;
  /** Why a drift was not repaired. */
  readonly notRepaired?: string;
}
