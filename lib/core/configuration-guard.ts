import { createHash } from 'node:crypto';
import { Annotations, Aws, Lazy, Resource, Stack, Token } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import type { PropsValidation } from './props-validation';
import { sourceStatementId } from './publisher-policy';

/**
 * Who may change the stack's own security-relevant configuration: the rules on the receiver's bus
 * and the bus's policy, the journal bucket's lifecycle, policy, versioning and Object Lock, and (when
 * asked) the queues' attributes and permissions. Each is a deny in the resource's own policy for
 * every principal but the roles that deploy the stack and the library's providers that make those
 * calls (cdk-bank-webhooks/docs/security.md, "The stack's own configuration").
 */
export interface ConfigurationGuardProps {
  /**
   * Whether the resource policies deny changes to the stack's own configuration to all but the
   * deployment roles. Turning it off leaves them to the account's IAM policies (a synth warning
   * says so).
   * @default true
   */
  readonly enabled?: boolean;

  /**
   * ARNs (IAM wildcards allowed) of the roles CloudFormation deploys, updates and destroys the
   * stack with. Name yours when the stack is not deployed with the CDK bootstrap's execution role.
   * @default - the stack synthesizer's CloudFormation execution role; for the CDK bootstrap's
   * default, `arn:<partition>:iam::<account>:role/cdk-*-cfn-exec-role-<account>-<region>` (any
   * qualifier, so a re-bootstrap keeps it). A synthesizer without one (CLI credentials) gets no
   * denies and a synth warning until roles are named here.
   */
  readonly deploymentRoleArns?: string[];

  /**
   * Whether the library's queues' policies also deny `sqs:SetQueueAttributes`,
   * `sqs:AddPermission`, `sqs:RemovePermission` and `sqs:PurgeQueue` to all but the deployment
   * roles (and the provider that sets a dead-letter queue's redrive-allow policy). AWS documents an
   * identity policy (a service control policy) as the way to deny changes to queue permissions,
   * and no recovery when a queue policy denies them to everyone left: prefer the SCP
   * (cdk-bank-webhooks/docs/security.md).
   * @default false
   */
  readonly queuePolicyDenies?: boolean;
}

/** The rule actions the bus policy denies on the library's rules. */
export const RULE_CHANGE_ACTIONS = [
  'events:PutRule',
  'events:PutTargets',
  'events:RemoveTargets',
  'events:DeleteRule',
  'events:DisableRule',
  'events:EnableRule',
];
/** The bus actions the bus policy denies on itself. */
export const BUS_POLICY_ACTIONS = ['events:PutPermission', 'events:RemovePermission'];
/** The bucket actions the journal's policy denies. */
export const JOURNAL_CONFIGURATION_ACTIONS = [
  's3:PutLifecycleConfiguration',
  's3:PutBucketPolicy',
  's3:DeleteBucketPolicy',
  's3:PutBucketVersioning',
  's3:PutBucketObjectLockConfiguration',
];
/** The queue actions a queue's policy denies with `queuePolicyDenies`. */
export const QUEUE_CONFIGURATION_ACTIONS = [
  'sqs:SetQueueAttributes',
  'sqs:AddPermission',
  'sqs:RemovePermission',
  'sqs:PurgeQueue',
];

/** The statement ids (Sid) of the guard's denies. */
export const GuardStatement = {
  busPolicy: 'OnlyDeploymentChangesBusPolicy',
  rules: 'OnlyDeploymentChangesRules',
  journal: 'OnlyDeploymentChangesJournal',
  queue: 'OnlyDeploymentChangesQueue',
} as const;

/** The bootstrap's execution role as `DefaultStackSynthesizer` names it once bound (qualifier, and the stack's account and region where known). */
const BOOTSTRAP_EXECUTION_ROLE = /:role\/cdk-[^/-]+-cfn-exec-role-[^/]+$/;

/** Checks ConfigurationGuardProps under `prefix`. */
export function checkConfigurationGuard(
  v: PropsValidation,
  props: ConfigurationGuardProps | undefined,
  prefix = 'configurationGuard.',
): void {
  for (const [index, arn] of (props?.deploymentRoleArns ?? []).entries()) {
    if (Token.isUnresolved(arn)) continue;
    v.check(
      /^arn:[a-z-]+:iam::(\d{12}|\*):role\/\S+$/.test(arn),
      `${prefix}deploymentRoleArns[${index}]`,
      `must be an IAM role ARN (wildcards allowed), such as arn:aws:iam::111122223333:role/deploy, got "${arn}"`,
    );
  }
}

