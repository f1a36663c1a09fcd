import type { BankClient } from '../shared/bank-client';
import type { Log } from '../shared/runtime';

/** What the registration steps need from the bank client. */
export type BankCaller = Pick<BankClient, 'call' | 'settings'>;

/** Where the registration steps write what they did (Powertools' Logger fits). */
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

function normalizedUrl(url: string): string {
  try {
    const parsed = new URL(url.trim());
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, '')}${parsed.search}`;
  } catch {
    return url.trim();
  }
}

/** Whether the bank holds `ours`: the same URL, ignoring the case of the host and a final slash. */
export function sameUrl(held: unknown, ours: string): boolean {
  return typeof held === 'string' && normalizedUrl(held) === normalizedUrl(ours);
}

/** A URL someone else registered, for logs and errors: origin and path, never its query (it may hold a secret). */
export function describeUrl(url: unknown): string {
  if (typeof url !== 'string' || !url) return 'nothing';
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}${parsed.search ? '?…' : ''}`;
  } catch {
    return 'a value that is not a URL';
  }
}
