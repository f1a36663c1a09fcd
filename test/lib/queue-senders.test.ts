/**
 * Each queue the library makes takes messages from its own senders only, evaluated as IAM would
 * (test/support/iam-policy.ts) over the synthesized template: a principal of the same account whose
 * own policy allows sqs:SendMessage on every queue (the attacker issue 48 describes) is refused, and
 * every sender the library wires (functions, rules, the operators named) still gets through.
 */
import type { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import {
  BankEventDetailType,
  BankStage,
  BankWebhookEndpoint,
  BankWebhookReceiver,
  type BankWebhookReceiverProps,
} from '../../lib';
import { ONLY_OWN_SENDERS_SID } from '../../lib/core/queue-senders';
import { synthIn, testBankConnection } from '../support/cdk';
import { evaluate, type IamRequest, type StatementJson, symbolOf } from '../support/iam-policy';

const OPERATOR = 'arn:aws:iam::111111111111:role/bank-operators';
const INTRUDER = 'arn:aws:iam::111111111111:role/some-other-app';
const PRODUCER = 'arn:aws:iam::111111111111:role/payables';
const CONSUMER_OPERATOR = 'arn:aws:iam::111111111111:role/settlements-operators';

function build(props: Partial<BankWebhookReceiverProps> = {}) {
  return synthIn((stack) => {
    const receiver = new BankWebhookReceiver(stack, 'Webhooks', {
      bank: testBankConnection(stack),
      stage: BankStage.PRODUCTION,
      operatorRoles: [iam.Role.fromRoleArn(stack, 'Operators', OPERATOR)],
      reconciliation: {
        trackPaymentSources: ['acme.payables'],
        trackPaymentProducers: [
          { source: 'acme.payables', roles: [iam.Role.fromRoleArn(stack, 'Payables', PRODUCER)] },
        ],
      },
      ...props,
    });
    const consumer = new lambda.Function(stack, 'Consumer', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => {}'),
    });
    const consumerRule = receiver.onVerifiedEvent('Settled', BankEventDetailType.BOLETO_SETTLED, { consumer });
    // A rule naming the operators who redrive its dead-letter queue.
    const redrivenRule = receiver.onVerifiedEvent('Refunded', BankEventDetailType.PIX_REFUND, {
      consumer,
      operatorRoles: [iam.Role.fromRoleArn(stack, 'ConsumerOperators', CONSUMER_OPERATOR)],
    });
    const targetRule = receiver.onVerifiedEvent('Reversed', BankEventDetailType.BOLETO_SETTLEMENT_REVERSED, {
      target: new targets.SqsQueue(new sqs.Queue(stack, 'Elsewhere', { enforceSSL: true })),
    });
    return { receiver, consumerRule, redrivenRule, targetRule };
  });
}

/** What the names in a template resolve to, as the evaluator writes them. */
const ref = (stack: Stack, value: string) => symbolOf(stack.resolve(value));

/** The statements of the queue policy of `queue` (exactly one policy per queue: SQS keeps one document). */
function queueStatements(template: Template, stack: Stack, queue: sqs.IQueue): StatementJson[] {
  const queueRef = ref(stack, queue.queueUrl);
  const policies = Object.values(
    template.findResources('AWS::SQS::QueuePolicy') as Record<
      string,
      { Properties: { Queues: unknown[]; PolicyDocument: { Statement: StatementJson[] } } }
    >,
  ).filter((p) => p.Properties.Queues.some((q) => symbolOf(q) === queueRef));
  expect(policies).toHaveLength(1);
  return policies[0].Properties.PolicyDocument.Statement;
}

type Sender = { readonly role: string } | { readonly rule: string };

function send(stack: Stack, template: Template, queue: sqs.IQueue, sender: Sender) {
  const request: IamRequest =
    'role' in sender
      ? {
          action: 'sqs:SendMessage',
          resource: ref(stack, queue.queueArn),
          principal: { arn: sender.role },
          identityAllows: true,
          context: { 'aws:SecureTransport': 'true' },
        }
      : {
          action: 'sqs:SendMessage',
          resource: ref(stack, queue.queueArn),
          principal: { service: 'events.amazonaws.com' },
          context: { 'aws:SourceArn': sender.rule, 'aws:SecureTransport': 'true' },
        };
  return evaluate(queueStatements(template, stack, queue), request);
}