/** A guard in force: the roles its denies let through. */
export class ConfigurationGuard {
  /** The guard of `scope`'s stack as `props` ask, or undefined when off (with the warning that says so). */
  public static of(scope: Construct, props: ConfigurationGuardProps = {}): ConfigurationGuard | undefined {
    if (props.enabled === false) {
      Annotations.of(scope).addWarningV2(
        'cdk-bank-webhooks:configurationGuard',
        "configurationGuard.enabled is false: the rules on the receiver's bus, the bus policy and the journal's lifecycle, policy, versioning and Object Lock can be changed by any principal of the account its IAM policies allow. Hold those actions to the deployment role with a service control policy (cdk-bank-webhooks/docs/security.md, \"The stack's own configuration\"), or acknowledge this warning where that is meant.",
      );
      return undefined;
    }
    const roles = props.deploymentRoleArns?.length ? props.deploymentRoleArns : defaultDeploymentRoles(scope);
    if (!roles) {
      Annotations.of(scope).addWarningV2(
        'cdk-bank-webhooks:configurationGuard',
        "This stack's synthesizer names no CloudFormation execution role (it deploys with the caller's credentials), so no policy holds the rules on the receiver's bus, the bus policy and the journal's configuration to the deployment: name the roles that deploy it in configurationGuard.deploymentRoleArns, or set configurationGuard.enabled to false and acknowledge its warning.",
      );
      return undefined;
    }
    return new ConfigurationGuard(roles, props.queuePolicyDenies === true);
  }

  private constructor(
    /** The deployment roles' ARN patterns. */
    public readonly deploymentRoleArns: readonly string[],
    /** Whether queue policies deny their configuration changes too. */
    public readonly queuePolicyDenies: boolean,
  ) {}

  /** A deny of `actions` on `resources` to every principal but the deployment roles and `alsoRoles` (resolved at synthesis). */
  public deny(sid: string, actions: string[], resources: string[], alsoRoles: () => string[] = () => []) {
    return new iam.PolicyStatement({
      sid,
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions,
      resources,
      conditions: {
        ArnNotLike: {
          'aws:PrincipalArn': Lazy.list({ produce: () => [...this.deploymentRoleArns, ...alsoRoles()] }),
        },
      },
    });
  }
}

/** The synthesizer's execution role, any qualifier for the bootstrap's default; undefined without one. */
function defaultDeploymentRoles(scope: Construct): string[] | undefined {
  const arn = (Stack.of(scope).synthesizer as { cloudFormationExecutionRoleArn?: unknown })
    .cloudFormationExecutionRoleArn;
  if (typeof arn !== 'string') return undefined;
  const pattern = BOOTSTRAP_EXECUTION_ROLE.test(arn) ? arn.replace(/role\/cdk-[^-/]+-/, 'role/cdk-*-') : arn;
  return [
    pattern
      .split('${AWS::Partition}')
      .join(Aws.PARTITION)
      .split('${AWS::AccountId}')
      .join(Aws.ACCOUNT_ID)
      .split('${AWS::Region}')
      .join(Aws.REGION),
  ];
}

/** The guards of the buses the library made, and the rules on each, by stack. */
const busGuards = new WeakMap<events.IEventBus, ConfigurationGuard>();
const ruleGroups = new WeakMap<Stack, Map<events.IEventBus, events.IRule[]>>();

/**
 * Denies changes to `bus`'s policy to all but the deployment roles, and keeps the guard for the rules
 * put on it later. A bus the app did not create (imported) is left alone (cdk-bank-webhooks/docs/security.md); a bus
 * two receivers share is guarded once, by the first.
 */
export function guardBus(scope: Construct, bus: events.IEventBus, guard: ConfigurationGuard | undefined): void {
  if (!guard || busGuards.has(bus) || !Resource.isOwnedResource(bus)) return;
  busGuards.set(bus, guard);
  new events.CfnEventBusPolicy(scope, 'BusPolicyGuard', {
    eventBusName: bus.eventBusName,
    statementId: GuardStatement.busPolicy,
    statement: guard.deny(GuardStatement.busPolicy, BUS_POLICY_ACTIONS, [bus.eventBusArn]).toStatementJson() as unknown,
  });
}

/** The guard of a bus the library made, if it is guarded. */
export function guardOf(bus: events.IEventBus): ConfigurationGuard | undefined {
  return busGuards.get(bus);
}

/**
 * Denies changes to `rule` (on `bus`) to all but the deployment roles, when the bus is guarded: one
 * bus policy statement per stack and bus, listing that stack's library rules (a rule in a consumer's
 * stack is named from there, which already depends on the bus's stack).
 */
export function guardRule(rule: events.Rule, bus: events.IEventBus): void {
  const guard = busGuards.get(bus);
  if (!guard) return;
  const stack = Stack.of(rule);
  const groups = ruleGroups.get(stack) ?? new Map<events.IEventBus, events.IRule[]>();
  ruleGroups.set(stack, groups);
  const rules = groups.get(bus);
  if (rules) {
    rules.push(rule);
    return;
  }
  const group = [rule];
  groups.set(bus, group);
  const busKey = createHash('sha256').update(bus.node.path).digest('hex').slice(0, 8).toUpperCase();
  const sid = sourceStatementId(GuardStatement.rules, stack.node.path);
  const ruleArns = Lazy.list({ produce: () => group.map((r) => r.ruleArn) });
  new events.CfnEventBusPolicy(stack, `BankWebhooksRuleGuard${busKey}`, {
    eventBusName: bus.eventBusName,
    statementId: sid,
    statement: guard.deny(sid, RULE_CHANGE_ACTIONS, ruleArns).toStatementJson() as unknown,
  });
}
