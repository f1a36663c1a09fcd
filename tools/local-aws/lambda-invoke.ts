import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

export interface LocalInvokeOptions {
  /** @default 'local-function' */
  readonly functionName?: string;
  /** The function's timeout: the context counts down from it, and the invocation fails past it. @default 30000 */
  readonly timeoutMs?: number;
  /** @default 'us-east-1' */
  readonly region?: string;
}

/**
 * Invokes a Lambda handler the way the Lambda runtime does for one request: a context whose
 * getRemainingTimeInMillis counts down from the function's timeout, and a "Task timed out"
 * failure when the handler runs past it.
 */
export async function invokeLocally<E, R>(handler: (event: E, context: Context) => Promise<R>, event: E, options: LocalInvokeOptions = {}): Promise<R> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const functionName = options.functionName ?? 'local-function';
  const deadline = Date.now() + timeoutMs;
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${options.region ?? 'us-east-1'}:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  } satisfies Context;
  let timer: NodeJS.Timeout | undefined;
  try {
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Task timed out after ${timeoutMs} ms`)), timeoutMs);
    });
    return await Promise.race([handler(event, context), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
