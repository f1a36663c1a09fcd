/**
 * The standard Pix API's field rules and refund statuses (the Central Bank's API Pix, release
 * 2.9.0; cdk-bank-webhooks/docs/pix.md), the one definition the simulator's provider and the library's client
 * both hold answers to.
 */

import { createHash } from 'node:crypto';

/** A charge's txid: 26 to 35 letters and digits (a Pix's own txid may be 1 to 35: a static code's is 1 to 25). */
export const CHARGE_TXID = /^[a-zA-Z0-9]{26,35}$/;
/** A Pix's txid: 1 to 35 letters and digits. */
export const PIX_TXID = /^[a-zA-Z0-9]{1,35}$/;
/**
 * An end-to-end id as a path takes it: letters and digits. The standard's are 32 characters, but
 * one provider documents a 26-character example, so length alone refuses nothing short of 64.
 */
export const END_TO_END_ID = /^[a-zA-Z0-9]{1,64}$/;
/** A refund's id (`id` of a devolução): letters and digits, 1 to 35. */
export const REFUND_ID = /^[a-zA-Z0-9]{1,35}$/;
/** An amount: `\d{1,10}\.\d{2}`. */
export const PIX_AMOUNT = /^\d{1,10}\.\d{2}$/;
/** The longest DICT key (an email). */
export const MAX_PIX_KEY_LENGTH = 77;

/** A refund's status: in process, then returned or not done (its final status, which is announced). */
export enum RefundStatus {
  IN_PROCESS = 'EM_PROCESSAMENTO',
  RETURNED = 'DEVOLVIDO',
  NOT_DONE = 'NAO_REALIZADO',
}

/**
 * A refund's nature (`natureza`, the standard's `DevolucaoNatureza`): who made it and why. A refund
 * whose answer names none is `ORIGINAL` (the standard says so). The receiver asks for `ORIGINAL`
 * and `RETIRADA`; the provider makes the `MED_*` ones without being asked, under the Central
 * Bank's special return mechanism (MED).
 */
export enum RefundNature {
  /** Asked for by the receiver: a common Pix, or the purchase part of a Pix Troco (pacs.004 `MD06`). */
  ORIGINAL = 'ORIGINAL',
  /** Asked for by the receiver: a Pix Saque, or the change part of a Pix Troco (`SL02`). */
  RETIRADA = 'RETIRADA',
  /** Made by the provider under MED for an operational failure (`BE08`). */
  MED_OPERACIONAL = 'MED_OPERACIONAL',
  /** Made by the provider under MED on a well-founded suspicion of fraud (`FR01`). */
  MED_FRAUDE = 'MED_FRAUDE',
  /** Made under MED for Pix Automático: the payer's provider refunded the payer from its own funds (`REFU`). */
  MED_PIX_AUTOMATICO = 'MED_PIX_AUTOMATICO',
}

/** Whether a refund was made by the provider under MED, without the receiver asking. */
export const isMedRefund = (natureza: string | undefined): boolean =>
  natureza !== undefined && natureza.startsWith('MED_');

/** Whether a refund's status is final (returned or not done): what the callback announces, and what is published. */
export const isFinalRefund = (status: string): boolean =>
  status === String(RefundStatus.RETURNED) || status === String(RefundStatus.NOT_DONE);

/** A DICT key as the provider writes it: an EVP (a UUID), an email, a phone (`+55...`), a CPF or a CNPJ (alphanumeric since 2026). */
export enum PixKeyType {
  EVP = 'evp',
  EMAIL = 'email',
  PHONE = 'phone',
  CPF = 'cpf',
  CNPJ = 'cnpj',
}

const EVP = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * A Pix key in the one form the DICT keeps, so a key written otherwise compares equal: an EVP in
 * lower case, an email in lower case, a phone as `+55` and its digits, a CPF's 11 digits or a
 * CNPJ's 14 letters and digits (upper case) without punctuation. Undefined for what is none of these (or longer than 77 characters).
 */
export function normalizePixKey(key: string): { key: string; type: PixKeyType } | undefined {
  const text = key.trim();
  if (!text || text.length > MAX_PIX_KEY_LENGTH) return undefined;
  if (EVP.test(text)) return { key: text.toLowerCase(), type: PixKeyType.EVP };
  if (text.includes('@')) return EMAIL.test(text) ? { key: text.toLowerCase(), type: PixKeyType.EMAIL } : undefined;
  if (text.startsWith('+')) {
    const digits = text.slice(1).replace(/[\s().-]/g, '');
    return /^55\d{10,11}$/.test(digits) ? { key: `+${digits}`, type: PixKeyType.PHONE } : undefined;
  }
  const digits = text.replace(/[\s./()-]/g, '');
  // A CNPJ is 12 letters or digits and 2 check digits since July 2026 (the standard's 2.9.0: `[0-9A-Z]{14}`, letters in upper case).
  if (/^[0-9A-Za-z]{12}\d{2}$/.test(digits) && /[A-Za-z]/.test(digits))
    return { key: digits.toUpperCase(), type: PixKeyType.CNPJ };
  if (!/^\d+$/.test(digits)) return undefined;
  // A phone written without its +: with its area code in parentheses, or 55 and 10 or 11 digits.
  if (text.includes('(') && /^\d{10,11}$/.test(digits)) return { key: `+55${digits}`, type: PixKeyType.PHONE };
  if (/^55\d{11}$/.test(digits)) return { key: `+${digits}`, type: PixKeyType.PHONE };
  if (digits.length === 11) return { key: digits, type: PixKeyType.CPF };
  if (digits.length === 14) return { key: digits, type: PixKeyType.CNPJ };
  return undefined;
}

/**
 * How the sweep holds the receiver's keys (a key is its holder's personal data, and twenty of the
 * longest would crowd the function's 4 KB of environment): the first 16 hex digits of the SHA-256
 * of the key's normal form ({@link normalizePixKey}).
 */
export function pixKeyHash(normalizedKey: string): string {
  return createHash('sha256').update(normalizedKey, 'utf8').digest('hex').slice(0, 16);
}
