/**
 * The stack's own configuration changes with its deployment alone, evaluated as IAM would
 * (test/support/iam-policy.ts) over the synthesized template: every action CloudFormation's handlers
 * call for the stack's resource types (the registry schemas' `handlers`, in
 * test/fixtures/cfn-handler-permissions.json, which CI holds to cfn-lint's schemas) that a guard
 * deny covers is let through for the deployment role, on deploy, update and destroy; the same
 * actions from a principal of the account with the broad grant (`events:*`, `s3:*`, `sqs:*` on `*`)
 * are refused; and the library's providers that make such calls get through.
 */
import { readFileSync } from 'node:fs';
import { App, CliCredentialsStackSynthesizer, DefaultStackSynthesizer, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as events from 'aws-cdk-lib/aws-events';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { BankEventDetailType, BankStage, BankWebhookReceiver, type BankWebhookReceiverProps } from '../../lib';
import {
  BUS_POLICY_ACTIONS,
  GuardStatement,
  JOURNAL_CONFIGURATION_ACTIONS,
  QUEUE_CONFIGURATION_ACTIONS,
  RULE_CHANGE_ACTIONS,
} from '../../lib/core/configuration-guard';
import { REDRIVE_ALLOW_RESOURCE_TYPE, RedriveAllowProperty } from '../../contracts/redrive-allow';
import { GUARDED_ACTIONS, PROBED_ACTIONS } from '../integ/integ.configuration';
import { FIXTURE, type HandlerPermissions } from '../../tools/cfn-handler-permissions';
import { TEST_ENV, testBankConnection } from '../support/cdk';
import { evaluate, type IamDecision, type StatementJson, symbolOf } from '../support/iam-policy';

const PERMISSIONS = (JSON.parse(readFileSync(FIXTURE, 'utf8')) as HandlerPermissions).types;
const { account, region } = TEST_ENV;
const ACCOUNT_ROLE = (name: string) => `arn:\${AWS::Partition}:iam::${account}:role/${name}`;
/** The bootstrap's execution role, of the default qualifier and of another (a re-bootstrap). */
const DEPLOYERS = [
  ACCOUNT_ROLE(`cdk-hnb659fds-cfn-exec-role-${account}-${region}`),
  ACCOUNT_ROLE(`cdk-rebooted1-cfn-exec-role-${account}-${region}`),
];
/** A principal of the account whose own policy allows events:*, s3:* and sqs:* on *. */
const BROAD = ACCOUNT_ROLE('platform-admin');

function build(
  props: Partial<BankWebhookReceiverProps> = {},
  stackProps: { synthesizer?: unknown } = {},
  more?: (app: App, receiver: BankWebhookReceiver) => void,
) {
  const app = new App();
  const stack = new Stack(app, 'Guarded', { env: TEST_ENV, ...(stackProps as object) });
  const receiver = new BankWebhookReceiver(stack, 'Webhooks', {
    bank: testBankConnection(stack),
    stage: BankStage.PRODUCTION,
    reconciliation: { trackPaymentSources: ['acme.payables'] },
    auditLog: { enabled: true },
    ...props,
  });
  const consumer = new lambda.Function(stack, 'Consumer', {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => {}'),
  });
  receiver.onVerifiedEvent('Settled', BankEventDetailType.BOLETO_SETTLED, { consumer });
  more?.(app, receiver);
  return { app, stack, receiver, template: Template.fromStack(stack) };
}

interface GuardDeny {
  readonly where: string;
  readonly statement: StatementJson;
  readonly resources: string[];
}

/** Every guard deny of a template: in bus policies, the bucket policy and queue policies. */
function guardDenies(template: Template): GuardDeny[] {
  const out: GuardDeny[] = [];
  const add = (where: string, statement: StatementJson) => {
    if (typeof statement.Sid !== 'string' || !statement.Sid.startsWith('OnlyDeploymentChanges')) return;
    const resources = (Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource]).map(symbolOf);
    out.push({ where, statement, resources });
  };
  for (const [id, r] of Object.entries(template.findResources('AWS::Events::EventBusPolicy')))
    add(id, r.Properties.Statement as StatementJson);
  for (const type of ['AWS::S3::BucketPolicy', 'AWS::SQS::QueuePolicy'])
    for (const [id, r] of Object.entries(template.findResources(type)))
      for (const statement of r.Properties.PolicyDocument.Statement as StatementJson[]) add(id, statement);
  return out;
}

