/**
 * Where CI's time goes: each step of `.ci/run` (from the `steps.tsv` it writes) and the slowest
 * test suites (from Jest's own JSON), with the part of each suite spent outside its tests
 * (loading and transforming modules, `beforeAll`/`afterAll`: bundling, synthesis, servers started).
 *
 *   npx tsx tools/ci-profile.ts [.ci/out] [--top 15]
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface JestSuite {
  readonly name: string;
  readonly startTime: number;
  readonly endTime: number;
  readonly assertionResults: ReadonlyArray<{ readonly duration?: number | null }>;
}

export interface StepTime {
  readonly step: string;
  readonly seconds: number;
  readonly status: number;
}

export interface SuiteTime {
  readonly suite: string;
  readonly seconds: number;
  /** Outside its tests: module loading and transform, beforeAll/afterAll. */
  readonly setupSeconds: number;
  readonly tests: number;
}

/** The steps `.ci/run` recorded: `name<TAB>start ms<TAB>end ms<TAB>status` a line. */
export function readSteps(text: string): StepTime[] {
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      const [step, start, end, status] = line.split('\t');
      return { step, seconds: (Number(end) - Number(start)) / 1000, status: Number(status) };
    });
}

/** Each suite's wall time and the part of it outside its tests, slowest first. */
export function readSuites(json: { testResults: JestSuite[] }, root: string): SuiteTime[] {
  return json.testResults
    .map((r) => {
      const seconds = (r.endTime - r.startTime) / 1000;
      const inTests = r.assertionResults.reduce((sum, a) => sum + (a.duration ?? 0), 0) / 1000;
      return {
        suite: r.name.startsWith(root) ? r.name.slice(root.length + 1) : r.name,
        seconds,
        setupSeconds: Math.max(0, seconds - inTests),
        tests: r.assertionResults.length,
      };
    })
    .sort((a, b) => b.seconds - a.seconds);
}

const fmt = (seconds: number) =>
  seconds >= 60 ? `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s` : `${seconds.toFixed(1)} s`;

function main(): void {
  const args = process.argv.slice(2);
  const topAt = args.indexOf('--top');
  const top = topAt >= 0 ? Number(args[topAt + 1]) : 15;
  const out = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--top') ?? '.ci/out';
  const root = process.cwd();
  const stepsFile = join(out, 'steps.tsv');
  if (existsSync(stepsFile)) {
    const steps = readSteps(readFileSync(stepsFile, 'utf8'));
    const total = steps.reduce((sum, s) => sum + s.seconds, 0);
    console.log('CI steps (wall time; steps that ran side by side overlap):');
    for (const s of steps)
      console.log(`  ${fmt(s.seconds).padStart(12)}  ${s.step}${s.status ? `  (exit ${s.status})` : ''}`);
    console.log(`  ${fmt(total).padStart(12)}  sum of steps`);
  } else {
    console.log(`No ${stepsFile}: run bash .ci/run first.`);
  }
  const jestFile = join(out, 'jest.json');
  if (!existsSync(jestFile)) return;
  const json = JSON.parse(readFileSync(jestFile, 'utf8')) as { testResults: JestSuite[]; startTime: number };
  const suites = readSuites(json, root);
  const wall = (Math.max(...json.testResults.map((r) => r.endTime)) - json.startTime) / 1000;
  const busy = suites.reduce((sum, s) => sum + s.seconds, 0);
  const setup = suites.reduce((sum, s) => sum + s.setupSeconds, 0);
  console.log(
    `\nJest: ${suites.length} suites, ${fmt(wall)} wall, ${fmt(busy)} in suites (${fmt(setup)} of it outside tests)`,
  );
  console.log(`Slowest ${Math.min(top, suites.length)} suites (wall, of it outside tests, tests):`);
  for (const s of suites.slice(0, top))
    console.log(
      `  ${fmt(s.seconds).padStart(12)}  ${fmt(s.setupSeconds).padStart(10)}  ${String(s.tests).padStart(4)}  ${s.suite}`,
    );
}

if (require.main === module) main();
