import { hash, timingSafeEqual } from 'node:crypto';

function digest(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}

/**
 * Digests of the accepted values, made once per set: the token cache hands out the same array
 * until it reloads, so a request hashes only what it presents.
 */
const expectedDigests = new WeakMap<readonly string[], ReadonlyArray<Buffer | undefined>>();

function digestsOf(expected: readonly string[]): ReadonlyArray<Buffer | undefined> {
  let digests = expectedDigests.get(expected);
  if (!digests) {
    digests = expected.map((candidate) => (candidate ? digest(candidate) : undefined));
    expectedDigests.set(expected, digests);
  }
  return digests;
}

/**
 * True when `presented` equals one of `expected`, compared in constant time. Both sides are
 * hashed first, so neither a difference in length nor the position of the first differing
 * character changes the time taken, and nothing throws on a length mismatch. Every candidate is
 * compared (no early exit). An absent or empty presented value, and empty candidates, never match.
 * `expected` is treated as unchanging: pass a new array when the accepted values change.
 */
export function tokenMatches(presented: string | undefined, expected: readonly string[]): boolean {
  if (!presented) return false;
  const presentedDigest = digest(presented);
  let matched = false;
  for (const candidateDigest of digestsOf(expected)) {
    if (!candidateDigest) continue;
    // Non-short-circuiting OR: compare with every candidate.
    matched = timingSafeEqual(presentedDigest, candidateDigest) || matched;
  }
  return matched;
}

/** Looks a header up by name, case-insensitively (HTTP header names are case-insensitive). */
export function findHeader(
  headers: Record<string, string | undefined> | null | undefined,
  name: string,
): string | undefined {
  if (!headers) return undefined;
  // The name as written first (what senders usually send): no walk over every header.
  if (Object.hasOwn(headers, name)) return headers[name];
  const wanted = name.toLowerCase();
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() === wanted) return headers[key];
  }
  return undefined;
}
