import { join } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

export const HANDLER_BUNDLE_DIR = join(__dirname, '..', '..', 'dist', 'handlers');

export type ApiHandler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

/**
 * Loads a built handler bundle (the file the construct deploys) as a fresh module instance, the
 * way a new Lambda execution environment would, after setting `env` in process.env. The
 * variables stay set: the AWS SDK reads endpoint and credential settings lazily, at first call.
 */
export function loadHandlerBundle<H = ApiHandler>(name: string, env: Record<string, string>): H {
  Object.assign(process.env, env);
  let handler: H | undefined;
  jest.isolateModules(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the bundle is a built CommonJS file loaded afresh in isolateModules
    handler = (require(join(HANDLER_BUNDLE_DIR, name, 'index.js')) as { handler: H }).handler;
  });
  return handler!;
}

/** Collects what is written to stdout and stderr while `fn` runs (Lambda's log output). */
export async function captureOutput<T>(fn: () => Promise<T>): Promise<{ result: T; output: string }> {
  const chunks: string[] = [];
  const capture = (chunk: unknown): boolean => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  };
  const out = jest.spyOn(process.stdout, 'write').mockImplementation(capture);
  const err = jest.spyOn(process.stderr, 'write').mockImplementation(capture);
  // The metric lines go to fd 1 directly (lambda/shared/metrics.ts), as the Lambda runtime writes its own.
  const fs = jest.requireActual<typeof import('node:fs')>('node:fs');
  const writeSync = fs.writeSync;
  const direct = jest.spyOn(fs, 'writeSync').mockImplementation((fd: number, data: unknown, ...rest: unknown[]) => {
    if (fd !== 1 && fd !== 2) return (writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
    const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data as Uint8Array);
    const offset = typeof rest[0] === 'number' ? rest[0] : 0;
    capture(bytes.subarray(offset));
    return bytes.length - offset;
  });
  try {
    const result = await fn();
    return { result, output: chunks.join('') };
  } finally {
    out.mockRestore();
    err.mockRestore();
    direct.mockRestore();
  }
}

/** The structured (JSON) lines of captured log output; other lines (runtime warnings) are skipped. */
export function jsonLogLines(output: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
