/**
 * The promise as a property (docs/guarantees.md): fixed seeds of the harness, each a whole run of the
 * real handlers under its scenario's faults, checked by the invariants after it ends. A failure
 * prints the violations, the shrunk scenario and the command that replays it. The planted bugs
 * show that the same seeds catch what the invariants are for; the regressions replay the shrunk
 * scenarios of defects the harness found, under many orderings.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { checkPromise } from './check';
import { Mutant } from './faults';
import { Invariant } from './invariants';
import type { Scenario } from './scenario';

/** What CI runs: a fixed seed and number of runs (never a wall-clock budget). */
export const CI_SEED = Number(process.env.PROPERTY_SEED ?? 20261128);
export const CI_RUNS = Number(process.env.PROPERTY_RUNS ?? 150);

it(`holds the promise over ${CI_RUNS} runs of seed ${CI_SEED}`, async () => {
  const report = await checkPromise({ seed: CI_SEED, runs: CI_RUNS });
  expect(report.failure).toBe('');
  expect(report.runs).toBe(CI_RUNS);
});

describe('a planted bug is caught within the same runs', () => {
  it.each<[Mutant, Invariant]>([
    [Mutant.UNCONDITIONAL_WRITE, Invariant.TWICE],
    [Mutant.PUBLISH_BEFORE_RECORD, Invariant.TWICE],
    [Mutant.NOT_FOUND_AS_LAG, Invariant.LOST],
    [Mutant.ACCOUNT_KEYS, Invariant.UNVERIFIED],
  ])('%s breaks "%s"', async (mutant, invariant) => {
    // Caught is what this shows: the first failing run, unshrunk (the soak shrinks it).
    const report = await checkPromise({ seed: CI_SEED, runs: CI_RUNS, mutant, noShrink: true });
    expect(report.failed).toBe(true);
    expect(report.invariant).toBe(invariant);
    expect(report.failure).toMatch(
      new RegExp(`Replay: npm run soak -- --seed ${CI_SEED} --path [0-9:]+ --mutant ${mutant}`),
    );
  });
});

describe('defects the harness found stay fixed', () => {
  const dir = join(__dirname, 'regressions');
  it.each(readdirSync(dir).filter((file) => file.endsWith('.json')))('%s', async (file) => {
    const { scenario } = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { scenario: Scenario };
    const report = await checkPromise({
      seed: CI_SEED,
      runs: 25,
      scenarios: fc.constant(scenario),
      replay: `npx jest --selectProjects property -t ${file}`,
    });
    expect(report.failure).toBe('');
  });
});
