import { TokenCache } from '../../../lambda/receiver/token-cache';

const CURRENT = 'AWSCURRENT';

function setup(values: string[][] | (() => Promise<string[]>)) {
  let now = 0;
  const loads: string[] = [];
  const stale: unknown[] = [];
  const queue = Array.isArray(values) ? [...values] : undefined;
  const cache = new TokenCache({
    load: async (arn, stage) => {
      loads.push(`${arn} ${stage}`);
      if (queue) return queue.length > 1 ? queue.shift()! : queue[0];
      return (values as () => Promise<string[]>)();
    },
    ttlMs: 60_000,
    mismatchRefreshIntervalMs: 1_000,
    onStaleUse: (_arn, error) => stale.push(error),
    now: () => now,
  });
  return {
    cache,
    loads,
    stale,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

it('loads once and serves from memory until the TTL passes', async () => {
  const { cache, loads, advance } = setup([['a'], ['b']]);
  expect(await cache.get('arn', CURRENT)).toEqual(['a']);
  advance(59_999);
  expect(await cache.get('arn', CURRENT)).toEqual(['a']);
  expect(loads).toHaveLength(1);
  advance(1);
  expect(await cache.get('arn', CURRENT)).toEqual(['b']);
  expect(loads).toHaveLength(2);
});

it('shares one load between concurrent callers', async () => {
  const { cache, loads } = setup([['a']]);
  await Promise.all([cache.get('arn', CURRENT), cache.get('arn', CURRENT), cache.get('arn', CURRENT)]);
  expect(loads).toHaveLength(1);
});

it('reloads after a mismatch at most once per refresh interval', async () => {
  const { cache, loads, advance } = setup([['a'], ['a', 'b'], ['c']]);
  await cache.get('arn', CURRENT);
  expect(await cache.refreshAfterMismatch('arn', CURRENT)).toBeUndefined();
  advance(1_000);
  expect(await cache.refreshAfterMismatch('arn', CURRENT)).toEqual(['a', 'b']);
  expect(await cache.refreshAfterMismatch('arn', CURRENT)).toBeUndefined();
  expect(await cache.get('arn', CURRENT)).toEqual(['a', 'b']);
  expect(loads).toHaveLength(2);
});

it('keeps serving the previous values when a reload fails, and retries only after the interval', async () => {
  let fail = false;
  const { cache, loads, stale, advance } = setup(() =>
    fail ? Promise.reject(new Error('Secrets Manager unavailable')) : Promise.resolve(['a']),
  );
  await cache.get('arn', CURRENT);
  fail = true;
  advance(60_000);
  expect(await cache.get('arn', CURRENT)).toEqual(['a']);
  expect(stale).toHaveLength(1);
  expect(await cache.get('arn', CURRENT)).toEqual(['a']);
  expect(await cache.refreshAfterMismatch('arn', CURRENT)).toBeUndefined();
  expect(loads).toHaveLength(2);
  advance(1_000);
  fail = false;
  expect(await cache.get('arn', CURRENT)).toEqual(['a']);
  expect(loads).toHaveLength(3);
});

it('fails when the first load fails (nothing to fall back on)', async () => {
  const { cache } = setup(() => Promise.reject(new Error('denied')));
  await expect(cache.get('arn', CURRENT)).rejects.toThrow('denied');
});

it('caches each stage on its own: reading AWSPENDING neither reloads nor replaces AWSCURRENT', async () => {
  const stages: Record<string, string[]> = { AWSCURRENT: ['current'], AWSPENDING: [] };
  const loads: string[] = [];
  const cache = new TokenCache({
    load: (arn, stage) => {
      loads.push(`${arn} ${stage}`);
      return Promise.resolve(stages[stage]);
    },
    ttlMs: 60_000,
    mismatchRefreshIntervalMs: 1_000,
    now: () => 0,
  });
  expect(await cache.get('arn', CURRENT)).toEqual(['current']);
  expect(await cache.get('arn', 'AWSPENDING')).toEqual([]);
  stages.AWSPENDING = ['next'];
  expect(await cache.get('arn', 'AWSPENDING')).toEqual([]); // "no pending value" is cached like a value
  expect(await cache.get('arn', CURRENT)).toEqual(['current']);
  expect(await cache.get('other', CURRENT)).toEqual(['current']);
  expect(loads).toEqual(['arn AWSCURRENT', 'arn AWSPENDING', 'other AWSCURRENT']);
});

it('gives fresh values without waiting, and nothing once they are due for a reload (the caller then loads)', async () => {
  const { cache, loads, advance } = setup([['a'], ['b']]);
  expect(cache.peek('arn', CURRENT)).toBeUndefined();
  await cache.get('arn', CURRENT);
  expect(cache.peek('arn', CURRENT)).toEqual(['a']);
  advance(60_000);
  expect(cache.peek('arn', CURRENT)).toBeUndefined();
  expect(loads).toHaveLength(1);
  expect(await cache.get('arn', CURRENT)).toEqual(['b']);
});
