/** LocalFunction runs a handler module in its own process, the way Lambda runs an execution environment. */
import { join } from 'node:path';
import { FunctionInvokeError, LocalFunction } from '../../../tools/local-aws/local-function';
import { waitFor } from '../../support/wait';

const FIXTURE = join(__dirname, 'fixtures', 'handler.ts');
type Answer = {
  pid: number;
  loadedAt: number;
  remainingMs: number;
  greeting?: string;
  memory?: string;
  inheritedJest: string | null;
};

const functions: LocalFunction[] = [];
function localFunction(overrides: Partial<ConstructorParameters<typeof LocalFunction>[0]> = {}): LocalFunction {
  const fn = new LocalFunction({
    name: 'fixture',
    entry: FIXTURE,
    environment: { GREETING: 'olá' },
    timeoutMs: 2_000,
    memoryMb: 256,
    ...overrides,
  });
  functions.push(fn);
  return fn;
}

afterAll(() => Promise.all(functions.map((fn) => fn.stop())));

it("loads the module once and serves invocations with the function's environment only and a counting-down context", async () => {
  const lines: string[] = [];
  const fn = localFunction({ onLog: (line) => lines.push(line) });
  const first = await fn.invoke<Answer>({});
  const second = await fn.invoke<Answer>({});

  expect(first).toMatchObject({ greeting: 'olá', memory: '256', inheritedJest: null });
  expect(first.pid).not.toBe(process.pid);
  expect(second).toMatchObject({ pid: first.pid, loadedAt: first.loadedAt });
  expect(first.remainingMs).toBeGreaterThan(1_000);
  expect(first.remainingMs).toBeLessThanOrEqual(2_000);
  expect(fn.coldStarts).toBe(1);
  await waitFor(
    () => lines.includes(JSON.stringify({ message: 'invoked', functionName: 'fixture' })),
    "the handler's log line",
  );
});

it('reports a thrown error and a timeout the way Lambda does, and keeps serving', async () => {
  const fn = localFunction({ timeoutMs: 300 });
  const thrown = await fn.invoke({ action: 'throw' }).catch((error: unknown) => error);
  expect(thrown).toBeInstanceOf(FunctionInvokeError);
  expect(thrown).toMatchObject({ errorType: 'RangeError', message: 'fixture: RangeError: asked to fail' });
  await expect(fn.invoke({ action: 'sleep', ms: 1_000 })).rejects.toThrow(
    'fixture: Sandbox.Timedout: Task timed out after 0.30 seconds',
  );
  await expect(fn.invoke<Answer>({})).resolves.toMatchObject({ greeting: 'olá' });
});

it('fails the invocations in flight when the environment crashes, and starts a new one for the next', async () => {
  const fn = localFunction();
  const before = await fn.invoke<Answer>({});
  const inFlight = fn.invoke({ action: 'sleep', ms: 1_500 });
  await new Promise((resolve) => setTimeout(resolve, 100));
  await fn.crash();
  await expect(inFlight).rejects.toThrow('fixture: Runtime.ExitError: Runtime exited with error: signal: killed');
  const after = await fn.invoke<Answer>({});
  expect(after.pid).not.toBe(before.pid);
  expect(fn.coldStarts).toBe(2);

  await expect(fn.invoke({ action: 'exit' })).rejects.toThrow('Runtime exited with error: exit status 3');
  await expect(fn.invoke<Answer>({})).resolves.toMatchObject({ greeting: 'olá' });
});

it('names a module that cannot be loaded or has no such export', async () => {
  await expect(localFunction({ entry: join(__dirname, 'fixtures', 'missing.ts') }).invoke({})).rejects.toThrow(
    /fixture: Runtime.InitError: Cannot find module .*missing\.ts/,
  );
  await expect(localFunction({ exportName: 'notAFunction' }).invoke({})).rejects.toThrow(
    `fixture: Runtime.InitError: ${FIXTURE} does not export a function named "notAFunction"`,
  );
});