describe('each queue the library makes takes only its own senders', () => {
  const {
    stack,
    template,
    built: { receiver, consumerRule, redrivenRule, targetRule },
  } = build();
  const role = (fn: lambda.IFunction) => ({ role: ref(stack, fn.role!.roleArn) });
  const receiverFn = role(receiver.endpoint.receiverFunction);
  const processorFn = role(receiver.processorFunction);
  const sweepFn = role(receiver.reconciliation!.sweepFunction);
  const operator = { role: OPERATOR };
  const intruder = { role: INTRUDER };
  const trackPayment = { rule: ref(stack, receiver.reconciliation!.trackPaymentRule!.ruleArn) };
  const consumer = { rule: ref(stack, consumerRule.ruleArn) };
  const someoneElsesRule = { rule: 'arn:aws:events:sa-east-1:111111111111:rule/another-bus/forwards-everything' };

  const cases: Array<[string, () => sqs.IQueue, Array<[string, Sender]>, Array<[string, Sender]>]> = [
    [
      'the notification queue',
      () => receiver.queue,
      [
        ['the receiver', receiverFn],
        ['the processor (leftovers)', processorFn],
        ['an operator (redrive)', operator],
      ],
      [
        ['another principal of the account', intruder],
        ['the sweep', sweepFn],
        ['a rule of someone else', someoneElsesRule],
      ],
    ],
    [
      'its dead-letter queue',
      () => receiver.deadLetterQueue,
      [['the processor (quarantine)', processorFn]],
      [
        ['another principal of the account', intruder],
        ['the receiver', receiverFn],
        ['an operator', operator],
      ],
    ],
    [
      'the look queue',
      () => receiver.processor.lookQueue,
      [
        ['the processor (deferral)', processorFn],
        ['the sweep', sweepFn],
        ['the Track Payment rule', trackPayment],
        ['an operator (reverify, redrive)', operator],
      ],
      [
        ['another principal of the account', intruder],
        ['the receiver', receiverFn],
        ['a Track Payment producer (it goes through the bus)', { role: PRODUCER }],
        ['a rule of someone else', someoneElsesRule],
      ],
    ],
    [
      'the look dead-letter queue',
      () => receiver.processor.lookDeadLetterQueue,
      [
        ['the processor (quarantine)', processorFn],
        ["the Track Payment rule (its target's dead-letter queue)", trackPayment],
      ],
      [
        ['another principal of the account', intruder],
        ['the sweep', sweepFn],
        ['an operator', operator],
      ],
    ],
    [
      'a consumer queue',
      () => consumerRule.consumerQueue!,
      [['its rule', consumer]],
      [
        ['another principal of the account', intruder],
        // Its bodies are read as verified events: the receiver's operators send only where the rule names them.
        ["the receiver's operators", operator],
        ['the processor', processorFn],
        ['a rule of someone else', someoneElsesRule],
        ['the Track Payment rule', trackPayment],
      ],
    ],
    [
      'a consumer queue whose rule names its operators',
      () => redrivenRule.consumerQueue!,
      [
        ['its rule', { rule: ref(stack, redrivenRule.ruleArn) }],
        ['the operators it names (redrive)', { role: CONSUMER_OPERATOR }],
      ],
      [
        ["the receiver's operators", operator],
        ['another consumer rule', consumer],
      ],
    ],
    [
      "a consumer's dead-letter queue",
      () => consumerRule.deadLetterQueue!,
      [['its rule (a delivery the queue refused)', consumer]],
      [
        ['another principal of the account', intruder],
        ['an operator', operator],
        ['a rule of someone else', someoneElsesRule],
      ],
    ],
    [
      "a target rule's dead-letter queue",
      () => targetRule.deadLetterQueue!,
      [['its rule', { rule: ref(stack, targetRule.ruleArn) }]],
      [
        ['another principal of the account', intruder],
        ['the consumer rule', consumer],
      ],
    ],
  ];

  describe.each(cases)('%s', (_name, queue, allowed, refused) => {
    it.each(allowed)('takes a message from %s', (_who, sender) => {
      expect(send(stack, template, queue(), sender)).toBe('allowed');
    });
    it.each(refused)('refuses %s, whatever its own policy allows', (_who, sender) => {
      expect(send(stack, template, queue(), sender)).not.toBe('allowed');
    });
  });

  it('keeps TLS-only: a sender of its own over plain HTTP is refused', () => {
    const statements = queueStatements(template, stack, receiver.queue);
    expect(
      evaluate(statements, {
        action: 'sqs:SendMessage',
        resource: ref(stack, receiver.queue.queueArn),
        principal: { arn: receiverFn.role },
        identityAllows: true,
        context: { 'aws:SecureTransport': 'false' },
      }),
    ).toBe('explicitly denied');
  });

  it('lets every sender the template wires through: each role allowed sqs:SendMessage on a guarded queue, each rule delivering to one', () => {
    const guarded = new Map<string, StatementJson[]>();
    for (const policy of Object.values(
      template.findResources('AWS::SQS::QueuePolicy') as Record<
        string,
        { Properties: { Queues: unknown[]; PolicyDocument: { Statement: StatementJson[] } } }
      >,
    )) {
      if (!policy.Properties.PolicyDocument.Statement.some((s) => s.Sid === ONLY_OWN_SENDERS_SID)) continue;
      // A queue's URL is its Ref; its ARN the GetAtt.
      for (const q of policy.Properties.Queues)
        guarded.set(symbolOf(q).replace(/\}$/, '.Arn}'), policy.Properties.PolicyDocument.Statement);
    }
    expect(guarded.size).toBe(9);
    let checked = 0;
    for (const policy of Object.values(
      template.findResources('AWS::IAM::Policy') as Record<
        string,
        { Properties: { Roles: unknown[]; PolicyDocument: { Statement: StatementJson[] } } }
      >,
    )) {
      for (const statement of policy.Properties.PolicyDocument.Statement) {
        if (statement.Effect !== 'Allow' || ![statement.Action].flat().includes('sqs:SendMessage')) continue;
        for (const resource of [statement.Resource].flat().map(symbolOf)) {
          const statements = guarded.get(resource);
          if (!statements) continue;
          for (const r of policy.Properties.Roles) {
            checked += 1;
            expect({
              role: symbolOf(r),
              queue: resource,
              decision: evaluate(statements, {
                action: 'sqs:SendMessage',
                resource,
                principal: { arn: symbolOf(r).replace(/\}$/, '.Arn}') },
                identityAllows: true,
              }),
            }).toEqual({ role: symbolOf(r), queue: resource, decision: 'allowed' });
          }
        }
      }
    }
    for (const [ruleId, rule] of Object.entries(
      template.findResources('AWS::Events::Rule') as Record<
        string,
        { Properties: { Targets?: Array<{ Arn: unknown; DeadLetterConfig?: { Arn: unknown } }> } }
      >,
    )) {
      for (const target of rule.Properties.Targets ?? []) {
        for (const arn of [target.Arn, target.DeadLetterConfig?.Arn].filter(Boolean).map(symbolOf)) {
          const statements = guarded.get(arn);
          if (!statements) continue;
          checked += 1;
          expect({
            rule: ruleId,
            queue: arn,
            decision: evaluate(statements, {
              action: 'sqs:SendMessage',
              resource: arn,
              principal: { service: 'events.amazonaws.com' },
              context: { 'aws:SourceArn': `\${${ruleId}.Arn}` },
            }),
          }).toEqual({ rule: ruleId, queue: arn, decision: 'allowed' });
        }
      }
    }
    // Receiver 1, processor 4, sweep 1; Track Payment 2 (target and DLQ), two consumer rules 2 each, target rule 1.
    expect(checked).toBe(13);
  });
});

