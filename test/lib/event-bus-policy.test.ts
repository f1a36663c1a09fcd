import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as events from 'aws-cdk-lib/aws-events';
import { BankWebhookReceiver } from '../../lib';
import { publisherStatementId } from '../../lib/core/publisher-policy';
import { synthReceiver, TEST_ENV, testBankConnection } from '../support/cdk';
import { evaluate, type IamRequest, symbolOf } from '../support/iam-policy';

type BusPolicy = { Properties: { EventBusName: unknown; StatementId: string; Statement: Record<string, unknown> } };

/** The EventBusPolicy statements of a template that deny publishing, by logical ID (the configuration guard's are apart). */
function busPolicies(template: Template): Record<string, BusPolicy> {
  return Object.fromEntries(
    Object.entries(template.findResources('AWS::Events::EventBusPolicy') as Record<string, BusPolicy>).filter(
      ([, policy]) => !policy.Properties.StatementId.startsWith('OnlyDeploymentChanges'),
    ),
  );
}

/** The role logical IDs a statement lets publish (each a Fn::GetAtt of a role's Arn, or an import). */
function allowedRoles(statement: Record<string, unknown>): unknown[] {
  return (statement.Condition as { ArnNotEquals: { 'aws:PrincipalArn': unknown } }).ArnNotEquals[
    'aws:PrincipalArn'
  ] as unknown[];
}

function processorRole(template: Template, prefix: string): string {
  const roles = Object.keys(template.findResources('AWS::IAM::Role')).filter((id) => id.startsWith(`${prefix}Role`));
  expect(roles).toHaveLength(1);
  return roles[0];
}

const accountB = { ...testBankConnection(new Stack()).account, conta: '777777', codigoBeneficiario: '88888' };

describe("only the processors publish the receiver's source", () => {
  it("denies PutEvents with the source on the bus it creates to every principal but the processor's role", () => {
    const { template } = synthReceiver();
    const policies = Object.values(busPolicies(template));
    expect(policies).toHaveLength(1);
    const { Properties: p } = policies[0];
    expect(p.StatementId).toBe(publisherStatementId('cdk-bank-webhooks'));
    expect(p.EventBusName).toEqual({ Ref: expect.stringMatching(/^WebhooksProcessorEventBus/) });
    expect(p.Statement).toMatchObject({
      Sid: p.StatementId,
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 'events:PutEvents',
      Resource: { 'Fn::GetAtt': [expect.stringMatching(/^WebhooksProcessorEventBus/), 'Arn'] },
      Condition: { 'ForAnyValue:StringEquals': { 'events:source': ['cdk-bank-webhooks'] } },
    });
    const role = processorRole(template, 'WebhooksProcessor');
    expect(allowedRoles(p.Statement)).toEqual([{ 'Fn::GetAtt': [role, 'Arn'] }]);
  });

  it('names the source the user chose', () => {
    const { template } = synthReceiver({ eventSource: 'acme.bank' });
    const [{ Properties: p }] = Object.values(busPolicies(template));
    expect(p.StatementId).toBe(publisherStatementId('acme.bank'));
    expect(p.Statement).toMatchObject({
      Condition: { 'ForAnyValue:StringEquals': { 'events:source': ['acme.bank'] } },
    });
  });

  it('lists both receivers that share a bus in one stack in one statement: neither denies the other', () => {
    const app = new App();
    const stack = new Stack(app, 'Shared', { env: TEST_ENV });
    const bus = new events.EventBus(stack, 'Bus');
    new BankWebhookReceiver(stack, 'A', { bank: testBankConnection(stack), eventBus: bus });
    new BankWebhookReceiver(stack, 'B', { bank: { ...testBankConnection(stack), account: accountB }, eventBus: bus });
    const template = Template.fromStack(stack);
    const policies = Object.values(busPolicies(template));
    expect(policies).toHaveLength(1);
    expect(policies[0].Properties.EventBusName).toEqual({ Ref: expect.stringMatching(/^Bus/) });
    expect(allowedRoles(policies[0].Properties.Statement)).toEqual([
      { 'Fn::GetAtt': [processorRole(template, 'AProcessor'), 'Arn'] },
      { 'Fn::GetAtt': [processorRole(template, 'BProcessor'), 'Arn'] },
    ]);
  });

  it('gives two sources on one bus a statement each, with different ids', () => {
    const app = new App();
    const stack = new Stack(app, 'Shared', { env: TEST_ENV });
    const bus = new events.EventBus(stack, 'Bus');
    new BankWebhookReceiver(stack, 'A', { bank: testBankConnection(stack), eventBus: bus });
    new BankWebhookReceiver(stack, 'B', {
      bank: { ...testBankConnection(stack), account: accountB },
      eventBus: bus,
      eventSource: 'acme.bank',
    });
    const ids = Object.values(busPolicies(Template.fromStack(stack))).map((p) => p.Properties.StatementId);
    expect(new Set(ids)).toEqual(
      new Set([publisherStatementId('cdk-bank-webhooks'), publisherStatementId('acme.bank')]),
    );
  });

  it("puts the statement of a bus shared across stacks in the stack that publishes on the other's bus: no cycle, the app synthesizes", () => {
    const app = new App();
    const first = new Stack(app, 'First', { env: TEST_ENV });
    const second = new Stack(app, 'Second', { env: TEST_ENV });
    const a = new BankWebhookReceiver(first, 'A', { bank: testBankConnection(first) });
    new BankWebhookReceiver(second, 'B', {
      bank: { ...testBankConnection(second), account: accountB },
      eventBus: a.eventBus,
    });
    app.synth();
    expect(Object.keys(busPolicies(Template.fromStack(first)))).toEqual([]);
    const [{ Properties: p }] = Object.values(busPolicies(Template.fromStack(second)));
    const roles = allowedRoles(p.Statement);
    expect(roles).toHaveLength(2);
    // The first stack's role comes in as an import of its export, the second's as its own.
    expect(roles[0]).toEqual({ 'Fn::ImportValue': expect.stringMatching(/AProcessor/) });
    expect(roles[1]).toEqual({ 'Fn::GetAtt': [processorRole(Template.fromStack(second), 'BProcessor'), 'Arn'] });
    expect(second.dependencies).toContain(first);
    expect(first.dependencies).toEqual([]);
  });

  it('warns on a bus the app did not create, with the statement to add, and makes no policy', () => {
    const { stack, template } = synthReceiver({}, (s) => ({
      eventBus: events.EventBus.fromEventBusName(s, 'Bus', 'acme-finance'),
    }));
    expect(Object.keys(busPolicies(template))).toEqual([]);
    const warnings = Annotations.fromStack(stack).findWarning(
      '*',
      Match.stringLikeRegexp('cdk-bank-webhooks:eventBusPolicy'),
    );
    expect(warnings).toHaveLength(1);
    const data: unknown = warnings[0].entry.data;
    const text = typeof data === 'string' ? data : JSON.stringify(data);
    expect(text).toContain(
      'anyone allowed events:PutEvents there can publish an event with source "cdk-bank-webhooks"',
    );
    expect(text).toContain('"Effect":"Deny"');
    expect(text).toContain('"events:source":["cdk-bank-webhooks"]');
    expect(text).toContain('aws:PrincipalArn');
  });
});

