import { createHash } from 'node:crypto';
import { Annotations, Arn, ArnFormat, AspectPriority, Aspects, Resource, Stack, Token } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct, IConstruct } from 'constructs';

/** One function that publishes `source` on a bus. */
interface Publisher {
  readonly scope: Construct;
  readonly role: iam.IRole;
}

/** Everything that publishes one source on one bus the app creates. */
interface PublisherGroup {
  readonly bus: events.IEventBus;
  readonly source: string;
  readonly publishers: Publisher[];
}

/** The groups of each app (by its root), and whether their statements were made. */
const appGroups = new WeakMap<IConstruct, { groups: Map<string, PublisherGroup>; made: boolean }>();

/** A statement id (Sid) of `prefix` for `source`: unique per source on a bus, within EventBridge's 64 characters. */
export function sourceStatementId(prefix: string, source: string): string {
  return `${prefix}-${createHash('sha256').update(source).digest('hex').slice(0, 16)}`;
}

/** `arn:<partition>:events:<region>:<account>:` of a bus ARN (a placeholder for one written in a warning). */
function eventsArnPrefix(busArn: string): string {
  if (Token.isUnresolved(busArn)) {
    const arn = Arn.split(busArn, ArnFormat.SLASH_RESOURCE_NAME);
    return `arn:${arn.partition}:events:${arn.region}:${arn.account}:`;
  }
  return busArn.startsWith('arn:')
    ? `${busArn.split(':').slice(0, 5).join(':')}:`
    : 'arn:<partition>:events:<region>:<account>:';
}

/**
 * A bus policy statement that denies `events:PutEvents` on `busArn` to anyone but `roleArns`
 * for the events whose keys match `matches` (such as `events:source`). EventBridge's own replays
 * into the bus (a source ARN of an archive or a replay of the bus's account and region) are let
 * through: a replay goes only to the bus its archive records, so it brings back only events that
 * were put on this bus past this same statement. Whether EventBridge evaluates the bus policy for a
 * replay at all is not documented (cdk-bank-webhooks/docs/security.md, "What each input trusts").
 */
export function putEventsDenyStatement(
  sid: string,
  busArn: string,
  matches: Record<string, string[]>,
  roleArns: string[],
): iam.PolicyStatement {
  const prefix = eventsArnPrefix(busArn);
  return new iam.PolicyStatement({
    sid,
    effect: iam.Effect.DENY,
    principals: [new iam.AnyPrincipal()],
    actions: ['events:PutEvents'],
    resources: [busArn],
    conditions: {
      'ForAnyValue:StringEquals': matches,
      ArnNotEquals: { 'aws:PrincipalArn': roleArns },
      ArnNotLike: { 'aws:SourceArn': [`${prefix}archive/*`, `${prefix}replay/*`] },
    },
  });
}

/** The statement id (Sid) of the deny statement for `source`. */
export function publisherStatementId(source: string): string {
  return sourceStatementId('OnlyProcessorsPublish', source);
}

/** The statement that denies `events:PutEvents` with `source` on `busArn` to anyone but `roleArns`. */
export function publisherStatement(source: string, busArn: string, roleArns: string[]): iam.PolicyStatement {
  return putEventsDenyStatement(publisherStatementId(source), busArn, { 'events:source': [source] }, roleArns);
}

/**
 * Lets only the app's processors publish `source` on `bus`: one `AWS::Events::EventBusPolicy`
 * statement per bus and source, listing the role of every processor of the app that publishes
 * there (receivers sharing a bus never deny each other). It is made before synthesis, in the
 * stack that may reference every one of those roles without a cycle. A bus the app did not create
 * (imported) gets a warning with the statement to add instead.
 */
export function onlyPublishers(publisher: Construct, bus: events.IEventBus, source: string, role: iam.IRole): void {
  if (!Resource.isOwnedResource(bus)) {
    const statement: unknown = publisherStatement(source, '<the bus ARN>', [
      "<this processor's role ARN (processorFunction.role.roleArn)>",
    ]).toStatementJson();
    Annotations.of(publisher).addWarningV2(
      'cdk-bank-webhooks:eventBusPolicy',
      `The event bus ${bus.node.path} was not created in this app, so no policy keeps others from publishing on it: anyone allowed events:PutEvents there can publish an event with source "${source}" that consumers take as verified. Add this statement to the bus's resource policy: ${JSON.stringify(statement)}`,
    );
    return;
  }
  const root = publisher.node.root;
  let app = appGroups.get(root);
  if (!app) {
    app = { groups: new Map(), made: false };
    appGroups.set(root, app);
    const state = app;
    Aspects.of(root).add(
      {
        visit(node: IConstruct) {
          if (node !== root || state.made) return;
          state.made = true;
          for (const group of state.groups.values()) makeStatement(group);
        },
      },
      { priority: AspectPriority.MUTATING },
    );
  }
  const key = `${bus.node.path}\u0000${source}`;
  const group = app.groups.get(key) ?? { bus, source, publishers: [] };
  app.groups.set(key, group);
  group.publishers.push({ scope: publisher, role });
}

/** Whether `stack` depends on `on`, directly or through others. */
function dependsOn(stack: Stack, on: Stack, seen = new Set<Stack>()): boolean {
  if (seen.has(stack)) return false;
  seen.add(stack);
  return stack.dependencies.some((d) => d === on || dependsOn(d, on, seen));
}

/**
 * The statement of one group, in the stack that may reference every publisher's role: the bus's
 * own when every publisher is there, else the stack of a publisher outside it that no other
 * publisher's stack depends on, which then depends on the others' (each already depends on the
 * bus's stack, whose bus it publishes on).
 */
function makeStatement(group: PublisherGroup): void {
  const busStack = Stack.of(group.bus);
  const outside = group.publishers.filter((p) => Stack.of(p.scope) !== busStack);
  const stacks = [...new Set(outside.map((p) => Stack.of(p.scope)))];
  // The last stack no other of them depends on: it may then depend on each of them.
  const homeStack =
    [...stacks].reverse().find((s) => !stacks.some((other) => other !== s && dependsOn(other, s))) ??
    stacks[stacks.length - 1] ??
    busStack;
  const home = group.publishers.find((p) => Stack.of(p.scope) === homeStack)!;
  for (const other of stacks) {
    if (other === homeStack) continue;
    if (dependsOn(other, homeStack)) {
      throw new Error(
        `cdk-bank-webhooks: processors in stacks ${homeStack.node.path} and ${other.node.path} publish "${group.source}" on ${group.bus.node.path}, and one policy statement must list both roles, but ${other.node.path} depends on ${homeStack.node.path} already, so ${homeStack.node.path} cannot hold it. Give the receivers different eventSource values, or put them in one stack.`,
      );
    }
    homeStack.addDependency(other, `the event bus policy of source "${group.source}" lists its processor`);
  }
  const roleArns = group.publishers.map((p) => p.role.roleArn);
  // A processor publishes one source on one bus, so it is the home of one statement at most.
  new events.CfnEventBusPolicy(home.scope, 'EventBusPolicy', {
    eventBusName: group.bus.eventBusName,
    statementId: publisherStatementId(group.source),
    statement: publisherStatement(group.source, group.bus.eventBusArn, roleArns).toStatementJson() as unknown,
  });
}
