/**
 * The one place the handlers' AWS SDK client settings are made: a few attempts, and connection
 * and request timeouts well inside the function's time, or inside a call's own budget.
 */

/** Settings of a client whose calls have the function's time: 3 attempts, 2 s to connect, 5 s per request. */
export const AWS_CLIENT_CONFIG = { maxAttempts: 3, requestHandler: { connectionTimeout: 2_000, requestTimeout: 5_000 } };

/**
 * Settings that keep one call inside `budgetMs` (the caller enforces the budget itself with an
 * abort signal): a third of it to connect, half of it per request, and `maxAttempts` tries.
 */
export function budgetedClientConfig(budgetMs: number, maxAttempts: number): { maxAttempts: number; requestHandler: { connectionTimeout: number; requestTimeout: number } } {
  return {
    maxAttempts,
    requestHandler: { connectionTimeout: Math.max(100, Math.floor(budgetMs / 3)), requestTimeout: Math.max(200, Math.floor(budgetMs / 2)) },
  };
}
