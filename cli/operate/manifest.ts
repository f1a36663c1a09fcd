/** Finds a receiver's operator manifest among its stack's outputs. */
import { type CloudFormationClient, DescribeStacksCommand, type Output } from '@aws-sdk/client-cloudformation';
import { CliExit, OPERATOR_MANIFEST_KIND, type OperatorManifest } from '../../contracts/operations';
import { explainAwsError, OperatorError } from './aws';
import { quoted, printable } from '../table';

/** The manifest an output holds, or undefined when it holds none. */
function manifestOf(output: Output): OperatorManifest | undefined {
  try {
    const value = JSON.parse(output.OutputValue ?? '') as Partial<OperatorManifest>;
    return value?.kind === OPERATOR_MANIFEST_KIND ? (value as OperatorManifest) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The manifest of the receiver `receiver` (its receiverName) in stack `stack`, or of the only
 * receiver there. Throws an OperatorError (NOT_FOUND) that names what there is.
 */
export async function findReceiver(
  cloudFormation: CloudFormationClient,
  stack: string,
  receiver?: string,
): Promise<OperatorManifest> {
  let outputs: Output[];
  try {
    const { Stacks: stacks } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stack }));
    outputs = stacks?.[0]?.Outputs ?? [];
  } catch (error) {
    if (/does not exist/i.test((error as Error).message ?? '')) {
      throw new OperatorError(
        `Stack ${quoted(stack)} was not found in this account and region: check --stack, --region and --profile.`,
        CliExit.NOT_FOUND,
      );
    }
    throw explainAwsError(error, `reading stack ${quoted(stack)}`);
  }
  const manifests = outputs.flatMap((output) => {
    const m = manifestOf(output);
    return m ? [m] : [];
  });
  if (!manifests.length) {
    throw new OperatorError(
      `Stack ${quoted(stack)} has no cdk-bank-webhooks receiver (no operator manifest among its outputs): is it deployed with this version of the library?`,
      CliExit.NOT_FOUND,
    );
  }
  const names = manifests.map((m) => printable(m.receiverName)).join(', ');
  if (receiver === undefined) {
    if (manifests.length > 1)
      throw new OperatorError(
        `Stack ${quoted(stack)} has ${manifests.length} receivers (${names}): name one with --receiver.`,
        CliExit.NOT_FOUND,
      );
    return manifests[0];
  }
  const found = manifests.find((m) => m.receiverName === receiver);
  if (!found)
    throw new OperatorError(
      `Stack ${quoted(stack)} has no receiver named ${quoted(receiver)} (it has: ${names}).`,
      CliExit.NOT_FOUND,
    );
  return found;
}
