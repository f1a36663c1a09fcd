/**
 * What every handler runs with: the one logger interface the pure cores take (the logger itself
 * is logger.ts's, apart, so a handler can load it only when it first logs), how an error is
 * summarized for a log line or a message, and the AWS SDK client settings (the standard ones,
 * and budgeted ones for calls that must end in time).
 */

/** The part of a structured logger the handlers' cores use (Powertools' Logger fits; tests record). */
export interface Log {
  info(message: string, ...extra: Record<string, unknown>[]): void;
  warn(message: string, ...extra: Record<string, unknown>[]): void;
  error(message: string, ...extra: Record<string, unknown>[]): void;
}

/**
 * A {@link Log} made by `make` when it first writes a line: a handler whose usual path writes none
 * (the receiver's: its metrics are lines of their own) loads no logger on a cold start that logs nothing.
 */
export function lazyLog(make: () => Log): Log {
  let log: Log | undefined;
  const made = () => (log ??= make());
  return {
    info: (message, ...extra) => made().info(message, ...extra),
    warn: (message, ...extra) => made().warn(message, ...extra),
    error: (message, ...extra) => made().error(message, ...extra),
  };
}

/** The message of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Whether an error is one of the AWS SDK's exceptions `names`, by name: an SDK exception's name
 * is its class's, and a name still matches across two copies of a client (where `instanceof` fails).
 */
export function isErrorNamed(error: unknown, ...names: string[]): boolean {
  const name = (error as { name?: unknown } | null | undefined)?.name;
  return typeof name === 'string' && names.includes(name);
}

/** Name and message of an error, never its request or response (which could carry secrets). */
export function errorSummary(error: unknown): { name: string; message: string } {
  return { name: error instanceof Error ? error.name : 'Error', message: errorMessage(error) };
}

/** Settings of a client whose calls have the function's time: 3 attempts, 2 s to connect, 5 s per request. */
export const AWS_CLIENT_CONFIG = {
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 2_000, requestTimeout: 5_000 },
};

/**
 * Settings that keep one call inside `budgetMs` (the caller enforces the budget itself with an
 * abort signal): a third of it to connect, half of it per request, and `maxAttempts` tries.
 */
export function budgetedClientConfig(
  budgetMs: number,
  maxAttempts: number,
): { maxAttempts: number; requestHandler: { connectionTimeout: number; requestTimeout: number } } {
  return {
    maxAttempts,
    requestHandler: {
      connectionTimeout: Math.max(100, Math.floor(budgetMs / 3)),
      requestTimeout: Math.max(200, Math.floor(budgetMs / 2)),
    },
  };
}

/**
 * SQS client settings that keep one SendMessage inside the enqueue budget: short connection and
 * request timeouts, and a few fast retries. The budget itself is enforced with an abort signal.
 */
export function receiverSqsClientConfig(enqueueBudgetMs: number): ReturnType<typeof budgetedClientConfig> {
  return budgetedClientConfig(enqueueBudgetMs, 3);
}