/** The handler permissions of every resource type in `template` that `statement` denies, by type and handler. */
function handlerCalls(template: Template, statement: StatementJson): string[] {
  const denied = ([] as string[]).concat(statement.Action as string[]);
  const types = new Set(
    Object.values(template.toJSON().Resources as Record<string, { Type: string }>).map((r) => r.Type),
  );
  const calls = new Set<string>();
  for (const type of types) {
    if (type.startsWith('Custom::')) continue;
    for (const [handler, permissions] of Object.entries(PERMISSIONS[type] ?? {}))
      for (const action of permissions) if (denied.includes(action)) calls.add(`${type} ${handler} ${action}`);
  }
  return [...calls].sort();
}

const decide = (statements: StatementJson[], action: string, resource: string, arn: string): IamDecision =>
  evaluate(statements, { action, resource, principal: { arn }, identityAllows: true });

describe("the stack's own configuration changes with its deployment alone", () => {
  const { template } = build({ configurationGuard: { queuePolicyDenies: true } });
  const denies = guardDenies(template);

  it('knows the handler permissions of every resource type the stack holds', () => {
    const types = Object.values(template.toJSON().Resources as Record<string, { Type: string }>)
      .map((r) => r.Type)
      .filter((type) => !type.startsWith('Custom::'));
    expect([...new Set(types)].filter((type) => !PERMISSIONS[type])).toEqual([]);
  });

  it('denies each action the issue names, on the resources it names', () => {
    const sids = (sid: string) => denies.filter((d) => String(d.statement.Sid).startsWith(sid));
    expect(sids(GuardStatement.busPolicy).map((d) => d.statement.Action)).toEqual([BUS_POLICY_ACTIONS]);
    const [rules] = sids(GuardStatement.rules);
    expect(rules.statement.Action).toEqual(RULE_CHANGE_ACTIONS);
    // The consumer's rule, the Track Payment rule and the audit rule: every rule the library put on the bus.
    const busRules = Object.entries(template.findResources('AWS::Events::Rule'))
      .filter(([, r]) => r.Properties.EventBusName)
      .map(([id]) => `\${${id}.Arn}`);
    expect(busRules).toHaveLength(3);
    expect(rules.resources.sort()).toEqual(busRules.sort());
    expect(sids(GuardStatement.journal).map((d) => d.statement.Action)).toEqual([JOURNAL_CONFIGURATION_ACTIONS]);
    // The notification queue and its dead-letter queue, the look queues, the audit's and the consumer's.
    expect(sids(GuardStatement.queue).map((d) => d.statement.Action)).toEqual(
      Array(sids(GuardStatement.queue).length).fill(QUEUE_CONFIGURATION_ACTIONS),
    );
    expect(sids(GuardStatement.queue)).toHaveLength(7);
  });

  it.each(['deploy', 'update', 'destroy'])(
    'lets the deployment role (any qualifier) make every call of a %s that a deny covers, and refuses each to the broad grant',
    (phase) => {
      const handler = { deploy: 'create', update: 'update', destroy: 'delete' }[phase];
      const seen: string[] = [];
      for (const deny of denies) {
        const calls = handlerCalls(template, deny.statement).filter((call) => call.split(' ')[1] === handler);
        for (const call of calls) {
          const action = call.split(' ')[2];
          for (const resource of deny.resources) {
            seen.push(`${deny.where} ${call}`);
            for (const deployer of DEPLOYERS)
              expect([call, decide([deny.statement], action, resource, deployer)]).toEqual([call, 'allowed']);
            expect([call, decide([deny.statement], action, resource, BROAD)]).toEqual([call, 'explicitly denied']);
          }
        }
      }
      // Something of each phase is covered (each kind of deny has handler calls to let through).
      expect(seen.length).toBeGreaterThan(0);
    },
  );

  it('refuses every denied action to the broad grant, and to a role merely named like a deployer in another account', () => {
    for (const deny of denies)
      for (const action of deny.statement.Action as string[])
        for (const resource of deny.resources) {
          expect([deny.where, action, decide([deny.statement], action, resource, BROAD)]).toEqual([
            deny.where,
            action,
            'explicitly denied',
          ]);
          const elsewhere = 'arn:aws:iam::999999999999:role/cdk-hnb659fds-cfn-exec-role-999999999999-sa-east-1';
          expect(decide([deny.statement], action, resource, elsewhere)).toBe('explicitly denied');
        }
  });
});

