/**
 * What the receiver checks of a body on the Pix route, and nothing more: the family's entry point
 * for the receiver (its other files, the client and the readers, are the processor's and the
 * sweep's, and would only slow the receiver's cold start).
 */

/** Whether a JSON value is an object (not an array, not null): the one test the family's readers share. */
export const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);

/**
 * Whether a body has a Pix callback's shape: a JSON object with a `pix` array of objects (what a
 * Pix holds inside, in any reading the library takes, is the processor's to judge).
 */
export function isPixCallbackShape(body: Buffer): boolean {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    return isObject(parsed) && Array.isArray(parsed.pix) && parsed.pix.every(isObject);
  } catch {
    return false;
  }
}

/** Whether a body from the Pix route is the provider's validation call (no `pix` array): answered 200, nothing to verify. */
export function isPixValidationCall(body: Buffer): boolean {
  if (!body.length) return true;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    return !(isObject(parsed) && Array.isArray(parsed.pix));
  } catch {
    return false;
  }
}
