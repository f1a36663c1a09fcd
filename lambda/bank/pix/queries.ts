/** The Pix API's queries a subject's rules make ({@link PixClient} fits): undefined where the provider answers 404. */
import type { PixChargeKind } from '../../../contracts/events';
import type { ChargeRead, PixRead, PixRefundRead } from './answers';
import type { PixClient } from './client';
import type { RecurrenceRead, RecurringChargeRead } from './recurring-answers';

export interface PixQueries {
  getPix(endToEndId: string, deadline: number): Promise<PixRead | undefined>;
  getCharge(kind: PixChargeKind, txid: string, deadline: number): Promise<ChargeRead | undefined>;
  getRefund(endToEndId: string, id: string, deadline: number): Promise<PixRefundRead | undefined>;
  getRecurrence(idRec: string, deadline: number): Promise<RecurrenceRead | undefined>;
  getRecurringCharge(txid: string, deadline: number): Promise<RecurringChargeRead | undefined>;
}

/** The client as the rules ask it. */
export const pixQueries = (client: PixClient): PixQueries => client;