describe('the bus policy, evaluated as IAM would', () => {
  const { stack, receiver, template } = synthReceiver();
  const [{ Properties: p }] = Object.values(busPolicies(template));
  const busArn = symbolOf(stack.resolve(receiver.eventBus.eventBusArn));
  const processorRoleArn = symbolOf(stack.resolve(receiver.processorFunction.role!.roleArn));
  /** A PutEvents of our source on the bus: allowed by the caller's own policy, so only the bus policy can refuse it. */
  const put = (principal: IamRequest['principal'], context: Record<string, string> = {}) =>
    evaluate([p.Statement], {
      action: 'events:PutEvents',
      resource: busArn,
      principal,
      identityAllows: true,
      context: { 'events:source': 'cdk-bank-webhooks', ...context },
    });

  it("lets the processor publish, and refuses every other principal of the account (an operator, a pipe's or a schedule's role, a rule forwarding from another bus with its role)", () => {
    expect(put({ arn: processorRoleArn })).toBe('allowed');
    for (const arn of [
      'arn:aws:iam::111111111111:role/bank-operators',
      'arn:aws:iam::111111111111:role/service-role/Amazon_EventBridge_Pipe_x',
      'arn:aws:iam::111111111111:role/forwarder',
    ]) {
      expect(put({ arn })).toBe('explicitly denied');
      expect(put({ arn }, { 'aws:SourceArn': 'arn:aws:pipes:sa-east-1:111111111111:pipe/forged' })).toBe(
        'explicitly denied',
      );
    }
  });

  it("lets EventBridge's replay of the bus's archive through (the operator CLI's replay), whichever of the archive or the replay it names as the source", () => {
    const statement = p.Statement as { Condition: { ArnNotLike: { 'aws:SourceArn': unknown[] } } };
    const patterns = statement.Condition.ArnNotLike['aws:SourceArn'].map(symbolOf);
    expect(patterns).toHaveLength(2);
    expect(patterns[0]).toMatch(/:archive\/\*$/);
    expect(patterns[1]).toMatch(/:replay\/\*$/);
    const archive = patterns[0].replace('*', 'WebhooksProcessorEventBusArchive');
    const replay = patterns[1].replace('*', 'cdk-bank-webhooks-replay-1');
    expect(put({ service: 'events.amazonaws.com' }, { 'aws:SourceArn': archive })).toBe('allowed');
    expect(put({ service: 'events.amazonaws.com' }, { 'aws:SourceArn': replay })).toBe('allowed');
    // A rule's delivery (bus to bus) is no replay.
    expect(
      put(
        { service: 'events.amazonaws.com' },
        { 'aws:SourceArn': patterns[0].replace('archive/*', 'rule/other-bus/forward') },
      ),
    ).toBe('explicitly denied');
  });
});
