/**
 * The processor's truth model, whatever API family verified it: a subject's verified state as its
 * record keeps it, a change to publish, and whether a notification's claim holds. A family's rules
 * (family.ts) make these from its provider's answers; the processor and the store read only these.
 */
import type {
  BankEventDetailType,
  BoletoSettlement,
  PixReceived,
  PixRecurrence,
  PixRecurringCharge,
  PixRefund,
  VerifiedState,
} from '../../contracts/events';

/**
 * A subject's verified state as its record keeps it: a boleto's also holds its settlement, a Pix's
 * the Pix, a refund's the refund, a recurrence's and a recurring charge's themselves.
 */
export interface SubjectState extends VerifiedState {
  readonly settlement?: BoletoSettlement;
  readonly pix?: PixReceived;
  readonly refund?: PixRefund;
  readonly recurrence?: PixRecurrence;
  readonly recurringCharge?: PixRecurringCharge;
}

/** A verified state and the key that names it in a subject's history. */
export interface KeyedState {
  readonly key: string;
  readonly state: SubjectState;
  /**
   * Other ids the same settlement has had or would have (another reading of a Z timestamp, the
   * reading of earlier releases): a record that holds one of them holds this settlement.
   */
  readonly aliases?: readonly string[];
}

/** The state as events carry it (a settlement travels in `settlement` or `reverses`, a Pix in `pix`, a refund in `refund`...). */
export function publicState(state: SubjectState): VerifiedState {
  const {
    settlement: _settlement,
    pix: _pix,
    refund: _refund,
    recurrence: _recurrence,
    recurringCharge: _recurringCharge,
    ...rest
  } = state;
  return rest;
}

/** One change to publish: the event it becomes and the state it leaves the subject in. */
export interface Change {
  readonly detailType: BankEventDetailType;
  readonly key: string;
  readonly state: SubjectState;
  readonly previous?: SubjectState;
  readonly reverses?: BoletoSettlement;
}

/** Whether the bank's state bears out a claim, and where they differ. */
export interface ClaimCheck {
  /** The bank shows what the notification says. */
  readonly matches: boolean;
  /** The claim holds now or held in the subject's published history (a settlement since reversed, a payment status since passed). */
  readonly holds: boolean;
  readonly mismatches: string[];
}
