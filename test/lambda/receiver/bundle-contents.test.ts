/**
 * What the receiver's bundle holds, read from its source map: its own code, the shared layer, the
 * contracts and the families' receiving checks, never a family's client or readers (they would
 * only slow its cold start), and no more bytes than the bound below (today's size with a little
 * room: raise it only with a reason, in the same commit).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const BUNDLE = join(__dirname, '..', '..', '..', 'dist', 'handlers', 'receiver', 'index.js');
// 518 KiB since 2026-11-28: the logger loaded when first used (lambda/receiver/index.ts) costs
// esbuild's lazy-module wrapper, 269 bytes, and saves the cold start Powertools' load (about 9 ms
// on Node 24, the bench's cold-start section).
const MAX_BYTES = 518 * 1024;

const ours = (): string[] =>
  (JSON.parse(readFileSync(`${BUNDLE}.map`, 'utf8')) as { sources: string[] }).sources
    .filter((source) => !source.includes('node_modules/'))
    .map((source) => source.replace(/^(\.\.\/)+/, ''));

it("holds none of a family's files but its routes' intake", () => {
  const families = ours()
    .filter((source) => source.startsWith('lambda/bank/'))
    .sort();
  expect(families).toEqual([
    'lambda/bank/cooperative/receiving.ts',
    'lambda/bank/intake.ts',
    'lambda/bank/intakes.ts',
    'lambda/bank/pix/receiving.ts',
  ]);
  expect(
    ours().filter(
      (source) =>
        source.startsWith('lambda/') &&
        !/^lambda\/(receiver|shared|store|bank\/(intakes?\.ts|[^/]+\/receiving\.ts))/.test(source),
    ),
  ).toEqual([]);
});

it(`is at most ${MAX_BYTES / 1024} KiB (517.0 KiB on 2026-11-28, Node 24 target)`, () => {
  expect(statSync(BUNDLE).size).toBeLessThanOrEqual(MAX_BYTES);
});
