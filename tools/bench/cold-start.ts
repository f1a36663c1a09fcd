import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const MARK = 'BENCH_COLD_START ';

/**
 * Module load plus first invocation of `entry`'s handler in a fresh `node` process, in ms: the
 * part of a Lambda cold start that the code decides (the runtime's own start is the same for
 * any bundle, and is left out). `preload` runs before the clock starts. Fails unless the
 * invocation answers 200.
 */
export interface ColdStart {
  /** Module load plus first invocation. */
  readonly ms: number;
  /** Of which module load (require and module-level setup). */
  readonly loadMs: number;
}

export async function coldStartMs(entry: string, event: unknown, environment: Readonly<Record<string, string>>, preload: string, exportName = 'handler'): Promise<ColdStart> {
  const script = [
    'const t0 = performance.now();',
    `const handler = require(${JSON.stringify(entry)})[${JSON.stringify(exportName)}];`,
    'const loadMs = performance.now() - t0;',
    `handler(${JSON.stringify(event)}, {}).then((answer) => {`,
    '  const ms = performance.now() - t0;',
    `  process.stdout.write('\\n${MARK}' + JSON.stringify({ ms, loadMs, status: answer && answer.statusCode }) + '\\n');`,
    '  process.exit(0);',
    '}, (error) => { console.error(error); process.exit(1); });',
  ].join('\n');
  // BENCH_CPU_PROF=<dir> profiles these processes too (as it does the function workers).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
  const { stdout } = await run(process.execPath, [...profile, '--require', preload, '-e', script], { env: { PATH: process.env.PATH ?? '', ...environment }, maxBuffer: 16 * 1024 * 1024 });
  const line = stdout.split('\n').reverse().find((l) => l.startsWith(MARK));
  if (!line) throw new Error(`${entry}: the cold-start process printed no result; its output was:\n${stdout}`);
  const result = JSON.parse(line.slice(MARK.length)) as { ms: number; loadMs: number; status?: number };
  if (result.status !== 200) throw new Error(`${entry}: the first invocation answered ${result.status}; the benchmark needs it to succeed`);
  return { ms: result.ms, loadMs: result.loadMs };
}
