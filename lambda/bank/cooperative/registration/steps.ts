/**
 * What every registration step shares, at deploy time (the provider) and in the registration
 * watch (the sweep): the bank call it makes, how a URL compares and is described without its
 * query, and the undo of a change that failed after it may have taken effect.
 */
import type { CooperativeClient } from '../client';
import { errorMessage, type Log } from '../../../shared/runtime';

/** What the registration steps need from the bank client. */
export type BankCaller = Pick<CooperativeClient, 'call' | 'settings'>;

/** What one lifecycle step works with. */
export interface StepContext {
  readonly bank: BankCaller;
  /** Epoch milliseconds by which every call of the step must be over. */
  readonly deadline: number;
  /** The value to register from a token secret. */
  readonly tokenValue: (secretArn: string) => Promise<string>;
  readonly log: Log;
  readonly sleep: (ms: number) => Promise<void>;
}

export { describeUrl, sameUrl } from '../../base/urls';

/** Time kept, at the end of the invocation, to undo a change that failed (at most a third of what is left). */
export const UNDO_RESERVE_MS = 15_000;

/**
 * The step with time kept back for {@link failAfterUndo}: CloudFormation never calls Delete for a
 * failed Create, so a change the bank may have made must be undone within the same invocation.
 */
export function keepTimeToUndo(ctx: StepContext): StepContext {
  return { ...ctx, deadline: ctx.deadline - Math.min(UNDO_RESERVE_MS, Math.max(0, (ctx.deadline - Date.now()) / 3)) };
}

/**
 * Fails with `cause` once `undo` has put the bank back. `undo` answers what it did (said in the
 * error), or undefined when the bank shows nothing to undo; when it fails too, the error says both
 * and to check `what` at the bank.
 */
export async function failAfterUndo(
  cause: unknown,
  what: string,
  undo: () => Promise<string | undefined>,
): Promise<never> {
  const reason = errorMessage(cause);
  let done: string | undefined;
  try {
    done = await undo();
  } catch (error) {
    throw new Error(`${reason}; undoing it also failed (${errorMessage(error)}): check ${what} at the bank`, {
      cause: error,
    });
  }
  throw done ? new Error(`${reason}; ${done}`, { cause }) : cause;
}
