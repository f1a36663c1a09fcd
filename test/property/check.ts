/**
 * Runs the promise as a property with fast-check (generation, shrinking and the scheduler), and
 * reports as CI and the soak print it: on a failure the violated invariants, the shrunk scenario
 * and the one command that replays it; always the runs, the faults injected by kind, the
 * invariants checked and the longest time to publish after the faults stopped.
 */
import fc from 'fast-check';
import type { Mutant } from './faults';
import { checkInvariants, Invariant } from './invariants';
import { runScenario, type Scenario, scenarios } from './scenario';

export interface PropertyOptions {
  readonly seed: number;
  readonly runs: number;
  /** Replays one run: the path fast-check printed with its seed. */
  readonly path?: string;
  /** A bug planted in the handlers' dependencies (to show the invariants catch it). */
  readonly mutant?: Mutant;
  /** @default every scenario */
  readonly scenarios?: fc.Arbitrary<Scenario>;
  /** How to replay a run of `scenarios` (a regression's test), in place of the soak's command. */
  readonly replay?: string;
  /** Stops at the first failure without shrinking (the soak's hunt). @default false */
  readonly noShrink?: boolean;
}

export interface PropertyReport {
  readonly failed: boolean;
  /** The violations, the shrunk scenario and the replay command (empty when it held). */
  readonly failure: string;
  readonly runs: number;
  readonly faults: Record<string, number>;
  readonly invariantsChecked: number;
  /** Listing calls verification by listing made (the bulk path taken). */
  readonly bulkListings: number;
  /** The longest time from the faults' end to an event published after it, in ms of the harness's clock. */
  readonly longestPublishAfterFaultsMs: number;
  /** The counterexample's first violation's invariant, when it failed. */
  readonly invariant?: Invariant;
}

/** The command that replays a run. */
export function replayCommand(seed: number, path: string, mutant?: Mutant): string {
  return `npm run soak -- --seed ${seed} --path ${path}${mutant ? ` --mutant ${mutant}` : ''}`;
}

export async function checkPromise(options: PropertyOptions): Promise<PropertyReport> {
  const faults: Record<string, number> = {};
  let runs = 0;
  let longest = 0;
  let bulkListings = 0;
  let lastViolations: ReturnType<typeof checkInvariants> = [];
  const property = fc.asyncProperty(options.scenarios ?? scenarios, fc.scheduler(), async (scenario, scheduler) => {
    const world = await runScenario(scenario, scheduler, options.mutant);
    runs++;
    for (const [kind, count] of Object.entries(world.tally.faults)) faults[kind] = (faults[kind] ?? 0) + count;
    bulkListings += world.bank.bulkListings;
    for (const event of world.bus.accepted) {
      // (The late phase, past the records' lifetime, is no publication after the faults.)
      if (
        world.faultsStoppedAt !== undefined &&
        event.at >= world.faultsStoppedAt &&
        (world.lateFrom === undefined || event.at < world.lateFrom)
      )
        longest = Math.max(longest, event.at - world.faultsStoppedAt);
    }
    const violations = checkInvariants(world);
    if (violations.length) {
      lastViolations = violations;
      throw new Error(violations.map((v) => `${v.invariant}: ${v.detail}`).join('\n'));
    }
  });
  const details = await fc.check(property, {
    seed: options.seed,
    numRuns: options.runs,
    ...(options.path ? { path: options.path, endOnFailure: true } : {}),
    ...(options.noShrink ? { endOnFailure: true } : {}),
  });
  const stats = {
    runs,
    faults,
    bulkListings,
    invariantsChecked: runs * Object.keys(Invariant).length,
    longestPublishAfterFaultsMs: longest,
  };
  if (!details.failed) return { failed: false, failure: '', ...stats };
  const [scenario] = (details.counterexample ?? []) as [Scenario?];
  const failure = [
    `The promise broke after ${details.numRuns} run(s), shrunk ${details.numShrinks} time(s):`,
    details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance),
    `Scenario: ${JSON.stringify(scenario)}`,
    `Replay: ${options.replay ?? replayCommand(details.seed, details.counterexamplePath ?? '', options.mutant)}`,
  ].join('\n');
  return { failed: true, failure, ...stats, invariant: lastViolations[0]?.invariant };
}
