/**
 * The AWS clients the operator commands use, made once per command from the operator's own
 * credentials (the SDK's default chain: environment, profile, SSO, instance role), and the
 * errors that mean "AWS could not be reached as asked", told apart from the rest.
 */
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { STSClient } from '@aws-sdk/client-sts';
import { CliExit } from '../../contracts/operations';

/** Where and as whom the commands call AWS. */
export interface AwsOptions {
  /** `--region`; else AWS_REGION or the profile's. */
  readonly region?: string;
  /** `--profile`; else AWS_PROFILE or the default. */
  readonly profile?: string;
  /** Endpoints by service (tests and the local runner); else the SDK's, or AWS_ENDPOINT_URL_<SERVICE>. */
  readonly endpoints?: Partial<
    Record<
      | 'CLOUDFORMATION'
      | 'CLOUDWATCH'
      | 'CLOUDWATCH_LOGS'
      | 'DYNAMODB'
      | 'EVENTBRIDGE'
      | 'LAMBDA'
      | 'S3'
      | 'SQS'
      | 'STS',
      string
    >
  >;
  /** Credentials in place of the default chain (tests). */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

export interface AwsClients {
  readonly cloudFormation: CloudFormationClient;
  readonly cloudWatch: CloudWatchClient;
  /** The audit log's reader. */
  readonly logs: CloudWatchLogsClient;
  readonly dynamo: DynamoDBClient;
  readonly events: EventBridgeClient;
  readonly lambda: LambdaClient;
  readonly s3: S3Client;
  readonly sqs: SQSClient;
  /** Who the operator is (`dlq delete` records it). */
  readonly sts: STSClient;
  destroy(): void;
}

export function awsClients(options: AwsOptions): AwsClients {
  const base = {
    ...(options.region ? { region: options.region } : {}),
    ...(options.profile ? { profile: options.profile } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    maxAttempts: 4,
  };
  const at = (service: keyof NonNullable<AwsOptions['endpoints']>) =>
    options.endpoints?.[service] ? { endpoint: options.endpoints[service] } : {};
  // An endpoint of one's own (given, or AWS_ENDPOINT_URL[_<SERVICE>] from a shell: a local stack) is
  // used as given: S3 by path, SQS at that endpoint rather than at the host its queue URLs name.
  const ownEndpoint = (service: 'S3' | 'SQS') =>
    !!(options.endpoints?.[service] ?? process.env[`AWS_ENDPOINT_URL_${service}`] ?? process.env.AWS_ENDPOINT_URL);
  const clients = {
    cloudFormation: new CloudFormationClient({ ...base, ...at('CLOUDFORMATION') }),
    cloudWatch: new CloudWatchClient({ ...base, ...at('CLOUDWATCH') }),
    logs: new CloudWatchLogsClient({ ...base, ...at('CLOUDWATCH_LOGS') }),
    dynamo: new DynamoDBClient({ ...base, ...at('DYNAMODB') }),
    events: new EventBridgeClient({ ...base, ...at('EVENTBRIDGE') }),
    // A sweep runs up to its timeout (5 minutes): the client waits for it.
    lambda: new LambdaClient({ ...base, ...at('LAMBDA'), requestHandler: { requestTimeout: 15 * 60_000 } }),
    // A local endpoint answers path-style addresses only.
    s3: new S3Client({ ...base, ...at('S3'), ...(ownEndpoint('S3') ? { forcePathStyle: true } : {}) }),
    sqs: new SQSClient({ ...base, ...at('SQS'), ...(ownEndpoint('SQS') ? { useQueueUrlAsEndpoint: false } : {}) }),
    sts: new STSClient({ ...base, ...at('STS') }),
  };
  return { ...clients, destroy: () => Object.values(clients).forEach((client) => client.destroy()) };
}

/** An error the command reports as it is, with its exit status. */
export class OperatorError extends Error {
  constructor(
    message: string,
    readonly exit: CliExit,
  ) {
    super(message);
  }
}

const NAME = (error: unknown): string => String((error as { name?: string })?.name ?? '');

/**
 * The error as the operator should read it: no credentials, no region, access denied, expired
 * tokens and no connection to AWS's endpoint become an OperatorError with exit AWS_ACCESS and
 * what to do; others are kept.
 */
export function explainAwsError(error: unknown, doing: string): Error {
  if (error instanceof OperatorError) return error;
  const name = NAME(error);
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'CredentialsProviderError' || /Could not load credentials/i.test(message)) {
    return new OperatorError(
      `No AWS credentials for ${doing}: ${message}. Sign in (aws sso login, or set AWS_PROFILE / AWS_ACCESS_KEY_ID), or pass --profile.`,
      CliExit.AWS_ACCESS,
    );
  }
  // The socket's code, on the error, its cause, or only in its message (the SDK wraps what is not an Error of its realm).
  const NETWORK =
    /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH|ENETUNREACH|CERT_HAS_EXPIRED|UNABLE_TO_VERIFY_LEAF_SIGNATURE|DEPTH_ZERO_SELF_SIGNED_CERT)\b/;
  const code = String(
    (error as { code?: string })?.code ??
      (error as { cause?: { code?: string } })?.cause?.code ??
      NETWORK.exec(message)?.[1] ??
      '',
  );
  if (NETWORK.test(code) || /^(TimeoutError|NetworkingError)$/.test(name)) {
    return new OperatorError(
      `AWS could not be reached for ${doing} (${code || name}): ${message}. Check the network, the region, and any AWS_ENDPOINT_URL_* you set.`,
      CliExit.AWS_ACCESS,
    );
  }
  if (/Region is missing/i.test(message)) {
    return new OperatorError(`No AWS region for ${doing}: pass --region, or set AWS_REGION.`, CliExit.AWS_ACCESS);
  }
  if (
    /^(AccessDenied|AccessDeniedException|UnauthorizedOperation|AuthorizationError|ExpiredToken|ExpiredTokenException|InvalidClientTokenId|UnrecognizedClientException|InvalidAccessKeyId|SignatureDoesNotMatch)$/.test(
      name,
    )
  ) {
    // The queues the library makes deny SendMessage to every role not named (an explicit deny in their resource policy).
    const queueDeny = /sqs:SendMessage/i.test(message)
      ? " Each queue the library makes refuses senders it was not told of: name this role in the receiver's operatorRoles (onVerifiedEvent's for a consumer's queue) and deploy."
      : '';
    return new OperatorError(
      `AWS refused ${doing} (${name}): ${message}.${queueDeny} The operator's role needs the permissions listed in docs/operations.md, "The operator CLI".`,
      CliExit.AWS_ACCESS,
    );
  }
  return error instanceof Error ? error : new Error(message);
}
