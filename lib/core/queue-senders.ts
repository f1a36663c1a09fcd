import { Lazy } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { type ConfigurationGuard, GuardStatement, QUEUE_CONFIGURATION_ACTIONS } from './configuration-guard';

/** The statement id (Sid) of the deny a guarded queue's policy holds. */
export const ONLY_OWN_SENDERS_SID = 'OnlyOwnSenders';

/** The guarded queues of every app, each with its senders. */
const guarded = new WeakMap<sqs.IQueue, QueueSenders>();

/** Something that runs with a role of its own and can be allowed more (a BundledFunction). */
export interface SendingFunction {
  readonly role?: iam.IRole;
  allow(statement: iam.PolicyStatement): void;
}

/**
 * Who may send to a queue the library made: its own functions' roles, the EventBridge rules that
 * deliver into it (or use it as their dead-letter queue), and the operators named to redrive or
 * reverify. The queue's policy denies `sqs:SendMessage` to every other principal of the account,
 * whatever its own IAM policy allows, so nobody else can put a message in front of the processor or
 * a consumer. One deny per queue, resolved at synthesis with every sender added by then:
 *
 * `ArnNotEquals { aws:PrincipalArn: roles, aws:SourceArn: rules }`: both must hold for the deny, so a
 * named role (its principal ARN) and EventBridge delivering for a named rule (its source ARN) are let
 * through; a principal of the account with neither, or a rule of anyone else, is refused. A key a
 * request does not carry makes a negated operator true (IAM's rule), which is what refuses them.
 * SQS's own move to the dead-letter queue after `maxReceiveCount` is no SendMessage, so it is not
 * a sender.
 */
export class QueueSenders {
  /** Makes `queue` deny SendMessage to every principal but `roles` and the senders added to it later. */
  public static guard(queue: sqs.Queue, roles: readonly iam.IRole[] = []): QueueSenders {
    const senders = guarded.get(queue) ?? new QueueSenders(queue);
    guarded.set(queue, senders);
    for (const role of roles) senders.addRole(role);
    return senders;
  }

  /** The senders of `queue` when the library guards it; undefined for a queue it did not make (a user's own). */
  public static of(queue: sqs.IQueue): QueueSenders | undefined {
    return guarded.get(queue);
  }

  /**
   * Lets `fn` send to each queue: its role's own allow, and its name on each guarded queue's list.
   * Every function the library gives SendMessage on its queues goes through here.
   */
  public static allowFunction(fn: SendingFunction, queues: readonly sqs.IQueue[]): void {
    fn.allow(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: queues.map((q) => q.queueArn) }));
    for (const queue of queues) QueueSenders.of(queue)?.addRole(fn.role!);
  }

  private readonly roles: iam.IRole[] = [];
  private readonly rules: events.IRule[] = [];
  private readonly configurers: iam.IRole[] = [];
  private configurationGuarded = false;

  private constructor(private readonly queue: sqs.Queue) {
    queue.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: ONLY_OWN_SENDERS_SID,
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['sqs:SendMessage'],
        resources: [queue.queueArn],
        conditions: { ArnNotEquals: Lazy.any({ produce: () => this.condition() }) },
      }),
    );
  }

  /** Lets a role send (a function's, or an operator's). */
  public addRole(role: iam.IRole): void {
    if (!this.roles.includes(role)) this.roles.push(role);
  }

  /** Lets EventBridge send for a rule: the rule's target, or its target's dead-letter queue. */
  public addRule(rule: events.IRule): void {
    if (!this.rules.includes(rule)) this.rules.push(rule);
  }

  /**
   * Denies changes to the queue's attributes and permissions, and purging it, to all but `guard`'s
   * deployment roles and the configurers added (ConfigurationGuardProps.queuePolicyDenies).
   */
  public guardConfiguration(guard: ConfigurationGuard): void {
    if (this.configurationGuarded) return;
    this.configurationGuarded = true;
    this.queue.addToResourcePolicy(
      guard.deny(GuardStatement.queue, QUEUE_CONFIGURATION_ACTIONS, [this.queue.queueArn], () =>
        this.configurers.map((role) => role.roleArn),
      ),
    );
  }

  /** Lets a role change the queue's attributes where they are guarded (the provider that sets a redrive-allow policy). */
  public addConfigurer(role: iam.IRole): void {
    if (!this.configurers.includes(role)) this.configurers.push(role);
  }

  private condition(): Record<string, string[]> {
    // No sender (an endpoint's dead-letter queue with no processor of the library): deny everyone,
    // as a queue's ARN is never a principal's. SQS's own move into a dead-letter queue still works.
    if (!this.roles.length && !this.rules.length) return { 'aws:PrincipalArn': [this.queue.queueArn] };
    return {
      ...(this.roles.length ? { 'aws:PrincipalArn': this.roles.map((r) => r.roleArn) } : {}),
      ...(this.rules.length ? { 'aws:SourceArn': this.rules.map((r) => r.ruleArn) } : {}),
    };
  }
}
