/**
 * Reads a synthesized CloudFormation template the way a deploy would wire it, so the local
 * runner takes every setting from the same constructs `cdk deploy` ships: the functions'
 * environment, timeouts and memory, the queue's redrive and visibility settings, the event
 * source mapping, and the registrations' custom resource properties. Intrinsic functions are
 * resolved against the local peers (fauxqs queue URLs, dynalite table names, local secret ARNs).
 */
import { PROCESSOR_SETTINGS_ENV, type ProcessorSettings } from '../../contracts/processor';
import { verificationWindowSeconds } from '../../lib/processor/processor-settings';
import { SWEEP_SETTINGS_ENV, TRACK_PAYMENT_DETAIL_TYPE } from '../../contracts/reconciliation';
import { PIX_ROUTE, RECEIVER_SETTINGS_ENV } from '../../contracts/receiver';
import { RegistrationResourceType } from '../../contracts/registration';
import type { CloudFormationTemplate, TemplateResource } from './cloudformation-template';

export * from './cloudformation-template';

export interface FunctionDescription {
  readonly logicalId: string;
  /** Environment variables, unresolved. */
  readonly environment: Record<string, unknown>;
  readonly timeoutSeconds: number;
  readonly memorySize: number;
  /** `file.export` of the handler, such as `index.handler`. */
  readonly handler: string;
  /** The code asset's folder in the cloud assembly (with asset metadata on, as the CDK CLI sets it). */
  readonly assetPath?: string;
  /** The logical id of its log group (`LoggingConfig.LogGroup`): the group's name locally. */
  readonly logGroup?: string;
}

/** The parts of a BankWebhookReceiver stack the local runner stands in for. */
export interface ReceiverDeployment {
  readonly receiver: FunctionDescription;
  readonly processor: FunctionDescription;
  readonly registrationHandler?: FunctionDescription;
  /** The notification queue (the one the receiver stores in) and the processor's event source on it. */
  readonly queue: QueueDescription;
  readonly eventSource: EventSourceDescription;
  /** The processor's look queue and its event source on it. */
  readonly lookQueue: QueueDescription;
  readonly lookEventSource: EventSourceDescription;
  readonly idempotencyTable: string;
  readonly eventBus?: string;
  /** The audit log (`auditLog`): its group's logical id (its name locally), its rule's event pattern, its target's dead-letter queue. */
  readonly auditLog?: {
    readonly logGroup: string;
    readonly pattern: Record<string, unknown>;
    readonly deadLetterQueue?: string;
  };
  /** Logical ids of the secrets the stack generates (the token secrets). */
  readonly generatedSecrets: readonly string[];
  readonly api: ApiDescription;
  /** The Pix API (a receiver with `pix`): the REST API with a `pix` resource. */
  readonly pixApi?: ApiDescription;
  /** The registrations, in template order. */
  readonly registrations: ReadonlyArray<{
    readonly logicalId: string;
    readonly type: string;
    readonly properties: Record<string, unknown>;
  }>;
  /** The reconciliation sweep, when the stack has one: its function, its schedule's rate, and the Track Payment rule. */
  readonly reconciliation?: {
    readonly sweep: FunctionDescription;
    readonly intervalMs: number;
    readonly scheduleRuleName?: string;
    readonly trackPaymentRule?: string;
  };
  /** The alarms on a single metric (metric-math alarms are listed with no metric). */
  readonly alarms: readonly AlarmDescription[];
}

/** A REST API and its stage. */
export interface ApiDescription {
  readonly restApi: string;
  readonly stage: string;
  readonly stageName: string;
  /** The paths its resources serve under the root (`pix`; `rec` and `cobr` with Pix Automático). */
  readonly paths: readonly string[];
  /** The logical id of its stage's access log group (its name locally). */
  readonly accessLogGroup?: string;
}

/** A queue with its redrive policy. */
export interface QueueDescription {
  readonly logicalId: string;
  readonly visibilityTimeoutSeconds: number;
  readonly maxReceiveCount: number;
  /** Logical id of its dead-letter queue. */
  readonly deadLetterQueue: string;
}

/** An SQS event source mapping. */
export interface EventSourceDescription {
  readonly batchSize: number;
  readonly reportBatchItemFailures: boolean;
  readonly maxConcurrency?: number;
}

/** An `AWS::CloudWatch::Alarm` as CloudWatch evaluates it. */
export interface AlarmDescription {
  readonly logicalId: string;
  readonly description?: string;
  /** Absent for a metric-math alarm (not evaluated locally). */
  readonly metric?: {
    readonly namespace: string;
    readonly name: string;
    readonly dimensions: Readonly<Record<string, unknown>>;
  };
  readonly statistic: string;
  readonly periodSeconds: number;
  readonly evaluationPeriods: number;
  readonly threshold: number;
  readonly comparison: string;
}

