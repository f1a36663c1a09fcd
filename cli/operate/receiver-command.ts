/**
 * What every operator command shares: its input and output, the parsed command line, and finding
 * the receiver from its stack's manifest output with AWS clients closed afterwards.
 */
import { CliExit, type OperatorManifest } from '../../contracts/operations';
import { parseCommand } from '../command-line';
import { type AwsClients, awsClients, type AwsOptions, explainAwsError, OperatorError } from './aws';
import { findReceiver } from './manifest';

export interface OperatorIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Where and as whom to call AWS beyond the command line's --region and --profile (tests). */
  readonly aws?: AwsOptions;
  /** The clock (tests). */
  readonly now?: () => number;
}

export type Values = Record<string, string | boolean | string[] | undefined>;

export function usage(message: string): OperatorError {
  return new OperatorError(message, CliExit.USAGE);
}

/** Parses `args` by the command's spec, finds the receiver and runs `act` with AWS clients that are closed afterwards. */
export async function withReceiver(
  doing: string,
  args: readonly string[],
  io: OperatorIo,
  act: (ctx: { aws: AwsClients; manifest: OperatorManifest; values: Values; positionals: string[] }) => Promise<number>,
  check: (values: Values, positionals: string[]) => void = () => undefined,
): Promise<number> {
  const { values: parsed, positionals } = parseCommand(doing, args);
  const values = parsed as Values & { stack?: string; receiver?: string; region?: string; profile?: string };
  const stack = values.stack;
  if (!stack) throw usage(`${doing} needs --stack <the receiver's stack name>.`);
  // The command line is checked whole before AWS is asked anything.
  check(values, positionals);
  const aws = awsClients({
    ...io.aws,
    ...(values.region ? { region: values.region } : {}),
    ...(values.profile ? { profile: values.profile } : {}),
  });
  try {
    const manifest = await findReceiver(aws.cloudFormation, stack, values.receiver);
    return await act({ aws, manifest, values: values, positionals });
  } catch (error) {
    throw explainAwsError(error, doing);
  } finally {
    aws.destroy();
  }
}
