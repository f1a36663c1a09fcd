import { findHeader, tokenMatches } from '../../../lambda/shared/token-check';

describe('tokenMatches', () => {
  it('matches the exact value', () => expect(tokenMatches('abc123', ['abc123'])).toBe(true));
  it('matches any of several accepted values (current and pending)', () =>
    expect(tokenMatches('new', ['old', 'new'])).toBe(true));
  it.each([
    ['a different value of the same length', 'abc124'],
    ['a prefix', 'abc'],
    ['a longer value', 'abc1234'],
    ['a different case', 'ABC123'],
    ['a Bearer prefix', 'Bearer abc123'],
  ])('rejects %s without throwing', (_case, presented) => expect(tokenMatches(presented, ['abc123'])).toBe(false));
  it('never matches an absent or empty presented value', () => {
    expect(tokenMatches(undefined, ['abc123'])).toBe(false);
    expect(tokenMatches('', ['abc123', ''])).toBe(false);
  });
  it('ignores empty accepted values, so an empty secret authenticates nobody', () =>
    expect(tokenMatches('x', ['', 'y'])).toBe(false));
  it('checks each call against the set it is given, reused or new (a rotation hands out a new set)', () => {
    const before = Object.freeze(['old']);
    expect(tokenMatches('old', before)).toBe(true);
    expect(tokenMatches('old', before)).toBe(true);
    expect(tokenMatches('new', before)).toBe(false);
    const after = Object.freeze(['new']);
    expect(tokenMatches('new', after)).toBe(true);
    expect(tokenMatches('old', after)).toBe(false);
  });
  it('handles values of very different lengths and non-ASCII text', () => {
    expect(tokenMatches('ç'.repeat(10_000), ['ç'.repeat(10_000)])).toBe(true);
    expect(tokenMatches('a', ['b'.repeat(10_000)])).toBe(false);
  });
});

describe('findHeader', () => {
  it('finds a header whatever the case of its name', () => {
    expect(findHeader({ 'x-webhook-token': 'v' }, 'X-Webhook-Token')).toBe('v');
    expect(findHeader({ AUTHORIZATION: 'v' }, 'authorization')).toBe('v');
  });
  it('returns undefined when headers are absent or do not hold it', () => {
    expect(findHeader(null, 'Authorization')).toBeUndefined();
    expect(findHeader({ Other: 'v' }, 'Authorization')).toBeUndefined();
    // Only the headers' own names: nothing an object inherits is a header.
    expect(findHeader({ Other: 'v' }, 'constructor')).toBeUndefined();
    expect(findHeader({ Other: 'v' }, 'toString')).toBeUndefined();
  });
});
