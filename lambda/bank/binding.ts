/**
 * How a handler gets an API family wired to its environment: each family's index.ts exports one
 * {@link FamilyBinding}; families.ts binds them all, and the processor, the sweep and the
 * deploy-time provider call that, never a family by name (the guard test says so). What is one
 * family's (its connection, its credentials, its client, its listings, its registrations and
 * their rates) stays behind its binding.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SweepSettings } from '../../contracts/reconciliation';
import type { RetryInfo } from './base/paced-sender';
import type { ApiFamily, RegistrationKinds, WindowListing } from './family';
import type { BankPacer } from './pacing';

/** What a handler shares with every family it binds. */
export interface HandlerWiring {
  readonly env: NodeJS.ProcessEnv;
  /** The construct that sets the function's environment: an error about a setting names it. */
  readonly setBy: string;
  /** The one client every family's credentials secret is read with. */
  readonly secretsManager: SecretsManagerClient;
  /** How long a family keeps its credentials before reading them again. @default 5 minutes */
  readonly credentialsTtlMs?: number;
  /** Told of every call retried: `message` names the provider's API (`Retrying a Pix API call`). */
  readonly onRetry?: (message: string, info: RetryInfo) => void;
  /** Told of every 429 answer. */
  readonly onThrottled?: () => void;
}

/** The days a listing is read, back from the provider's day a sweep's schedule falls on. */
export interface ListedDays {
  /** The oldest day back kept (its cursors' lookback). */
  readonly lookbackDays: number;
  /**
   * When set, a few of the days from `from` to `lookbackDays` back are read each sweep, in turn
   * (`perSweep` of them, the turn set by the schedule's time over `intervalMinutes`); otherwise
   * every day from 0 to `lookbackDays` back, each sweep.
   */
  readonly rotation?: { readonly from: number; readonly perSweep: number; readonly intervalMinutes: number };
}

/** One listing a family gives the sweep, and which days it reads. */
export interface FamilyListing {
  readonly listing: WindowListing;
  readonly days: ListedDays;
}

/** One family bound to a handler's environment. */
export interface BoundFamily {
  readonly family: ApiFamily;
  /** Whether the function has the family's connection (a receiver without a Pix route has no Pix connection). */
  readonly connected: boolean;
  /**
   * The client the family's rules query ({@link ProviderQueries}), its calls paced by `pacer`
   * (clients of one binding share their tokens and connections); undefined when not connected.
   */
  client(pacer: BankPacer): unknown;
  /** The listings the sweep reads of this family, paced by `pacer`; throws when the settings ask for one the function has no connection for. */
  listings(pacer: BankPacer, settings: SweepSettings): FamilyListing[];
  /** What the stack deployed of this family, read and repaired by the watch with calls paced by `pacer`; undefined when not connected. */
  deployed(pacer: BankPacer): RegistrationKinds | undefined;
  /** The registrations custom resources describe (the deploy-time provider): a client per connection they name, at the family's registration rates. */
  registrations(): RegistrationKinds;
}

/** A family's one entry point for the handlers: given what they share, the family wired to its own client. */
export type FamilyBinding = (wiring: HandlerWiring) => BoundFamily;