describe('a bus the app passes in', () => {
  it('is guarded when the app made it, once for two receivers that share it; an imported one is left alone', () => {
    const app = new App();
    const stack = new Stack(app, 'Shared', { env: TEST_ENV });
    const bus = new events.EventBus(stack, 'Bus');
    new BankWebhookReceiver(stack, 'A', { bank: testBankConnection(stack), eventBus: bus });
    new BankWebhookReceiver(stack, 'B', {
      bank: {
        ...testBankConnection(stack),
        account: { ...testBankConnection(stack).account, conta: '777777', codigoBeneficiario: '88888' },
      },
      eventBus: bus,
    });
    const imported = events.EventBus.fromEventBusName(stack, 'Imported', 'someone-elses');
    new BankWebhookReceiver(stack, 'C', {
      bank: {
        ...testBankConnection(stack),
        account: { ...testBankConnection(stack).account, conta: '888888', codigoBeneficiario: '99999' },
      },
      eventBus: imported,
    });
    const denies = guardDenies(Template.fromStack(stack));
    const busPolicies = denies.filter((d) => d.statement.Sid === GuardStatement.busPolicy);
    expect(busPolicies.map((d) => d.resources)).toEqual([[symbolOf(stack.resolve(bus.eventBusArn))]]);
  });
});

describe('a consumer in a stack of its own', () => {
  it("guards its rule from the consumer's stack, which depends on the receiver's: no cycle", () => {
    let consumerStack!: Stack;
    let rule!: { ruleArn: string };
    const { app, stack } = build({}, {}, (app, receiver) => {
      consumerStack = new Stack(app, 'Consumers', { env: TEST_ENV });
      const consumer = new lambda.Function(consumerStack, 'Consumer', {
        runtime: lambda.Runtime.NODEJS_22_X,
        handler: 'index.handler',
        code: lambda.Code.fromInline('exports.handler = async () => {}'),
      });
      rule = receiver.onVerifiedEvent('Paid', BankEventDetailType.PAYMENT_STATUS_VERIFIED, {
        consumer,
        scope: consumerStack,
      });
    });
    const assembly = app.synth();
    const template = Template.fromJSON(assembly.getStackByName('Consumers').template as Record<string, unknown>);
    const [deny] = guardDenies(template);
    expect(deny.statement.Sid).toMatch(new RegExp(`^${GuardStatement.rules}-[0-9a-f]{16}$`));
    expect(deny.resources).toEqual([symbolOf(consumerStack.resolve(rule.ruleArn))]);
    expect(decide([deny.statement], 'events:PutTargets', deny.resources[0], BROAD)).toBe('explicitly denied');
    // The receiver's stack names only its own rules.
    const own = guardDenies(Template.fromStack(stack)).filter((d) =>
      String(d.statement.Sid).startsWith(GuardStatement.rules),
    );
    expect(own.flatMap((d) => d.resources)).not.toContain(deny.resources[0]);
  });
});

describe("the library's own providers", () => {
  it("lets the stack's provider set a dead-letter queue's redrive-allow policy where queue denies are on", () => {
    const { stack, template } = build({ configurationGuard: { queuePolicyDenies: true } });
    const provider = stack.node.findChild('BankWebhooksRegistrationProvider') as unknown as {
      handler: lambda.Function;
    };
    const providerRole = symbolOf(stack.resolve(provider.handler.role!.roleArn));
    const redriveAllowed = Object.values(template.findResources(REDRIVE_ALLOW_RESOURCE_TYPE)).map((r) =>
      symbolOf(r.Properties[RedriveAllowProperty.DEAD_LETTER_QUEUE_URL]),
    );
    expect(redriveAllowed.length).toBeGreaterThan(0);
    const queues = guardDenies(template).filter((d) => String(d.statement.Sid) === GuardStatement.queue);
    const onDeadLetterQueues = queues.filter((d) =>
      redriveAllowed.some((url) => url === `\${${d.resources[0].slice(2, -'.Arn}'.length)}}`),
    );
    expect(onDeadLetterQueues.length).toBe(redriveAllowed.length);
    for (const deny of onDeadLetterQueues)
      expect(decide([deny.statement], 'sqs:SetQueueAttributes', deny.resources[0], providerRole)).toBe('allowed');
    // And nowhere else: the provider sets no other queue's attributes.
    for (const deny of queues.filter((d) => !onDeadLetterQueues.includes(d)))
      expect(decide([deny.statement], 'sqs:SetQueueAttributes', deny.resources[0], providerRole)).toBe(
        'explicitly denied',
      );
  });

  it("lets CDK's auto-delete provider write the journal's policy under DESTROY, and nobody else", () => {
    const { stack, template } = build({ removalPolicy: RemovalPolicy.DESTROY });
    const cleanUp = stack.node.findChild('Custom::S3AutoDeleteObjectsCustomResourceProvider') as unknown as {
      roleArn: string;
    };
    const [journal] = guardDenies(template).filter((d) => d.statement.Sid === GuardStatement.journal);
    const role = symbolOf(stack.resolve(cleanUp.roleArn));
    expect(decide([journal.statement], 's3:PutBucketPolicy', journal.resources[0], role)).toBe('allowed');
    expect(decide([journal.statement], 's3:PutBucketPolicy', journal.resources[0], BROAD)).toBe('explicitly denied');
  });
});