describe('queues the library did not make', () => {
  it('leaves a dead-letter queue the user gave onVerifiedEvent as it is', () => {
    const { stack, template } = synthIn((s) => {
      const receiver = new BankWebhookReceiver(s, 'Webhooks', {
        bank: testBankConnection(s),
        stage: BankStage.PRODUCTION,
      });
      const own = new sqs.Queue(s, 'OwnDlq', { enforceSSL: true });
      receiver.onVerifiedEvent('Reversed', BankEventDetailType.BOLETO_SETTLEMENT_REVERSED, {
        target: new targets.SqsQueue(new sqs.Queue(s, 'Target')),
        deadLetterQueue: own,
      });
      return own;
    });
    const ownRef = symbolOf(stack.resolve((stack.node.findChild('OwnDlq') as sqs.Queue).queueUrl));
    const policies = Object.values(
      template.findResources('AWS::SQS::QueuePolicy') as Record<
        string,
        { Properties: { Queues: unknown[]; PolicyDocument: { Statement: StatementJson[] } } }
      >,
    ).filter((p) => p.Properties.Queues.some((q) => symbolOf(q) === ownRef));
    expect(policies.flatMap((p) => p.Properties.PolicyDocument.Statement).map((s) => s.Sid)).not.toContain(
      ONLY_OWN_SENDERS_SID,
    );
  });

  it("denies every sender of an endpoint's dead-letter queue when no processor of the library reads it (only SQS's own move fills it)", () => {
    const {
      stack,
      template,
      built: endpoint,
    } = synthIn(
      (s) => new BankWebhookEndpoint(s, 'Endpoint', { operatorRoles: [iam.Role.fromRoleArn(s, 'Ops', OPERATOR)] }),
    );
    expect(send(stack, template, endpoint.deadLetterQueue, { role: OPERATOR })).toBe('explicitly denied');
    expect(
      send(stack, template, endpoint.deadLetterQueue, { role: ref(stack, endpoint.receiverFunction.role!.roleArn) }),
    ).toBe('explicitly denied');
    expect(send(stack, template, endpoint.queue, { role: OPERATOR })).toBe('allowed');
    expect(send(stack, template, endpoint.queue, { role: INTRUDER })).toBe('explicitly denied');
  });
});

