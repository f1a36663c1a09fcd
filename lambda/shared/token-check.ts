import { createHash, timingSafeEqual } from 'node:crypto';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * True when `presented` equals one of `expected`, compared in constant time. Both sides are
 * hashed first, so neither a difference in length nor the position of the first differing
 * character changes the time taken, and nothing throws on a length mismatch. Every candidate is
 * compared (no early exit). An absent or empty presented value, and empty candidates, never match.
 */
export function tokenMatches(presented: string | undefined, expected: readonly string[]): boolean {
  if (!presented) return false;
  const presentedDigest = digest(presented);
  let matched = false;
  for (const candidate of expected) {
    if (!candidate) continue;
    // Non-short-circuiting OR: compare with every candidate.
    matched = timingSafeEqual(presentedDigest, digest(candidate)) || matched;
  }
  return matched;
}

/** Looks a header up by name, case-insensitively (HTTP header names are case-insensitive). */
export function findHeader(headers: Record<string, string | undefined> | null | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}
