/**
 * What a stack is to the bank. The bank has only production: a staging stack that registered,
 * swept or watched would act on production money (its settlements published to staging's
 * consumers) and take the registrations from production.
 */
export enum BankStage {
  /** Registers with the bank (when given registrations), runs the reconciliation sweep and the registration watch. */
  PRODUCTION = 'PRODUCTION',
  /**
   * Registers nothing, sweeps nothing and watches nothing against the bank (staging, a
   * developer's stack). It still receives what is sent to its endpoint with its tokens and
   * verifies it with the bank's query API before publishing, so test with the simulator.
   */
  NON_PRODUCTION = 'NON_PRODUCTION',
}
