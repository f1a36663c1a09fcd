/**
 * What the receiver checks of a body on the Pix route, and nothing more: the family's entry point
 * for the receiver (its other files, the client and the readers, are the processor's and the
 * sweep's, and would only slow the receiver's cold start).
 */

/** Whether a JSON value is an object (not an array, not null): the one test the family's readers share. */
export const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);

/** What a body on the Pix route is, read once. */
export enum PixBodyShape {
  /** The provider's validation call: an empty body, or JSON without a `pix` array. Answered 200, nothing to verify. */
  VALIDATION = 'validation',
  /** A Pix callback's shape: a JSON object with a `pix` array of objects (what a Pix holds inside is the processor's to judge). */
  CALLBACK = 'callback',
  /** Anything else: not JSON, or a `pix` array holding something other than objects. */
  OTHER = 'other',
}

export function pixBodyShape(body: Buffer): PixBodyShape {
  if (!body.length) return PixBodyShape.VALIDATION;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return PixBodyShape.OTHER;
  }
  if (!isObject(parsed) || !Array.isArray(parsed.pix)) return PixBodyShape.VALIDATION;
  return parsed.pix.every(isObject) ? PixBodyShape.CALLBACK : PixBodyShape.OTHER;
}

/** Whether a body has a Pix callback's shape (see {@link PixBodyShape.CALLBACK}). */
export const isPixCallbackShape = (body: Buffer): boolean => pixBodyShape(body) === PixBodyShape.CALLBACK;

/** Whether a body from the Pix route is the provider's validation call (see {@link PixBodyShape.VALIDATION}). */
export const isPixValidationCall = (body: Buffer): boolean => pixBodyShape(body) === PixBodyShape.VALIDATION;
