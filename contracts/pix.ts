/**
 * The standard Pix API's field rules and refund statuses (the Central Bank's API Pix, release
 * 2.9.0; PIX-NOTES.md), the one definition the simulator's provider and the library's client
 * both hold answers to.
 */

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
