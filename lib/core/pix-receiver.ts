import { Token } from 'aws-cdk-lib';
import { MAX_PIX_KEY_LENGTH, normalizePixKey } from '../../contracts/pix';
import { type PixConnectionProps, validatePixConnection } from './pix-connection';
import type { PropsValidation } from './props-validation';

/** The most keys one receiver verifies Pix for (each also becomes a registration at the provider). */
export const MAX_PIX_KEYS = 20;

/**
 * What a receiver verifies Pix received with (the Central Bank's standard Pix API; docs/pix.md):
 * the provider's Pix API, reached under this receiver's own credentials, and the keys whose Pix
 * are this receiver's.
 */
export interface PixReceiverProps {
  /** How to reach the provider's standard Pix API: every Pix is confirmed there before it is published. */
  readonly connection: PixConnectionProps;
  /**
   * The receiver's Pix keys (DICT keys: an EVP, an email, a phone as `+55...`, a CPF or a CNPJ),
   * 1 to 20. A callback naming any other key is another customer's: dropped, never published.
   * Written in any usual form; compared in the DICT's (an EVP or email in lower case, a phone's `+55`, digits only).
   */
  readonly keys: string[];
}

/** Checks a receiver's Pix props, every problem at once, under `prefix`. */
export function validatePixReceiver(v: PropsValidation, props: PixReceiverProps | undefined, prefix: string): void {
  if (!props) return;
  validatePixConnection(v, props.connection, `${prefix}.connection`);
  const keys = props.keys ?? [];
  v.check(keys.length >= 1 && keys.length <= MAX_PIX_KEYS, `${prefix}.keys`, `must list 1 to ${MAX_PIX_KEYS} Pix keys, got ${keys.length}`);
  const seen = new Map<string, number>();
  keys.forEach((key, i) => {
    if (Token.isUnresolved(key)) {
      v.check(false, `${prefix}.keys[${i}]`, 'must be known at synth (the processor compares callbacks with it): write the key, not a deploy-time value');
      return;
    }
    const normal = normalizePixKey(key);
    v.check(normal !== undefined, `${prefix}.keys[${i}]`, `must be a Pix key (an EVP such as 0f9a3c52-7b1e-4e0a-9d7c-1c2b3a4d5e6f, an email, a phone as +55 and its digits, a CPF's 11 or a CNPJ's 14 digits; at most ${MAX_PIX_KEY_LENGTH} characters), got "${key}"`);
    if (!normal) return;
    const first = seen.get(normal.key);
    v.check(first === undefined, `${prefix}.keys[${i}]`, `is the key of ${prefix}.keys[${first}] written otherwise (${normal.key})`);
    if (first === undefined) seen.set(normal.key, i);
  });
}

/** The keys in the DICT's form, once each (after {@link validatePixReceiver}). */
export function normalizedPixKeys(props: PixReceiverProps): string[] {
  return [...new Set(props.keys.map((key) => normalizePixKey(key)?.key).filter((key): key is string => key !== undefined))];
}
