import { Stack, Token } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';
import { adotJsLayerArn, ADOT_JS_LAYER } from './open-telemetry-layers';
import type { PropsValidation } from './props-validation';

/** How the receiver's functions and its APIs' stages are traced. */
export enum TracingMode {
  /** No tracing. */
  OFF = 'OFF',
  /** AWS X-Ray active tracing on every function and on the APIs' stages (the first hop). */
  XRAY = 'XRAY',
  /**
   * AWS's distribution of OpenTelemetry as a layer on every function, its spans sent through
   * Lambda's X-Ray endpoint (so X-Ray active tracing is on too, and on the APIs' stages), and the
   * handlers' own spans (`@opentelemetry/api`) carried across the queues and the bus.
   */
  OPENTELEMETRY = 'OPENTELEMETRY',
}

/** How AWS's OpenTelemetry layer runs, under `TracingMode.OPENTELEMETRY`. */
export interface OpenTelemetryOptions {
  /**
   * ARN of the layer to attach in place of AWS's: a newer version, or a copy in your account.
   * It must be in the stack's region and provide `/opt/otel-instrument`.
   * @default - AWS's `AWSOpenTelemetryDistroJs` layer for the stack's region, from the map this library keeps
   */
  readonly layerArn?: string;
  /**
   * The layer's fast-start mode: a lighter SDK, traces only, for a quicker cold start. It drops
   * span links; a record's span still continues its own trace.
   * @default false
   */
  readonly fastStart?: boolean;
  /**
   * CloudWatch Application Signals' metrics beside the traces (billed by Application Signals).
   * @default false
   */
  readonly applicationSignals?: boolean;
}

/** The tracing props of a part: the mode, its OpenTelemetry options, and the flag it replaces. */
export interface TracingProps {
  /**
   * How the functions (and, on an endpoint, its APIs' stages) are traced.
   * @default TracingMode.OFF
   */
  readonly tracing?: TracingMode;
  /**
   * How AWS's OpenTelemetry layer runs; only with `tracing: TracingMode.OPENTELEMETRY`.
   * @default - AWS's layer for the region, fast start off, Application Signals off
   */
  readonly openTelemetry?: OpenTelemetryOptions;
  /**
   * X-Ray active tracing.
   * @deprecated use `tracing: TracingMode.XRAY`; removed in 1.0
   * @default false
   */
  readonly tracingEnabled?: boolean;
}

const LAYER_ARN = /^arn:aws[a-z-]*:lambda:([a-z0-9-]+):\d{12}:layer:[A-Za-z0-9_-]{1,140}:\d+$/;

/** Checks the tracing props under `prefix`: a known mode, its options only with it, and not both the mode and the flag it replaces. */
export function checkTracing(v: PropsValidation, props: TracingProps, prefix = ''): void {
  const modes = Object.values(TracingMode);
  if (props.tracing !== undefined)
    v.check(
      modes.includes(props.tracing),
      `${prefix}tracing`,
      `must be one of ${modes.map((m) => `TracingMode.${m}`).join(', ')}, got "${props.tracing}"`,
    );
  v.check(
    props.tracing === undefined || props.tracingEnabled === undefined,
    `${prefix}tracingEnabled`,
    'is deprecated, and tracing is set too: keep tracing alone (tracingEnabled: true is tracing: TracingMode.XRAY)',
  );
  checkTracingRegion(v, props, prefix);
  if (props.openTelemetry === undefined) return;
  v.check(
    props.tracing === TracingMode.OPENTELEMETRY,
    `${prefix}openTelemetry`,
    `only applies to tracing: TracingMode.OPENTELEMETRY, got tracing ${props.tracing ?? 'unset'}: set that mode or remove openTelemetry`,
  );
  const arn = props.openTelemetry.layerArn;
  if (arn !== undefined && !Token.isUnresolved(arn)) {
    v.check(
      LAYER_ARN.test(arn),
      `${prefix}openTelemetry.layerArn`,
      `must be a Lambda layer version ARN such as arn:aws:lambda:sa-east-1:123456789012:layer:name:3, got "${arn}"`,
    );
  }
}

/** What is wrong with the OpenTelemetry layer in `region` (the layer given, or AWS's for it), if anything. */
function layerProblem(region: string, props: TracingProps): { prop: string; message: string } | undefined {
  const given = props.openTelemetry?.layerArn;
  if (given !== undefined) {
    const layerRegion = Token.isUnresolved(given) ? undefined : LAYER_ARN.exec(given)?.[1];
    if (layerRegion && !Token.isUnresolved(region) && layerRegion !== region)
      return {
        prop: 'openTelemetry.layerArn',
        message: `is in ${layerRegion} and the stack in ${region}; Lambda attaches only a layer of the function's region: pass that region's ARN`,
      };
    return undefined;
  }
  if (Token.isUnresolved(region))
    return {
      prop: 'tracing',
      message:
        "is TracingMode.OPENTELEMETRY, which needs the stack's region to choose AWS's layer, and the stack has none: give the stack an env with a region, or pass openTelemetry.layerArn",
    };
  // The library's functions are arm64 (BundledFunction).
  if (!adotJsLayerArn(region, lambda.Architecture.ARM_64.name))
    return {
      prop: 'openTelemetry.layerArn',
      message: `is needed: AWS publishes no ${ADOT_JS_LAYER.name} layer in ${region} for arm64 that this library knows (ADOT ${ADOT_JS_LAYER.release}): pass one`,
    };
  return undefined;
}

/** Checks the OpenTelemetry layer against the stack's region (with the other props' problems, thrown once). */
function checkTracingRegion(v: PropsValidation, props: TracingProps, prefix = ''): void {
  if (props.tracing !== TracingMode.OPENTELEMETRY || v.region === undefined) return;
  const problem = layerProblem(v.region, props);
  if (problem) v.check(false, `${prefix}${problem.prop}`, problem.message);
}

/** Whether X-Ray active tracing is on (OpenTelemetry sends its spans through it). */
export function xrayTracing(props: TracingProps): boolean {
  if (props.tracing === undefined) return props.tracingEnabled === true;
  return props.tracing === TracingMode.XRAY || props.tracing === TracingMode.OPENTELEMETRY;
}

/** The OpenTelemetry layer a part's functions run with: its ARN and the layer's switches. */
export interface ResolvedOpenTelemetry {
  readonly layerArn: string;
  readonly fastStart: boolean;
  readonly applicationSignals: boolean;
}

/**
 * The layer `scope`'s functions run with under `TracingMode.OPENTELEMETRY`, or undefined in
 * another mode. AWS's layer is looked up by the stack's region; a layer given by the user must be
 * in that region (Lambda attaches no other).
 */
export function openTelemetryLayer(scope: IConstruct, props: TracingProps): ResolvedOpenTelemetry | undefined {
  if (props.tracing !== TracingMode.OPENTELEMETRY) return undefined;
  const region = Stack.of(scope).region;
  // The construct's props check reports this with the others; a caller that skipped it still gets it.
  const problem = layerProblem(region, props);
  if (problem) throw new Error(`${scope.node.path}: ${problem.prop}: ${problem.message}`);
  return {
    layerArn: props.openTelemetry?.layerArn ?? adotJsLayerArn(region, lambda.Architecture.ARM_64.name)!,
    fastStart: props.openTelemetry?.fastStart ?? false,
    applicationSignals: props.openTelemetry?.applicationSignals ?? false,
  };
}