/** Milliseconds of an EventBridge `rate(...)` schedule expression. */
export function rateMs(expression: string): number {
  const match = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression.trim());
  if (!match) throw new Error(`The local runner reads rate(...) schedules only, not "${expression}"`);
  const unit = { minute: 60_000, hour: 3_600_000, day: 86_400_000 }[
    match[2].replace(/s$/, '') as 'minute' | 'hour' | 'day'
  ];
  return Number(match[1]) * unit;
}

function functionDescription(logicalId: string, resource: TemplateResource): FunctionDescription {
  const p = resource.Properties ?? {};
  return {
    logicalId,
    environment: (p.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {},
    timeoutSeconds: Number(p.Timeout ?? 3),
    memorySize: Number(p.MemorySize ?? 128),
    handler: typeof p.Handler === 'string' ? p.Handler : 'index.handler',
    assetPath: resource.Metadata?.['aws:asset:path'] as string | undefined,
    ...logGroupOf(p.LoggingConfig),
  };
}

function logGroupOf(logging: unknown): Pick<FunctionDescription, 'logGroup'> {
  const group = (logging as { LogGroup?: { Ref?: unknown } } | undefined)?.LogGroup?.Ref;
  return typeof group === 'string' ? { logGroup: group } : {};
}

/** The settings a construct wrote as one JSON value in a function's environment, once resolved. */
export function settingsIn<T>(environment: Record<string, unknown>, name: string): T {
  const raw = environment[name];
  if (typeof raw !== 'string')
    throw new Error(`The function's environment has no ${name} to read (resolve the template's values first)`);
  return JSON.parse(raw) as T;
}

/**
 * The processor's environment for queues of a shorter visibility timeout than the template's (the
 * runner's option): a notification's last verification waits that many receives' span instead.
 */
export function withVisibilityTimeout(
  processorEnvironment: Record<string, string>,
  visibilityTimeoutSeconds: number,
): void {
  const settings = settingsIn<ProcessorSettings>(processorEnvironment, PROCESSOR_SETTINGS_ENV);
  processorEnvironment[PROCESSOR_SETTINGS_ENV] = JSON.stringify({
    ...settings,
    verificationWindowSeconds: verificationWindowSeconds(settings.maxVerificationAttempts, visibilityTimeoutSeconds),
  });
}

function only<T>(items: T[], what: string): T {
  if (items.length !== 1)
    throw new Error(
      `The template has ${items.length} ${what}; the local runner runs a stack with exactly one BankWebhookReceiver`,
    );
  return items[0];
}

function queueDescription(template: CloudFormationTemplate, logicalId: string): QueueDescription {
  const queue = template.Resources[logicalId];
  const redrive = queue.Properties?.RedrivePolicy as {
    deadLetterTargetArn: { 'Fn::GetAtt': [string, string] };
    maxReceiveCount: number;
  };
  return {
    logicalId,
    visibilityTimeoutSeconds: Number(queue.Properties?.VisibilityTimeout ?? 30),
    maxReceiveCount: Number(redrive.maxReceiveCount),
    deadLetterQueue: redrive.deadLetterTargetArn['Fn::GetAtt'][0],
  };
}

function eventSourceDescription(mapping: TemplateResource): EventSourceDescription {
  return {
    batchSize: Number(mapping.Properties?.BatchSize ?? 10),
    reportBatchItemFailures: JSON.stringify(mapping.Properties?.FunctionResponseTypes ?? []).includes(
      'ReportBatchItemFailures',
    ),
    maxConcurrency: (mapping.Properties?.ScalingConfig as { MaximumConcurrency?: number } | undefined)
      ?.MaximumConcurrency,
  };
}

/** Finds a BankWebhookReceiver's parts in a synthesized template. */
export function describeReceiverDeployment(template: CloudFormationTemplate): ReceiverDeployment {
  const resources = Object.entries(template.Resources);
  const ofType = (type: string) => resources.filter(([, r]) => r.Type === type);
  const functions = ofType('AWS::Lambda::Function');
  const withEnv = (name: string) => functions.filter(([, r]) => name in functionDescription('', r).environment);
  const [receiverId, receiver] = only(withEnv(RECEIVER_SETTINGS_ENV), 'receiver functions');
  const [processorId, processor] = only(withEnv(PROCESSOR_SETTINGS_ENV), 'processor functions');
  const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(([, r]) =>
    JSON.stringify(r.Properties?.FunctionName).includes(processorId),
  );
  const queueOf = ([, mapping]: [string, TemplateResource]) =>
    (mapping.Properties?.EventSourceArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  // Two queues: the one the receiver stores in (its environment names it), and the look queue.
  const receiverEnvironment = JSON.stringify(functionDescription('', receiver).environment);
  const notifications = only(
    mappings.filter((m) => receiverEnvironment.includes(`"${queueOf(m)}"`)),
    "processor event source mappings on the receiver's queue",
  );
  const looks = only(
    mappings.filter((m) => m !== notifications),
    'processor event source mappings on a look queue',
  );
  // The provider framework names the user handler in USER_ON_EVENT_FUNCTION_ARN.
  const framework = withEnv('USER_ON_EVENT_FUNCTION_ARN')[0];
  const handlerId = framework
    ? (functionDescription('', framework[1]).environment.USER_ON_EVENT_FUNCTION_ARN as { 'Fn::GetAtt': [string] })[
        'Fn::GetAtt'
      ][0]
    : undefined;
  // The bank's API, and the Pix API when the receiver has one (the REST API with a `pix` resource).
  const refersTo = (r: TemplateResource, apiId: string) =>
    JSON.stringify(r.Properties?.RestApiId) === JSON.stringify({ Ref: apiId });
  const apis = ofType('AWS::ApiGateway::RestApi').map(([id]) => id);
  const isPixApi = (apiId: string) =>
    ofType('AWS::ApiGateway::Resource').some(([, r]) => r.Properties?.PathPart === PIX_ROUTE && refersTo(r, apiId));
  const apiDescription = (apiId: string): ApiDescription => {
    const [stageId, stage] = only(
      ofType('AWS::ApiGateway::Stage').filter(([, r]) => refersTo(r, apiId)),
      `stages of the API ${apiId}`,
    );
    const paths = ofType('AWS::ApiGateway::Resource')
      .filter(([, r]) => refersTo(r, apiId))
      .map(([, r]) => String(r.Properties?.PathPart));
    const destination = (stage.Properties?.AccessLogSetting as { DestinationArn?: { 'Fn::GetAtt'?: unknown[] } })
      ?.DestinationArn?.['Fn::GetAtt']?.[0];
    return {
      restApi: apiId,
      stage: stageId,
      stageName: String(stage.Properties?.StageName),
      paths,
      ...(typeof destination === 'string' ? { accessLogGroup: destination } : {}),
    };
  };
  const pixApiId = apis.find(isPixApi);
  const registrationTypes: string[] = Object.values(RegistrationResourceType);
  const rules = ofType('AWS::Events::Rule');
  const sweepFunction = withEnv(SWEEP_SETTINGS_ENV)[0];
  let reconciliation: ReceiverDeployment['reconciliation'];
  if (sweepFunction) {
    const [sweepId] = sweepFunction;
    const schedule = rules.find(
      ([, r]) =>
        typeof r.Properties?.ScheduleExpression === 'string' &&
        JSON.stringify(r.Properties?.Targets).includes(`"${sweepId}"`),
    );
    if (!schedule) throw new Error(`The sweep function ${sweepId} has no schedule rule in the template`);
    const track = rules.find(([, r]) =>
      JSON.stringify(r.Properties?.EventPattern ?? {}).includes(TRACK_PAYMENT_DETAIL_TYPE),
    );
    const name = schedule[1].Properties?.Name;
    reconciliation = {
      sweep: functionDescription(sweepId, sweepFunction[1]),
      intervalMs: rateMs(String(schedule[1].Properties!.ScheduleExpression)),
      scheduleRuleName: typeof name === 'string' ? name : undefined,
      trackPaymentRule: track?.[0],
    };
  }
  const alarms = ofType('AWS::CloudWatch::Alarm').map(([logicalId, r]): AlarmDescription => {
    const p = r.Properties ?? {};
    const dimensions = Object.fromEntries(
      ((p.Dimensions ?? []) as Array<{ Name: string; Value: unknown }>).map((d) => [d.Name, d.Value]),
    );
    return {
      logicalId,
      description: p.AlarmDescription as string | undefined,
      ...(typeof p.MetricName === 'string'
        ? { metric: { namespace: String(p.Namespace), name: p.MetricName, dimensions } }
        : {}),
      statistic: typeof p.Statistic === 'string' ? p.Statistic : 'Sum',
      periodSeconds: Number(p.Period ?? 60),
      evaluationPeriods: Number(p.EvaluationPeriods ?? 1),
      threshold: Number(p.Threshold),
      comparison: String(p.ComparisonOperator),
    };
  });
  return {
    reconciliation,
    alarms,
    receiver: functionDescription(receiverId, receiver),
    processor: functionDescription(processorId, processor),
    registrationHandler: handlerId ? functionDescription(handlerId, template.Resources[handlerId]) : undefined,
    queue: queueDescription(template, queueOf(notifications)),
    eventSource: eventSourceDescription(notifications[1]),
    lookQueue: queueDescription(template, queueOf(looks)),
    lookEventSource: eventSourceDescription(looks[1]),
    idempotencyTable: only(ofType('AWS::DynamoDB::Table'), 'tables')[0],
    eventBus: ofType('AWS::Events::EventBus')[0]?.[0],
    ...auditLogOf(template),
    generatedSecrets: ofType('AWS::SecretsManager::Secret')
      .filter(([, r]) => r.Properties?.GenerateSecretString)
      .map(([id]) => id),
    api: apiDescription(
      only(
        apis.filter((id) => id !== pixApiId),
        'REST APIs besides the Pix API',
      ),
    ),
    ...(pixApiId ? { pixApi: apiDescription(pixApiId) } : {}),
    registrations: resources
      .filter(([, r]) => registrationTypes.includes(r.Type))
      .map(([logicalId, r]) => {
        const properties = { ...r.Properties };
        delete properties.ServiceToken;
        delete properties.ServiceTimeout;
        return { logicalId, type: r.Type, properties };
      }),
  };
}

/** The logical ID of the template's one rule whose logical ID starts with `prefix` (a consumer rule). */
export function ruleLogicalId(template: CloudFormationTemplate, prefix: string): string {
  const rules = Object.entries(template.Resources).filter(
    ([id, r]) => r.Type === 'AWS::Events::Rule' && id.startsWith(prefix),
  );
  if (rules.length !== 1)
    throw new Error(`consumerRule "${prefix}" names ${rules.length} rules of the template; it must name one`);
  return rules[0][0];
}

/** A rule whose target is a queue a function reads (`onVerifiedEvent` with `consumer`): the queue and the mapping. */
export interface QueueConsumerDescription {
  readonly queue: QueueDescription;
  readonly eventSource: EventSourceDescription;
}

/**
 * The queue consumer behind the template's rule `ruleLogicalId`, when its target is an SQS queue
 * that a function reads through an event source mapping; undefined for any other target.
 */
/** The logical id of the SQS queue the template's rule `ruleLogicalId` targets, if one. */
export function ruleQueueTarget(template: CloudFormationTemplate, ruleLogicalId: string): string | undefined {
  const targets = (template.Resources[ruleLogicalId]?.Properties?.Targets ?? []) as Array<{
    Arn?: { 'Fn::GetAtt'?: [string, string] };
  }>;
  return targets
    .map((t) => t.Arn?.['Fn::GetAtt']?.[0])
    .find((id): id is string => !!id && template.Resources[id]?.Type === 'AWS::SQS::Queue');
}

export function describeQueueConsumer(
  template: CloudFormationTemplate,
  ruleLogicalId: string,
): QueueConsumerDescription | undefined {
  const queueId = ruleQueueTarget(template, ruleLogicalId);
  if (!queueId) return undefined;
  const mapping = Object.values(template.Resources).find(
    (r) =>
      r.Type === 'AWS::Lambda::EventSourceMapping' &&
      JSON.stringify(r.Properties?.EventSourceArn) === JSON.stringify({ 'Fn::GetAtt': [queueId, 'Arn'] }),
  );
  if (!mapping || !template.Resources[queueId].Properties?.RedrivePolicy) return undefined;
  return { queue: queueDescription(template, queueId), eventSource: eventSourceDescription(mapping) };
}

/** The rule whose target is a log group of the template (the audit log), if any. */
function auditLogOf(template: CloudFormationTemplate): Pick<ReceiverDeployment, 'auditLog'> {
  const isGroup = (id: string) => template.Resources[id]?.Type === 'AWS::Logs::LogGroup';
  for (const rule of Object.values(template.Resources).filter(
    (r) => r.Type === 'AWS::Events::Rule' && r.Properties?.EventPattern,
  )) {
    const group = [...JSON.stringify(rule.Properties?.Targets ?? []).matchAll(/\{"Ref":"([^"]+)"\}/g)]
      .map((m) => m[1])
      .find(isGroup);
    const deadLetters = (
      rule.Properties?.Targets as
        Array<{ DeadLetterConfig?: { Arn?: { 'Fn::GetAtt'?: [string, string] } } }> | undefined
    )?.[0]?.DeadLetterConfig?.Arn?.['Fn::GetAtt']?.[0];
    if (group)
      return {
        auditLog: {
          logGroup: group,
          pattern: rule.Properties!.EventPattern as Record<string, unknown>,
          ...(deadLetters ? { deadLetterQueue: deadLetters } : {}),
        },
      };
  }
  return {};
}
