import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type SerializedError, type WorkerReply, type WorkerRequest, WorkerEnv } from './lambda-worker-protocol';

const WORKER = join(__dirname, 'lambda-worker.ts');
/** Lambda's limit on a function's init phase. */
const INIT_LIMIT_MS = 10_000;

export interface LocalFunctionOptions {
  /** The function's name (AWS_LAMBDA_FUNCTION_NAME, log lines). */
  readonly name: string;
  /** Absolute path of the handler module: a deployed bundle, or a team's own code (TypeScript works). */
  readonly entry: string;
  /** @default 'handler' */
  readonly exportName?: string;
  /** The function's environment, as the template sets it (resolved), plus local endpoints. */
  readonly environment: Readonly<Record<string, string>>;
  /** The function's timeout. */
  readonly timeoutMs: number;
  /** The function's memory size (AWS_LAMBDA_FUNCTION_MEMORY_SIZE). @default 128 */
  readonly memoryMb?: number;
  /** Told of every line the function writes (what CloudWatch Logs would hold). */
  readonly onLog?: (line: string) => void;
}

/** An invocation that failed the way Lambda reports it: the handler threw, timed out, or its runtime died. */
export class FunctionInvokeError extends Error {
  constructor(
    readonly functionName: string,
    readonly errorType: string,
    message: string,
    readonly errorStack?: string,
  ) {
    super(`${functionName}: ${errorType}: ${message}`);
    this.name = 'FunctionInvokeError';
  }
}

interface Pending {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * A Lambda function run locally in its own Node process (its execution environment), with the
 * function's environment only: the module is loaded once (the init phase, a cold start), then
 * serves invocations with a context counting down from the function's timeout. Concurrent
 * invocations share the process. `crash()` kills the process as a runtime failure would: the
 * invocations in flight fail, and the next one starts a new environment.
 */
export class LocalFunction {
  /** Environments started (cold starts). */
  coldStarts = 0;
  /** Invocations sent. */
  invocations = 0;
  private child?: ChildProcess;
  private starting?: Promise<ChildProcess>;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(private options: LocalFunctionOptions) {}

  get name(): string {
    return this.options.name;
  }

  /** The environment's process id, when one is running. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Invokes the function; rejects with a FunctionInvokeError when the invocation fails. */
  async invoke<R = unknown>(event: unknown, requestId?: string): Promise<R> {
    this.invocations++;
    const child = await this.environment();
    // Like Lambda, the init phase has its own limit; the timeout counts from here.
    const deadline = Date.now() + this.options.timeoutMs;
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          this.pending.delete(id);
          reject(
            new FunctionInvokeError(
              this.name,
              'Sandbox.Timedout',
              `Task timed out after ${(this.options.timeoutMs / 1000).toFixed(2)} seconds`,
            ),
          );
        },
        Math.max(0, deadline - Date.now()),
      );
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      const request: WorkerRequest = { type: 'invoke', id, event, deadline, requestId };
      // The environment may have died between its lookup and this send (a crash in progress):
      // Lambda reports that as the runtime exiting, never as a broken channel.
      child.send(request, (error) => {
        if (!error || !this.pending.has(id)) return;
        clearTimeout(timer);
        this.pending.delete(id);
        reject(
          new FunctionInvokeError(
            this.name,
            'Runtime.ExitError',
            `The runtime exited before the invocation could start (${error.message})`,
          ),
        );
      });
    });
  }

  /** The function's environment variables. */
  get variables(): Readonly<Record<string, string>> {
    return this.options.environment;
  }

  /**
   * Changes the function's environment variables, as a deploy's UpdateFunctionConfiguration does:
   * the running environment ends, and the next invocation starts one with the new variables.
   */
  async updateEnvironment(environment: Record<string, string>): Promise<void> {
    this.options = { ...this.options, environment };
    await this.stop();
  }

  /** Kills the environment (SIGKILL), as a crashed runtime: invocations in flight fail. */
  async crash(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }

  /** Stops the environment; invocations in flight fail. */
  async stop(): Promise<void> {
    const child = this.child ?? (await this.starting?.catch(() => undefined));
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }

  private environment(): Promise<ChildProcess> {
    if (this.child) return Promise.resolve(this.child);
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async start(): Promise<ChildProcess> {
    const o = this.options;
    this.coldStarts++;
    const child = fork(WORKER, [], {
      execArgv: ['--require', require.resolve('tsx/cjs')],
      env: {
        PATH: process.env.PATH ?? '',
        TZ: 'UTC',
        AWS_LAMBDA_FUNCTION_NAME: o.name,
        AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(o.memoryMb ?? 128),
        AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${o.name}`,
        ...o.environment,
        [WorkerEnv.ENTRY]: o.entry,
        [WorkerEnv.EXPORT]: o.exportName ?? 'handler',
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => o.onLog?.(line));
    }
    child.on('message', (reply: WorkerReply) => {
      if (reply.type !== 'result') return;
      const pending = this.pending.get(reply.id);
      if (!pending) return;
      this.pending.delete(reply.id);
      clearTimeout(pending.timer);
      if (reply.ok) pending.resolve(reply.value);
      else pending.reject(this.failure(reply.error));
    });
    child.once('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      const reason = signal
        ? `signal: ${signal === 'SIGKILL' ? 'killed' : signal.replace(/^SIG/, '').toLowerCase()}`
        : `exit status ${String(code)}`;
      for (const [id, pending] of this.pending) {
        this.pending.delete(id);
        clearTimeout(pending.timer);
        pending.reject(new FunctionInvokeError(this.name, 'Runtime.ExitError', `Runtime exited with error: ${reason}`));
      }
    });
    const ready = await Promise.race([
      new Promise<WorkerReply>((resolve) =>
        child.on('message', (reply: WorkerReply) => {
          if (reply.type !== 'result') resolve(reply);
        }),
      ),
      once(child, 'exit').then(([code]): WorkerReply => ({
        type: 'init-error',
        error: { name: 'Runtime.ExitError', message: `the environment exited with ${String(code)} during init` },
      })),
      new Promise<WorkerReply>((resolve) =>
        setTimeout(
          () =>
            resolve({
              type: 'init-error',
              error: { name: 'Sandbox.Timedout', message: `init did not finish in ${INIT_LIMIT_MS} ms` },
            }),
          INIT_LIMIT_MS,
        ).unref(),
      ),
    ]);
    if (ready.type === 'init-error') {
      child.kill('SIGKILL');
      throw this.failure(ready.error, 'Runtime.InitError');
    }
    this.child = child;
    return child;
  }

  private failure(error: SerializedError, errorType = error.name): FunctionInvokeError {
    return new FunctionInvokeError(this.name, errorType, error.message, error.stack);
  }
}
