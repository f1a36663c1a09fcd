import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoopbackServer, readRequestBody } from './json-protocol-server';

/** What a local function answers an invocation with (a thrown error is a function error). */
export type LocalInvoke = (payload: unknown) => Promise<unknown>;

/**
 * A local endpoint that speaks Lambda's Invoke (REST-JSON: `POST /2015-03-31/functions/<name>/invocations`,
 * RequestResponse) for the functions it is given by name, so the real `@aws-sdk/client-lambda` can
 * be pointed at it (`AWS_ENDPOINT_URL_LAMBDA`). A function that throws answers 200 with
 * `X-Amz-Function-Error: Unhandled` and the error, as Lambda does. Loopback only.
 */
export class LocalLambda extends LoopbackServer {
  private readonly functions = new Map<string, LocalInvoke>();

  constructor() {
    super('Lambda');
  }

  /** Serves `name` (a function name or ARN ending in it) with `invoke`. */
  serve(name: string, invoke: LocalInvoke): void {
    this.functions.set(name, invoke);
  }

  protected async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readRequestBody(req);
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
      res.end(JSON.stringify(body ?? null));
    };
    const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations/.exec(req.url ?? '');
    if (req.method !== 'POST' || !match)
      return reply(
        400,
        { Type: 'User', message: `${req.method} ${req.url} is not supported by the local Lambda` },
        { 'x-amzn-ErrorType': 'InvalidRequestContentException' },
      );
    const name = decodeURIComponent(match[1]).split(':').pop()!;
    const invoke = this.functions.get(name);
    if (!invoke)
      return reply(
        404,
        { Type: 'User', message: `Function not found: ${name}` },
        { 'x-amzn-ErrorType': 'ResourceNotFoundException' },
      );
    let payload: unknown;
    try {
      payload = body.length ? JSON.parse(body.toString('utf8')) : {};
    } catch {
      return reply(
        400,
        { Type: 'User', message: 'Could not parse request body into json' },
        { 'x-amzn-ErrorType': 'InvalidRequestContentException' },
      );
    }
    try {
      reply(200, await invoke(payload), { 'X-Amz-Executed-Version': '$LATEST' });
    } catch (error) {
      reply(
        200,
        { errorType: (error as Error).name ?? 'Error', errorMessage: (error as Error).message ?? String(error) },
        { 'X-Amz-Function-Error': 'Unhandled', 'X-Amz-Executed-Version': '$LATEST' },
      );
    }
  }
}
