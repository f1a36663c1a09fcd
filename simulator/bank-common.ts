/** What both of the bank's books share: the options, the notification a change makes, the drift check. */
import type { BankBehaviour } from './behaviour';
import { controlError } from './errors';
import type { SimulatorAccount } from './model';

/** A notification the bank decided to send after a status change. */
export interface OutgoingNotification {
  /** The bank's id of this event (the same for every delivery of it). */
  readonly id: string;
  readonly kind: 'boleto' | 'payment' | 'pix';
  /** What changed, in words: "boleto 001000001 LIQUIDACAO_PIX", "pix 3f2c… EFETIVADO". */
  readonly subject: string;
  readonly body: unknown;
  /** Where it goes; undefined when nothing is registered, with the reason in `skipped`. */
  readonly url?: string;
  readonly authHeader?: { readonly name: string; readonly value: string };
  /** Present the provider's client certificate (the Pix API's callbacks: mutual TLS, no credential). @default false */
  readonly clientCertificate?: boolean;
  readonly skipped?: string;
}

export interface BankOptions {
  readonly accounts: readonly SimulatorAccount[];
  /** Simulated clock in ms. */
  readonly now: () => number;
  /** Called for every change that produces a notification. */
  readonly notify: (notification: OutgoingNotification) => void;
  /** Send a payment notification when a payment is created (status RECEBIDO). @default true */
  readonly notifyPaymentReceived?: boolean;
  /** Deliver boleto events as one object or as an array of one. @default 'object' */
  readonly boletoNotificationShape?: 'object' | 'array';
  /** Answer GET contratos/ with one object or an array. @default 'object' */
  readonly contractListShape?: 'object' | 'array';
  /** The readings in force where the manual and clients differ (read at every call). */
  readonly behaviour: () => BankBehaviour;
}

/** The fields of a drift change, each checked; throws a control error naming what is wrong. */
export function driftInput<K extends string>(
  input: unknown,
  checks: Record<K, (value: unknown) => boolean>,
  rule: string,
): Partial<Record<K, never>> {
  if (!input || typeof input !== 'object' || Array.isArray(input))
    throw controlError(400, `The body must be a JSON object (${rule}).`);
  const fields = Object.keys(checks);
  const problems = Object.entries(input)
    .filter(([key, value]) => !fields.includes(key) || !checks[key as K](value))
    .map(([key]) => key);
  if (problems.length || Object.keys(input).length === 0) {
    throw controlError(
      400,
      `${problems.length ? `Not accepted: ${problems.join(', ')}` : 'Nothing to change'} (known: ${fields.join(', ')}; ${rule}).`,
    );
  }
  return input;
}

export const isString = (value: unknown): value is string => typeof value === 'string';
