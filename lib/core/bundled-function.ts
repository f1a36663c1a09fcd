import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Duration } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { acknowledgeInherent, acknowledgeVpcAccessPolicy, ROLE_POLICY_REASON } from './compliance';
import type { FunctionNetworkProps } from './function-network';

/**
 * The bundled code of one of the library's handlers, as built by `npm run build` into
 * `dist/handlers/<name>/`. Found relative to this file both when the library runs compiled
 * (dist/lib/core -> dist/handlers) and from its TypeScript sources (lib/core -> dist/handlers).
 */
export function handlerCode(name: string): lambda.Code {
  const candidates = [join(__dirname, '..', '..', 'handlers', name), join(__dirname, '..', '..', 'dist', 'handlers', name)];
  const found = candidates.find((dir) => existsSync(join(dir, 'index.js')));
  if (!found) {
    throw new Error(
      `The bundled '${name}' handler was not found (looked in ${candidates.join(' and ')}). ` +
        'In a checkout of cdk-bank-webhooks, run `npm run build`; an installed package ships it in dist/handlers.',
    );
  }
  return lambda.Code.fromAsset(found);
}

/** What differs between the library's functions. */
export interface BundledFunctionOptions {
  /** The handler's bundle (`dist/handlers/<bundle>`). */
  readonly bundle: string;
  readonly description: string;
  readonly timeout: Duration;
  readonly memorySize: number;
  readonly role: iam.IRole;
  readonly logGroup: logs.ILogGroup;
  /** X-Ray active tracing. @default false */
  readonly tracing?: boolean;
  readonly environment?: Record<string, string>;
  /** VPC, subnets and security groups. @default - not in a VPC */
  readonly network?: FunctionNetworkProps;
  /** Why the function has no dead-letter queue for asynchronous invocations (acknowledged in the compliance packs that ask for one). */
  readonly whyNoDeadLetterQueue: string;
  /** Why the function has no reserved concurrency (acknowledged in the compliance packs that ask for it). */
  readonly whyNoReservedConcurrency: string;
}

/**
 * One of the library's functions, made the one way they all are: a pre-bundled handler (no
 * esbuild or Docker for consumers) on the latest Node runtime, arm64, JSON logs into its own log
 * group, source maps on, in the caller's scope under `id` (so construct paths stay put).
 */
export function bundledFunction(scope: Construct, id: string, options: BundledFunctionOptions): lambda.Function {
  const fn = new lambda.Function(scope, id, {
    description: options.description,
    runtime: lambda.Runtime.NODEJS_24_X,
    architecture: lambda.Architecture.ARM_64,
    handler: 'index.handler',
    code: handlerCode(options.bundle),
    timeout: options.timeout,
    memorySize: options.memorySize,
    role: options.role,
    logGroup: options.logGroup,
    loggingFormat: lambda.LoggingFormat.JSON,
    ...(options.tracing !== undefined ? { tracing: options.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED } : {}),
    environment: { ...options.environment, NODE_OPTIONS: '--enable-source-maps' },
    ...options.network,
  });
  acknowledgeInherent(fn, 'LambdaDLQ', options.whyNoDeadLetterQueue);
  acknowledgeInherent(fn, 'LambdaConcurrency', options.whyNoReservedConcurrency);
  acknowledgeInherent(options.role, 'IAMNoInlinePolicy', ROLE_POLICY_REASON);
  if (options.network?.vpc) {
    acknowledgeVpcAccessPolicy(options.role);
  }
  return fn;
}
