import type { Route } from '../../contracts/receiver';

/** Drives a receiver bundle (API Gateway events) or the floor bundle (the message it would store). */
export interface NotifyTask {
  readonly type: 'notify';
  readonly entry: string;
  /** The floor takes `{ messageBody, route }` instead of an API Gateway event. */
  readonly floor: boolean;
  readonly route: Route;
  readonly token: string;
  readonly body: unknown;
  readonly requests: number;
  readonly concurrency: number;
}

/** Drives a processor bundle (or its floor) with SQS batches of stored notifications. */
export interface BatchesTask {
  readonly type: 'batches';
  readonly entry: string;
  /** @default 'handler' */
  readonly exportName?: string;
  readonly batches: readonly (readonly string[])[];
  /** Invocations at once (Lambda's concurrency); each handles its batches one after the other. */
  readonly concurrency: number;
  readonly timeoutMs: number;
}

export type BenchTask = NotifyTask | BatchesTask;

export type BenchTaskResult =
  | { readonly type: 'ready' }
  | {
    readonly type: 'timed';
    readonly latenciesMs: number[];
    readonly elapsedMs: number;
    /** CPU time the process used during the run (user + system). */
    readonly cpuMs: number;
    readonly failedRecords?: number;
  };

export type BenchReply = { readonly ok: true; readonly result: BenchTaskResult } | { readonly ok: false; readonly error: string };
