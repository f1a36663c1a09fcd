/**
 * AWS's distribution of OpenTelemetry for JavaScript on Lambda (`AWSOpenTelemetryDistroJs`), as
 * this library attaches it under `TracingMode.OPENTELEMETRY`: one layer per region, for arm64 and
 * x86_64 alike (published with both architectures and the nodejs18.x to nodejs24.x runtimes).
 *
 * Source: AWS's ADOT documentation, "ADOT Lambda Layer ARNs" (aws-otel/aws-otel.github.io,
 * `src/config/lambdaLayerArns.js`, Node.js tab, as updated for ADOT Node.js v0.12.0 on 2026-07-02
 * and unchanged to 2026-07-22). To move to a newer release, follow docs/tracing.md, "Keeping the
 * layer map current": the `@opentelemetry/api` the handlers bundle moves with it.
 */
export const ADOT_JS_LAYER = {
  /** The ADOT JavaScript release the map's versions hold. */
  release: 'v0.12.0',
  /**
   * The `@opentelemetry/api` its SDK registers. A handler's api finds the SDK only when its own
   * minor version is not newer than this one: package.json pins the same version, and a test
   * holds the two together.
   */
  openTelemetryApi: '1.9.1',
  /** The layer's name in every region. */
  name: 'AWSOpenTelemetryDistroJs',
  /**
   * The architectures each region's layer is published for (its release workflow's
   * `--compatible-architectures`): one layer serves both, so the map has one ARN a region. Were
   * AWS to publish one a architecture, the map would gain the architecture as a key.
   */
  architectures: ['arm64', 'x86_64'] as readonly string[],
  /** Region: the account that publishes the layer there, and the layer's version. */
  regions: {
    'af-south-1': ['904233096616', 15],
    'ap-east-1': ['888577020596', 15],
    'ap-east-2': ['412664885777', 4],
    'ap-northeast-1': ['615299751070', 15],
    'ap-northeast-2': ['615299751070', 15],
    'ap-northeast-3': ['615299751070', 15],
    'ap-south-1': ['615299751070', 15],
    'ap-south-2': ['796973505492', 15],
    'ap-southeast-1': ['615299751070', 15],
    'ap-southeast-2': ['615299751070', 15],
    'ap-southeast-3': ['039612877180', 15],
    'ap-southeast-4': ['713881805771', 15],
    'ap-southeast-5': ['152034782359', 8],
    'ap-southeast-6': ['313828097273', 3],
    'ap-southeast-7': ['980416031188', 8],
    'ca-central-1': ['615299751070', 15],
    'ca-west-1': ['595944127152', 8],
    'cn-north-1': ['440179912924', 8],
    'cn-northwest-1': ['440180067931', 8],
    'eu-central-1': ['615299751070', 15],
    'eu-central-2': ['156041407956', 15],
    'eu-north-1': ['615299751070', 15],
    'eu-south-1': ['257394471194', 15],
    'eu-south-2': ['490004653786', 15],
    'eu-west-1': ['615299751070', 15],
    'eu-west-2': ['615299751070', 15],
    'eu-west-3': ['615299751070', 15],
    'il-central-1': ['746669239226', 15],
    'me-central-1': ['739275441131', 15],
    'me-south-1': ['980921751758', 12],
    'mx-central-1': ['610118373846', 8],
    'sa-east-1': ['615299751070', 15],
    'us-east-1': ['615299751070', 15],
    'us-east-2': ['615299751070', 15],
    'us-west-1': ['615299751070', 15],
    'us-west-2': ['615299751070', 15],
  } as Readonly<Record<string, readonly [account: string, version: number]>>,
} as const;

/** The layer's ARN in `region` for functions of `architecture` (Lambda's name, `arm64`), or undefined where AWS publishes none. */
export function adotJsLayerArn(region: string, architecture = 'arm64'): string | undefined {
  const entry = ADOT_JS_LAYER.regions[region];
  if (!entry || !ADOT_JS_LAYER.architectures.includes(architecture)) return undefined;
  const partition = region.startsWith('cn-') ? 'aws-cn' : 'aws';
  return `arn:${partition}:lambda:${region}:${entry[0]}:layer:${ADOT_JS_LAYER.name}:${entry[1]}`;
}

/** The environment AWS's layer reads (its `otel-instrument` wrapper). */
export const ADOT_ENV = {
  /** Lambda runs the handler through the layer's wrapper. */
  wrapper: ['AWS_LAMBDA_EXEC_WRAPPER', '/opt/otel-instrument'],
  /** The lite SDK: traces only, sent to Lambda's X-Ray daemon; a quicker cold start. */
  fastStart: 'OTEL_AWS_LAMBDA_FAST_START',
  /** CloudWatch Application Signals' metrics beside the traces (the layer's own default is on). */
  applicationSignals: 'OTEL_AWS_APPLICATION_SIGNALS_ENABLED',
} as const;

/** The managed policy AWS's instructions attach to a function's role with the layer. */
export const ADOT_MANAGED_POLICY = 'CloudWatchLambdaApplicationSignalsExecutionRolePolicy';
