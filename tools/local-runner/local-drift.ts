/**
 * CloudFormation's drift detection, locally: what the template says of the stack's rules and queue
 * policies is put into the local EventBridge and SQS as a deploy would, and a detection compares the
 * template's explicit properties with the stand-ins' state at that moment (a rule's `EventPattern`,
 * `State` and `Targets`; a queue policy's `PolicyDocument`). So changing a rule's target through the
 * local EventBridge API, or a queue's policy through SQS, is what the sweep's configuration watch
 * sees. Only what the stand-ins model is answered: the other resources are left out (CloudFormation
 * would check them), never reported in sync.
 */
import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { SWEEP_SETTINGS_ENV, type SweepSettings } from '../../contracts/reconciliation';
import type { LocalCloudFormation, LocalResourceDrift } from '../local-aws/cloudformation-server';
import type { LocalEventBridge, RuleDefinition } from '../local-aws/eventbridge-server';
import type { LocalResolver } from './local-resolver';
import type { CloudFormationTemplate } from './template';

/** JSON with every object's keys sorted: two values equal as CloudFormation compares them, whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value ?? null);
}

const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);

/** The property paths where `actual` differs from `expected`, down to each target's keys. */
function ruleDifferences(expected: RuleDefinition, actual: RuleDefinition): string[] {
  // A rule without a State is ENABLED (CloudFormation's default).
  const paths = [
    ...(same(expected.EventPattern, actual.EventPattern) ? [] : ['/EventPattern']),
    ...(same(expected.State ?? 'ENABLED', actual.State ?? 'ENABLED') ? [] : ['/State']),
  ];
  const [want, have] = [expected.Targets ?? [], actual.Targets ?? []] as Array<Array<Record<string, unknown>>>;
  for (let i = 0; i < Math.max(want.length, have.length); i++) {
    if (!want[i] || !have[i]) {
      paths.push(`/Targets/${i}`);
      continue;
    }
    for (const key of new Set([...Object.keys(want[i]), ...Object.keys(have[i])]))
      if (!same(want[i][key], have[i][key])) paths.push(`/Targets/${i}/${key}`);
  }
  return paths;
}

/** The template's rules and queue policies in the stand-ins, and the detection over them. */
export class LocalDriftDetector {
  /** Rules defined locally, by logical id (their local name), with what the template says. */
  private readonly rules = new Map<string, RuleDefinition>();
  /** Queue policies applied, by logical id: each queue's URL and the document the template says. */
  private readonly policies = new Map<string, { queueUrls: string[]; document: unknown }>();

  private readonly template: CloudFormationTemplate;
  private readonly resolver: LocalResolver;
  private readonly events: LocalEventBridge;
  private readonly sqs: SQSClient;

  constructor(around: {
    template: CloudFormationTemplate;
    resolver: LocalResolver;
    events: LocalEventBridge;
    sqs: SQSClient;
  }) {
    ({ template: this.template, resolver: this.resolver, events: this.events, sqs: this.sqs } = around);
  }

  /**
   * Deploys, as CloudFormation would, and has the local CloudFormation's detections run here: the rules on the receiver's bus whose targets resolve locally
   * (a queue's) and every queue policy of a queue that exists locally. The policy is kept as the
   * template writes it (references unresolved): the local SQS enforces no policy, so what matters is
   * whether it is still the deployed one.
   */
  async deploy(cloudFormation: LocalCloudFormation): Promise<void> {
    for (const [id, resource] of Object.entries(this.template.Resources)) {
      const properties = resource.Properties ?? {};
      if (resource.Type === 'AWS::Events::Rule' && properties.EventBusName) {
        let definition: RuleDefinition;
        try {
          definition = this.resolver.resolve({
            EventPattern: properties.EventPattern,
            State: properties.State,
            Targets: properties.Targets,
          }) as RuleDefinition;
        } catch {
          continue; // A target the stand-ins do not model (a log group's, a function's): not deployed locally.
        }
        this.rules.set(id, definition);
        this.events.defineRule(id, definition);
      }
      if (resource.Type === 'AWS::SQS::QueuePolicy') {
        const document = properties.PolicyDocument;
        const queueUrls: string[] = [];
        for (const queue of (properties.Queues ?? []) as Array<{ Ref?: string }>) {
          const url = queue.Ref ? await this.queueUrl(queue.Ref) : undefined;
          if (!url) continue;
          await this.sqs.send(
            new SetQueueAttributesCommand({ QueueUrl: url, Attributes: { Policy: JSON.stringify(document) } }),
          );
          queueUrls.push(url);
        }
        if (queueUrls.length) this.policies.set(id, { queueUrls, document });
      }
    }
    cloudFormation.setDriftDetector(() => this.detect());
  }

  /** What a detection finds now: each modelled resource IN_SYNC, MODIFIED (with the paths) or DELETED. */
  async detect(): Promise<LocalResourceDrift[]> {
    const drifts: LocalResourceDrift[] = [];
    for (const [id, expected] of this.rules) {
      const actual = this.events.ruleDefinition(id);
      const properties = actual ? ruleDifferences(expected, actual) : [];
      drifts.push({
        logicalId: id,
        type: 'AWS::Events::Rule',
        status: !actual ? 'DELETED' : properties.length ? 'MODIFIED' : 'IN_SYNC',
        properties,
      });
    }
    for (const [id, { queueUrls, document }] of this.policies) {
      let status = 'IN_SYNC';
      for (const QueueUrl of queueUrls) {
        const answer = await this.sqs
          .send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['Policy'] }))
          .catch(() => undefined);
        if (!answer) status = 'DELETED';
        else if (status === 'IN_SYNC' && !same(safeJson(answer.Attributes?.Policy), document)) status = 'MODIFIED';
      }
      drifts.push({
        logicalId: id,
        type: 'AWS::SQS::QueuePolicy',
        status,
        properties: status === 'MODIFIED' ? ['/PolicyDocument'] : [],
      });
    }
    return drifts;
  }

  private async queueUrl(logicalId: string): Promise<string | undefined> {
    const answer = await this.sqs.send(new GetQueueUrlCommand({ QueueName: logicalId })).catch(() => undefined);
    return answer?.QueueUrl;
  }
}

function safeJson(text: string | undefined): unknown {
  try {
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return text;
  }
}

/**
 * The sweep's environment locally: a detection is due on every sweep that finds none running (so
 * one sweep starts it and the next reads it), instead of hourly.
 */
export function localSweepEnvironment(environment: Record<string, string>): Record<string, string> {
  const settings = JSON.parse(environment[SWEEP_SETTINGS_ENV]) as SweepSettings;
  if (!settings.configuration) return environment;
  return {
    ...environment,
    [SWEEP_SETTINGS_ENV]: JSON.stringify({
      ...settings,
      configuration: { ...settings.configuration, intervalMinutes: 0 },
    }),
  };
}
