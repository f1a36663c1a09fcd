/** A money amount as every event carries it (its own module: the Pix events' parts and the rest import it). */

/** A money amount, both ways. */
export interface EventAmount {
  /** Whole cents. */
  readonly cents: number;
  /** The bank's decimal string with two places, such as "250.75". */
  readonly decimal: string;
}
