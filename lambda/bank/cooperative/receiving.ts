/**
 * What the receiver checks of this bank's routes, and nothing more: each route's token (the
 * family's entry point for the receiver, which imports no other file of it).
 */
import { PAYMENTS_TOKEN_HEADER } from '../../../contracts/receiver';
import { RouteCredential, type RouteIntake } from '../intake';

/** The collection API's boleto webhook (the contract's header) and the payments webhook (always Authorization). */
export const COOPERATIVE_INTAKES: readonly RouteIntake[] = [
  {
    route: 'boleto',
    provider: 'bank',
    credential: RouteCredential.TOKEN,
    token: (s) => ({ header: s.boletoTokenHeader, secretArn: s.boletoTokenSecretArn }),
  },
  {
    route: 'payments',
    provider: 'bank',
    credential: RouteCredential.TOKEN,
    token: (s) => ({ header: PAYMENTS_TOKEN_HEADER, secretArn: s.paymentsTokenSecretArn }),
  },
];
