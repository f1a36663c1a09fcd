import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { acknowledgeInherent, acknowledgeVpcAccessPolicy, ROLE_POLICY_REASON } from './compliance';
import type { FunctionNetworkProps } from './function-network';
import { allowLogsToUse } from './log-encryption';
import { environmentSizeValidation } from './environment-size';
import { ADOT_ENV, ADOT_MANAGED_POLICY } from './open-telemetry-layers';
import type { ResolvedOpenTelemetry } from './tracing';

/**
 * The bundled code of one of the library's handlers, as built by `npm run build` into
 * `dist/handlers/<name>/`. Found relative to this file both when the library runs compiled
 * (dist/lib/core -> dist/handlers) and from its TypeScript sources (lib/core -> dist/handlers).
 */
function handlerCode(name: string): lambda.Code {
  const candidates = [
    join(__dirname, '..', '..', 'handlers', name),
    join(__dirname, '..', '..', 'dist', 'handlers', name),
  ];
  const found = candidates.find((dir) => existsSync(join(dir, 'index.js')));
  if (!found) {
    throw new Error(
      `The bundled '${name}' handler was not found (looked in ${candidates.join(' and ')}). ` +
        'In a checkout of cdk-bank-webhooks, run `npm run build`; an installed package ships it in dist/handlers.',
    );
  }
  return lambda.Code.fromAsset(found);
}

/** What a function of the library is made with, beside what its class fixes. */
export interface BundledFunctionProps {
  readonly description: string;
  readonly timeout: Duration;
  readonly memorySize: number;
  /** Its log group and role are made beside it, in the same scope, under these ids (construct paths stay put). */
  readonly logGroupId: string;
  readonly roleId: string;
  /** What the role allows, in words. */
  readonly roleDescription: string;
  /** @default logs.RetentionDays.ONE_YEAR */
  readonly logRetention?: logs.RetentionDays;
  /** KMS key of its log group. @default - CloudWatch Logs' own encryption */
  readonly logEncryptionKey?: kms.IKey;
  /** X-Ray active tracing. @default - not set (Lambda's default, off) */
  readonly tracing?: boolean;
  /** AWS's OpenTelemetry layer and its wrapper (with `tracing`, which it sends its spans through). @default - none */
  readonly openTelemetry?: ResolvedOpenTelemetry;
  readonly environment?: Record<string, string>;
  /** VPC, subnets and security groups. @default - not in a VPC */
  readonly network?: FunctionNetworkProps;
}

/** Why a function has no dead-letter queue and no reserved concurrency (acknowledged in the compliance packs that ask for them). */
export interface BundledFunctionDesign {
  /** The handler's bundle (`dist/handlers/<bundle>`). */
  readonly bundle: string;
  readonly whyNoDeadLetterQueue: string;
  readonly whyNoReservedConcurrency: string;
}

/**
 * A function of the library, made the one way they all are: a pre-bundled handler (no esbuild
 * or Docker for consumers) on the latest Node runtime, arm64, JSON logs into its own log group
 * (kept on destroy), source maps on, with a role of its own that only writes that log group until
 * its owner grants more. Each handler has its typed subclass (ReceiverFunction, ProcessorFunction,
 * SweepFunction, ProviderFunction), which fixes its bundle and its compliance reasons.
 */
export abstract class BundledFunction extends lambda.Function {
  /** The function's own log group. */
  public readonly functionLogGroup: logs.LogGroup;

  protected constructor(scope: Construct, id: string, design: BundledFunctionDesign, props: BundledFunctionProps) {
    allowLogsToUse(scope, props.logEncryptionKey);
    const logGroup = new logs.LogGroup(scope, props.logGroupId, {
      retention: props.logRetention ?? logs.RetentionDays.ONE_YEAR,
      removalPolicy: RemovalPolicy.RETAIN,
      encryptionKey: props.logEncryptionKey,
    });
    const role = new iam.Role(scope, props.roleId, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: props.roleDescription,
    });
    logGroup.grantWrite(role);
    super(scope, id, {
      description: props.description,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      handler: 'index.handler',
      code: handlerCode(design.bundle),
      timeout: props.timeout,
      memorySize: props.memorySize,
      role,
      logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      ...(props.tracing !== undefined
        ? { tracing: props.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED }
        : {}),
      environment: {
        ...props.environment,
        NODE_OPTIONS: '--enable-source-maps',
        ...openTelemetryEnvironment(props.openTelemetry),
      },
      ...props.network,
    });
    if (props.openTelemetry) this.addOpenTelemetry(role, props.openTelemetry);
    this.functionLogGroup = logGroup;
    // Lambda takes 4 KB of environment in all: a stack that could resolve to more fails at synth, not mid-deploy.
    this.node.addValidation(environmentSizeValidation(this));
    acknowledgeInherent(this, 'LambdaDLQ', design.whyNoDeadLetterQueue);
    acknowledgeInherent(this, 'LambdaConcurrency', design.whyNoReservedConcurrency);
    acknowledgeInherent(role, 'IAMNoInlinePolicy', ROLE_POLICY_REASON);
    if (props.network?.vpc) acknowledgeVpcAccessPolicy(role);
    if (props.tracing) {
      Validations.of(role).acknowledge({
        id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
        reason:
          'X-Ray tracing (TracingMode.XRAY or OPENTELEMETRY) needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions.',
      });
    }
  }

  /** AWS's layer, and the managed policy AWS's instructions give its role. */
  private addOpenTelemetry(role: iam.Role, otel: ResolvedOpenTelemetry): void {
    this.addLayers(lambda.LayerVersion.fromLayerVersionArn(this, 'OpenTelemetryLayer', otel.layerArn));
    role.addManagedPolicy(iam.ManagedPolicy.fromAwsManagedPolicyName(ADOT_MANAGED_POLICY));
    Validations.of(role).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${ADOT_MANAGED_POLICY}]`,
      reason:
        "AWS's managed policy for its OpenTelemetry layer (tracing: TracingMode.OPENTELEMETRY), as AWS's instructions attach it: X-Ray writes and the Application Signals log group, kept current by AWS as the layer changes.",
    });
  }

  /** Adds a statement to the function's own role. */
  public allow(statement: iam.PolicyStatement): void {
    this.role!.addToPrincipalPolicy(statement);
  }
}

/** The variables AWS's layer reads: its wrapper, fast start, and Application Signals. */
function openTelemetryEnvironment(otel: ResolvedOpenTelemetry | undefined): Record<string, string> {
  if (!otel) return {};
  return {
    [ADOT_ENV.wrapper[0]]: ADOT_ENV.wrapper[1],
    [ADOT_ENV.applicationSignals]: String(otel.applicationSignals),
    ...(otel.fastStart ? { [ADOT_ENV.fastStart]: 'true' } : {}),
  };
}
