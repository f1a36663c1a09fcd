/**
 * `npm run soak`: the property harness for as long as asked, or one run replayed.
 *
 *   npm run soak -- --minutes 10                     new seeds, 50 runs each, until 10 minutes pass
 *   npm run soak -- --seed 42 --runs 500             one seed, 500 runs
 *   npm run soak -- --seed 42 --path 16:1:0:…        replays the run a failure printed
 *   npm run soak -- --mutant unconditional-write     the same with a planted bug (to see it caught)
 *
 * Prints each seed, and at the end the runs, the faults injected by kind, the invariants checked
 * and the longest time to publish after the faults stopped (the harness's clock). Exits 1 on the
 * first broken promise, with its shrunk scenario and the command that replays it.
 */
import { parseArgs } from 'node:util';
import { checkPromise, type PropertyReport } from './check';
import { Mutant } from './faults';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string' },
    seed: { type: 'string' },
    runs: { type: 'string' },
    path: { type: 'string' },
    mutant: { type: 'string' },
  },
});

function fail(message: string): never {
  console.error(`soak: ${message}`);
  process.exit(2);
}

const mutant = values.mutant as Mutant | undefined;
if (mutant !== undefined && !Object.values(Mutant).includes(mutant))
  fail(`--mutant must be one of ${Object.values(Mutant).join(', ')}`);
const number = (name: string, value: string | undefined, fallback: number, whole = true) => {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (whole ? !Number.isInteger(n) : !(Number.isFinite(n) && n >= 0))
    fail(`--${name} must be a ${whole ? 'whole number' : 'number of minutes'}, got "${value}"`);
  return n;
};
const minutes = number('minutes', values.minutes, 0, false);
const runsPerSeed = number('runs', values.runs, values.path ? 1 : 50);
const firstSeed = number('seed', values.seed, Date.now() % 2_147_483_647);

async function main(): Promise<void> {
  const started = Date.now();
  const total = { seeds: 0, runs: 0, invariants: 0, longest: 0, bulkListings: 0, faults: {} as Record<string, number> };
  const add = (report: PropertyReport) => {
    total.seeds++;
    total.runs += report.runs;
    total.invariants += report.invariantsChecked;
    total.bulkListings += report.bulkListings;
    total.longest = Math.max(total.longest, report.longestPublishAfterFaultsMs);
    for (const [kind, n] of Object.entries(report.faults)) total.faults[kind] = (total.faults[kind] ?? 0) + n;
  };
  for (let seed = firstSeed; ; seed++) {
    const report = await checkPromise({ seed, runs: runsPerSeed, path: values.path, mutant });
    add(report);
    console.log(`seed ${seed}: ${report.runs} run(s) ${report.failed ? 'BROKE THE PROMISE' : 'held'}`);
    if (report.failed) {
      console.log(report.failure);
      summary(total, started);
      process.exit(1);
    }
    if (values.path || (values.seed !== undefined && !values.minutes) || Date.now() - started >= minutes * 60_000)
      break;
  }
  summary(total, started);
}

function summary(
  total: {
    seeds: number;
    runs: number;
    invariants: number;
    longest: number;
    bulkListings: number;
    faults: Record<string, number>;
  },
  started: number,
): void {
  const faults =
    Object.entries(total.faults)
      .sort()
      .map(([kind, n]) => `${kind} ${n}`)
      .join(', ') || 'none';
  console.log(
    [
      `seeds: ${total.seeds}, runs: ${total.runs}, in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      `faults injected: ${faults}`,
      `invariants checked: ${total.invariants}`,
      `listing calls of verification by listing: ${total.bulkListings}`,
      `longest time to publish after the faults stopped: ${(total.longest / 1000).toFixed(1)} s`,
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(2);
});
