/**
 * `cdk-bank-webhooks sandbox <METHOD> <path> [json]`: one call of a deployed BankSandbox's control
 * API, which answers Lambda Invoke only (IAM decides who may), with the caller's AWS credentials.
 */
import { InvokeCommand } from '@aws-sdk/client-lambda';
import { CliExit } from '../contracts/operations';
import type { SandboxControlEvent, SandboxControlResult } from '../contracts/sandbox';
import { type AwsOptions, awsClients, explainAwsError, OperatorError } from './operate/aws';
import { parseCommand } from './command-line';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export interface SandboxIo {
  readonly out: (text: string) => void;
  readonly aws?: AwsOptions;
}

/** Runs the call; exit 0 on an answer below 400, 1 on an error answer (printed). */
export async function sandboxCommand(args: readonly string[], io: SandboxIo): Promise<number> {
  const { values: parsed, positionals } = parseCommand('sandbox', args);
  const values = parsed as { function?: string; region?: string; profile?: string };
  const usage = (message: string) =>
    new OperatorError(
      `${message} Usage: sandbox <GET|POST|PUT|PATCH|DELETE> <path under /control> [JSON body] --function <the sandbox's function name> (docs/sandbox.md).`,
      CliExit.USAGE,
    );
  if (!values.function)
    throw usage('sandbox needs --function (the stack output SandboxFunctionName, or BankSandbox.sandboxFunction).');
  const [method, path, bodyText, ...rest] = positionals;
  if (rest.length)
    throw usage(`sandbox takes a method, a path and at most one JSON body (got ${positionals.length} arguments).`);
  if (!method || !METHODS.includes(method.toUpperCase()))
    throw usage(`The method must be one of ${METHODS.join(', ')} (got ${method ?? 'none'}).`);
  if (!path?.startsWith('/'))
    throw usage(`The path must start with "/", such as /boletos or /boletos/001000001/settle (got ${path ?? 'none'}).`);
  let body: unknown;
  if (bodyText !== undefined) {
    try {
      body = JSON.parse(bodyText);
    } catch {
      throw usage(`The body must be JSON, such as '{"valor": "10.00"}' (got ${bodyText}).`);
    }
  }
  const aws = awsClients({
    ...io.aws,
    ...(values.region ? { region: values.region } : {}),
    ...(values.profile ? { profile: values.profile } : {}),
  });
  try {
    const event: SandboxControlEvent = {
      sandboxControl: { method: method.toUpperCase(), path: path.replace(/^\/control(?=\/)/, ''), body },
    };
    const answer = await aws.lambda.send(
      new InvokeCommand({
        FunctionName: values.function,
        InvocationType: 'RequestResponse',
        Payload: Buffer.from(JSON.stringify(event)),
      }),
    );
    const text = answer.Payload ? Buffer.from(answer.Payload).toString('utf8') : 'null';
    if (answer.FunctionError) {
      const error = JSON.parse(text) as { errorType?: string; errorMessage?: string };
      throw new OperatorError(
        `The sandbox failed (${error.errorType ?? answer.FunctionError}): ${error.errorMessage ?? text}. Its log group has the details.`,
        CliExit.FAILED,
      );
    }
    const result = JSON.parse(text) as SandboxControlResult;
    io.out(`HTTP ${result.status}`);
    if (result.body !== null && result.body !== undefined) io.out(JSON.stringify(result.body, null, 2));
    return result.status < 400 ? CliExit.OK : CliExit.ATTENTION;
  } catch (error) {
    if ((error as { name?: string }).name === 'ResourceNotFoundException') {
      throw new OperatorError(
        `No function ${values.function} in this account and region: give the sandbox's function name (the staging pair's SandboxFunctionName output), and --region where it is deployed.`,
        CliExit.NOT_FOUND,
      );
    }
    throw explainAwsError(error, 'sandbox');
  } finally {
    aws.destroy();
  }
}
