/**
 * What every handler runs with: its logger (and the one logger interface the pure cores take),
 * how an error is summarized for a log line or a message, and the AWS SDK client settings.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { secrets } from './redaction';

/** The part of a structured logger the handlers' cores use (Powertools' Logger fits; tests record). */
export interface Log {
  info(message: string, ...extra: Record<string, unknown>[]): void;
  warn(message: string, ...extra: Record<string, unknown>[]): void;
  error(message: string, ...extra: Record<string, unknown>[]): void;
}

/**
 * The handlers' Powertools Logger: every string value of a line (message, attributes, an error's
 * message and stack) passes through the process's {@link secrets} before it is written.
 */
export function createLogger(serviceName: string): Logger {
  return new Logger({ serviceName, jsonReplacerFn: (_key: string, value: unknown) => (typeof value === 'string' ? secrets.redact(value) : value) });
}

/** The message of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Name and message of an error, never its request or response (which could carry secrets). */
export function errorSummary(error: unknown): { name: string; message: string } {
  return { name: error instanceof Error ? error.name : 'Error', message: errorMessage(error) };
}

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

/** The fields a construct always writes into a handler's settings, by kind. */
export interface SettingsFields<T> {
  readonly strings?: readonly (keyof T & string)[];
  /** Numbers of 0 or more. */
  readonly numbers?: readonly (keyof T & string)[];
  readonly objects?: readonly (keyof T & string)[];
}

/**
 * Reads the JSON settings a construct wrote for a handler (`where`: an environment variable, a
 * custom resource property) and checks that every field is there: the construct fills every
 * default, so the handler applies none, and a missing field is a deployment to redo.
 */
export function readConstructSettings<T>(raw: string | undefined, where: string, fields: SettingsFields<T>): T {
  const fix = '(the construct sets it; redeploy rather than editing it)';
  if (!raw) throw new Error(`${where} is not set ${fix}`);
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    throw new Error(`${where} is not JSON ${fix}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${where} is not a JSON object ${fix}`);
  const missing = [
    ...(fields.strings ?? []).filter((key) => typeof parsed[key] !== 'string' || !parsed[key]),
    ...(fields.numbers ?? []).filter((key) => !(typeof parsed[key] === 'number' && parsed[key] >= 0)),
    ...(fields.objects ?? []).filter((key) => !parsed[key] || typeof parsed[key] !== 'object'),
  ];
  if (missing.length) throw new Error(`${where} lacks ${missing.join(', ')} ${fix}`);
  return parsed as T;
}
