import { type CfnResource, Stack, Token } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { IValidation } from 'constructs';

/** Lambda's limit on all of a function's environment variables together (names and values, as resolved), in bytes. */
export const LAMBDA_ENVIRONMENT_LIMIT_BYTES = 4096;

/** The longest a pseudo-parameter resolves to (regions such as `ap-southeast-5`, `aws-us-gov`, `amazonaws.com.cn`). */
const PSEUDO_BOUNDS: Record<string, number> = {
  'AWS::Region': 16,
  'AWS::AccountId': 12,
  'AWS::Partition': 10,
  'AWS::URLSuffix': 16,
  'AWS::NoValue': 0,
};

/** What an intrinsic nothing below recognises may resolve to: a long ARN. */
const UNKNOWN_BOUND = 256;
/** `arn:<partition>:<service>:<region>:<account>:` at its longest, before the resource part. */
const ARN_PREFIX = 'arn:aws-us-gov:secretsmanager:ap-southeast-5:123456789012:'.length;

/**
 * At most how long CloudFormation resolves an intrinsic to, by what it refers to: each resource
 * type's `Ref`/`Fn::GetAtt` value with a name generated from the stack's name and the logical id
 * (CloudFormation's `<stack>-<logicalId>-<suffix>`) where the resource sets none.
 */
export class ResolvedSizeEstimate {
  private readonly resources = new Map<string, CfnResource>();

  constructor(private readonly stack: Stack) {
    for (const node of stack.node.findAll()) {
      const resource = node as CfnResource;
      if (typeof resource.cfnResourceType === 'string' && resource.stack === stack)
        this.resources.set(stack.resolve(resource.logicalId) as string, resource);
    }
  }

  /** At most how many bytes `value` (a resolved template value) is once CloudFormation resolves it, as JSON text inside a string. */
  bytes(value: unknown): number {
    if (typeof value === 'string') return Buffer.byteLength(value);
    if (typeof value === 'number' || typeof value === 'boolean') return String(value).length;
    if (!value || typeof value !== 'object') return 0;
    const [fn, args] = Object.entries(value as Record<string, unknown>)[0] ?? [];
    switch (fn) {
      case 'Fn::Join': {
        const [separator, parts] = args as [string, unknown[]];
        return (
          parts.reduce<number>((total, part) => total + this.bytes(part), 0) +
          Math.max(0, parts.length - 1) * separator.length
        );
      }
      case 'Fn::Select': {
        // One part of a list: at most the whole list's text (a split) or its longest element.
        const [, list] = args as [unknown, unknown];
        return Array.isArray(list) ? Math.max(0, ...list.map((item) => this.bytes(item))) : this.bytes(list);
      }
      case 'Fn::Split':
        return this.bytes((args as [string, unknown])[1]);
      case 'Ref':
        return this.refBound(args as string);
      case 'Fn::GetAtt':
        return this.attributeBound(...(args as [string, string]));
      default:
        return UNKNOWN_BOUND;
    }
  }

  /** A name CloudFormation generates for `logicalId`, or the one the resource sets. */
  private nameOf(logicalId: string, property: string, limit: number): number {
    const props = (this.resources.get(logicalId) as unknown as { [key: string]: unknown } | undefined)?.[property];
    if (typeof props === 'string' && !Token.isUnresolved(props)) return props.length;
    return Math.min(limit, this.stack.stackName.length + logicalId.length + 15);
  }

  private refBound(logicalId: string): number {
    if (logicalId in PSEUDO_BOUNDS) return PSEUDO_BOUNDS[logicalId];
    if (logicalId === 'AWS::StackName') return this.stack.stackName.length;
    if (logicalId === 'AWS::StackId') return ARN_PREFIX + 'stack/'.length + this.stack.stackName.length + 37;
    switch (this.resources.get(logicalId)?.cfnResourceType) {
      case 'AWS::SQS::Queue':
        return (
          'https://sqs.ap-southeast-5.amazonaws.com.cn/123456789012/'.length + this.nameOf(logicalId, 'queueName', 80)
        );
      case 'AWS::DynamoDB::Table':
        return this.nameOf(logicalId, 'tableName', 255);
      case 'AWS::Events::EventBus':
        return this.nameOf(logicalId, 'name', 256);
      case 'AWS::S3::Bucket':
        return 63;
      case 'AWS::SecretsManager::Secret':
        return ARN_PREFIX + 'secret:'.length + this.nameOf(logicalId, 'name', 512) + 7;
      case 'AWS::ApiGateway::RestApi':
        return 10;
      case 'AWS::Lambda::Function':
        return this.nameOf(logicalId, 'functionName', 64);
      default:
        return UNKNOWN_BOUND;
    }
  }

  private attributeBound(logicalId: string, attribute: string): number {
    // `https://<32-character id>.lambda-url.<region>.on.aws/`
    if (attribute === 'FunctionUrl')
      return 'https://'.length + 32 + '.lambda-url.'.length + PSEUDO_BOUNDS['AWS::Region'] + '.on.aws/'.length;
    if (attribute === 'Arn' || attribute.endsWith('.Arn')) return ARN_PREFIX + 20 + this.refBound(logicalId);
    // IAM's unique ids (a role's `AROA...`) are at most 128 characters.
    if (attribute === 'RoleId') return 128;
    return UNKNOWN_BOUND;
  }
}

/** At most how many bytes each of a function's environment variables (name and value) resolves to. */
export function environmentBytes(fn: lambda.Function): {
  readonly total: number;
  readonly variables: ReadonlyArray<{ readonly name: string; readonly bytes: number }>;
} {
  const stack = Stack.of(fn);
  const resolved = stack.resolve((fn.node.defaultChild as lambda.CfnFunction).environment) as
    { variables?: Record<string, unknown> } | undefined;
  const estimate = new ResolvedSizeEstimate(stack);
  const variables = Object.entries(resolved?.variables ?? {}).map(([name, value]) => ({
    name,
    bytes: name.length + estimate.bytes(value),
  }));
  return { total: variables.reduce((sum, v) => sum + v.bytes, 0), variables };
}

/**
 * Fails synthesis when a function's environment could resolve to more than Lambda takes (4 KB for
 * every variable together): a deploy would fail late, after the stack had started changing. The
 * check bounds each reference by the longest value it can resolve to, so it errs large.
 */
export function environmentSizeValidation(fn: lambda.Function): IValidation {
  return {
    validate: () => {
      const { total, variables } = environmentBytes(fn);
      if (total <= LAMBDA_ENVIRONMENT_LIMIT_BYTES) return [];
      const largest = [...variables]
        .sort((a, b) => b.bytes - a.bytes)
        .map((v) => `${v.name} ${v.bytes}`)
        .join(', ');
      return [
        `its environment variables could resolve to ${total} bytes, over Lambda's ${LAMBDA_ENVIRONMENT_LIMIT_BYTES} for all of them together (${largest}): ` +
          "a deploy would fail. Split the registrations (each boleto contract adds to the reconciliation sweep's settings) across receivers, or shorten the stack's name.",
      ];
    },
  };
}
