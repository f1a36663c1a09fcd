/** This bank's collection and payments APIs as one API family: what the handlers may use of it. */
import { BOLETO_RULES, PAYMENT_RULES } from './subjects';

export const COOPERATIVE_SUBJECTS = [BOLETO_RULES, PAYMENT_RULES] as const;