describe("the policy evaluator these tests rely on follows IAM's documented rules", () => {
  const deny = (condition: Record<string, Record<string, string[]>>): StatementJson => ({
    Effect: 'Deny',
    Principal: { AWS: '*' },
    Action: 'sqs:SendMessage',
    Resource: 'q',
    Condition: condition,
  });
  const request = (
    context: Record<string, string>,
    principal: IamRequest['principal'] = { arn: 'r1' },
  ): IamRequest => ({ action: 'sqs:SendMessage', resource: 'q', principal, identityAllows: true, context });

  it('a key the request lacks makes a negated operator true and a positive one false; IfExists true', () => {
    expect(evaluate([deny({ ArnNotEquals: { 'aws:SourceArn': ['x'] } })], request({}))).toBe('explicitly denied');
    expect(evaluate([deny({ ArnEquals: { 'aws:SourceArn': ['x'] } })], request({}))).toBe('allowed');
    expect(evaluate([deny({ ArnEqualsIfExists: { 'aws:SourceArn': ['x'] } })], request({}))).toBe('explicitly denied');
  });

  it('a negated operator holds when the value matches none of the list; every key and block must hold', () => {
    const statement = deny({ ArnNotEquals: { 'aws:PrincipalArn': ['r1', 'r2'], 'aws:SourceArn': ['rule'] } });
    expect(evaluate([statement], request({}, { arn: 'r2' }))).toBe('allowed');
    expect(evaluate([statement], request({}, { arn: 'r3' }))).toBe('explicitly denied');
    expect(evaluate([statement], request({ 'aws:SourceArn': 'rule' }, { service: 'events.amazonaws.com' }))).not.toBe(
      'explicitly denied',
    );
  });
});
