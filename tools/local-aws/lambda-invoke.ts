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

/** A Lambda context for one invocation, whose remaining time counts down to `deadline` (epoch ms). */
export function lambdaContext(o: {
  functionName: string;
  deadline: number;
  region?: string;
  memoryMb?: string;
  requestId?: string;
}): Context {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: o.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${o.region ?? 'us-east-1'}:000000000000:function:${o.functionName}`,
    memoryLimitInMB: o.memoryMb ?? '512',
    awsRequestId: o.requestId ?? randomUUID(),
    logGroupName: `/aws/lambda/${o.functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, o.deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * Invokes a Lambda handler the way the Lambda runtime does for one request: a context whose
 * getRemainingTimeInMillis counts down from the function's timeout, and a "Task timed out"
 * failure when the handler runs past it.
 */
export async function invokeLocally<E, R>(
  handler: (event: E, context: Context) => Promise<R>,
  event: E,
  options: LocalInvokeOptions = {},
): Promise<R> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const functionName = options.functionName ?? 'local-function';
  const deadline = Date.now() + timeoutMs;
  const context = lambdaContext({ functionName, deadline, region: options.region });
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