describe('the integ probe (what only an account settles)', () => {
  it('tries only actions a guard deny names, one of each deny', () => {
    expect(PROBED_ACTIONS.filter((action) => !GUARDED_ACTIONS.includes(action))).toEqual([]);
    for (const actions of [RULE_CHANGE_ACTIONS, BUS_POLICY_ACTIONS, JOURNAL_CONFIGURATION_ACTIONS])
      expect(PROBED_ACTIONS.some((action) => actions.includes(action))).toBe(true);
  });
});

describe('how a team that deploys another way is served', () => {
  it('adds no queue deny unless asked (an SCP is the advice)', () => {
    const { template } = build();
    expect(guardDenies(template).filter((d) => d.statement.Sid === GuardStatement.queue)).toEqual([]);
  });

  it('names the roles given instead of the bootstrap default', () => {
    const deployer = 'arn:aws:iam::111111111111:role/pipeline-deploy';
    const { template } = build({ configurationGuard: { deploymentRoleArns: [deployer] } });
    for (const deny of guardDenies(template)) {
      expect(decide([deny.statement], (deny.statement.Action as string[])[0], deny.resources[0], deployer)).toBe(
        'allowed',
      );
      expect(decide([deny.statement], (deny.statement.Action as string[])[0], deny.resources[0], DEPLOYERS[0])).toBe(
        'explicitly denied',
      );
    }
  });

  it("follows the synthesizer's execution role when it names one of its own", () => {
    const role = 'arn:aws:iam::111111111111:role/custom-cfn-exec';
    const synthesizer = new DefaultStackSynthesizer({ cloudFormationExecutionRole: role });
    const { template } = build({}, { synthesizer });
    const [deny] = guardDenies(template);
    expect(decide([deny.statement], (deny.statement.Action as string[])[0], deny.resources[0], role)).toBe('allowed');
  });

  it('adds no deny and warns where the synthesizer names no execution role (CLI credentials), until roles are named', () => {
    const { stack, template } = build({}, { synthesizer: new CliCredentialsStackSynthesizer() });
    expect(guardDenies(template)).toEqual([]);
    Annotations.fromStack(stack).hasWarning(
      '*',
      Match.stringLikeRegexp('names no CloudFormation execution role.*deploymentRoleArns'),
    );
    const named = build(
      { configurationGuard: { deploymentRoleArns: ['arn:aws:iam::111111111111:role/deployer'] } },
      { synthesizer: new CliCredentialsStackSynthesizer() },
    );
    expect(guardDenies(named.template).length).toBeGreaterThan(0);
  });

  it('can be turned off, with a warning saying what is then unguarded', () => {
    const { stack, template } = build({ configurationGuard: { enabled: false } });
    expect(guardDenies(template)).toEqual([]);
    Annotations.fromStack(stack).hasWarning('*', Match.stringLikeRegexp('configurationGuard.enabled is false'));
  });

  it('refuses a deployment role that is not a role ARN, naming it and the fix', () => {
    expect(() => build({ configurationGuard: { deploymentRoleArns: ['cdk-deploy'] } })).toThrow(
      /configurationGuard\.deploymentRoleArns\[0\]: must be an IAM role ARN \(wildcards allowed\), such as arn:aws:iam::111122223333:role\/deploy, got "cdk-deploy"/,
    );
  });
});
