import { type ChildProcess, fork } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchReply, BenchTask, BenchTaskResult } from './worker-protocol';

/** Peak resident set size (VmHWM) of a running process, in MiB, from /proc. */
export function peakRssMb(pid: number): number {
  const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`/proc/${pid}/status has no VmHWM line; peak memory is measured on Linux only`);
  return Number(match[1]) / 1024;
}

/**
 * One benchmark function process (`worker.ts`): the function's environment only, its log lines
 * (what CloudWatch Logs would get) in `logFile`, tasks over IPC one at a time.
 */
export class BenchWorker {
  private readonly child: ChildProcess;
  private readonly ready: Promise<unknown>;
  private pending?: { resolve: (result: BenchTaskResult) => void; reject: (error: Error) => void };

  constructor(environment: Readonly<Record<string, string>>, readonly logFile: string) {
    const log = openSync(logFile, 'a');
    this.child = fork(join(__dirname, 'worker.ts'), [], {
      env: { PATH: process.env.PATH ?? '', ...environment },
      // --expose-gc: each timed run starts from a collected heap (see worker.ts).
      // BENCH_CPU_PROF=<dir> writes a CPU profile of every worker there (open it in Chrome's DevTools).
      execArgv: ['--expose-gc', '--require', require.resolve('tsx/cjs'), ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [])],
      stdio: ['ignore', log, log, 'ipc'],
    });
    closeSync(log);
    this.child.on('message', (reply: BenchReply) => {
      const pending = this.pending;
      this.pending = undefined;
      if (reply.ok) pending?.resolve(reply.result);
      else pending?.reject(new Error(`benchmark worker: ${reply.error}`));
    });
    this.child.on('exit', (code, signal) => this.pending?.reject(new Error(`benchmark worker exited (${signal ?? code}); see ${logFile}`)));
    this.ready = new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  async run(task: BenchTask): Promise<Extract<BenchTaskResult, { type: 'timed' }>> {
    await this.ready;
    const result = await new Promise<BenchTaskResult>((resolve, reject) => {
      this.pending = { resolve, reject };
      this.child.send(task);
    });
    if (result.type !== 'timed') throw new Error(`benchmark worker answered ${result.type} to a ${task.type} task`);
    return result;
  }

  /** Ends the process the way a Lambda environment is retired (a profile, when asked for, is written on exit). */
  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.disconnect();
    await exited;
  }
}
