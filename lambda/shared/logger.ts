/** The handlers' logger (Powertools'), apart from runtime.ts so a handler may load it only when it first logs (runtime.ts lazyLog). */
import { Logger } from '@aws-lambda-powertools/logger';
import { secrets } from './redaction';

/**
 * The handlers' Powertools Logger: every string value of a line (message, attributes, an error's
 * message and stack) passes through the process's {@link secrets} before it is written.
 */
export function createLogger(serviceName: string): Logger {
  return new Logger({
    serviceName,
    jsonReplacerFn: (_key: string, value: unknown) => (typeof value === 'string' ? secrets.redact(value) : value),
  });
}
