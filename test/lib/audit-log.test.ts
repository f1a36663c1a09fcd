/**
 * The audit log (`auditLog`): off by default; on, a rule of the bus keeps every event of the
 * receiver's source in a log group that rule alone may write, named in the operator manifest.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import { OPERATOR_MANIFEST_DESCRIPTION } from '../../contracts/operations';
import { synthReceiver } from '../support/cdk';

const auditGroups = (template: Template) =>
  Object.entries(template.findResources('AWS::Logs::LogGroup')).filter(([id]) => id.includes('AuditLog'));
/** The manifest output's value as written (its deploy-time values left as intrinsics, in text). */
const manifestText = (template: Template) =>
  JSON.stringify(
    Object.values(template.toJSON().Outputs as Record<string, { Description: string; Value: unknown }>).find(
      (o) => o.Description === OPERATOR_MANIFEST_DESCRIPTION,
    )!.Value,
  );

it('is off by default: no log group, rule or resource policy of its own, and the manifest names none', () => {
  const { template } = synthReceiver();
  expect(auditGroups(template)).toEqual([]);
  expect(template.findResources('AWS::Logs::ResourcePolicy')).toEqual({});
  expect(manifestText(template)).not.toContain('auditLog');
});

it('keeps every event of the source in a log group for a year, retained, written by its own rule alone; the manifest names it', () => {
  const { template } = synthReceiver({ auditLog: { enabled: true }, eventSource: 'acme.bank' });
  const [[groupId, group]] = auditGroups(template);
  expect(groupId).toMatch(/^WebhooksProcessorAuditLog[0-9A-F]{8}$/);
  expect(group).toMatchObject({
    Properties: { RetentionInDays: 365 },
    DeletionPolicy: 'Retain',
    UpdateReplacePolicy: 'Retain',
  });
  const [[ruleId, rule]] = Object.entries(template.findResources('AWS::Events::Rule')).filter(([id]) =>
    id.includes('AuditRule'),
  );
  expect(rule.Properties.EventPattern).toEqual({ source: ['acme.bank'] });
  expect(JSON.stringify(rule.Properties.Targets)).toContain(`:log-group:",{"Ref":"${groupId}"}`);
  const [policy] = Object.values(template.findResources('AWS::Logs::ResourcePolicy'));
  const document = JSON.stringify(policy.Properties.PolicyDocument);
  // Only EventBridge, and only for this rule: no other rule of the account writes the log.
  expect(document).toContain('events.amazonaws.com');
  expect(document).toContain('ArnEquals');
  expect(document).toContain(`{"Fn::GetAtt":["${ruleId}","Arn"]}`);
  expect(document).not.toMatch(/logs:Delete/);
  expect(manifestText(template)).toContain(`"auditLog\\":{\\"group\\":\\"",{"Ref":"${groupId}"}`);
  // What EventBridge could not write after a day of retries waits in a dead-letter queue of its own, alarmed.
  const [target] = rule.Properties.Targets as Array<{ DeadLetterConfig?: { Arn: unknown }; RetryPolicy?: unknown }>;
  expect(target).toMatchObject({
    DeadLetterConfig: {
      Arn: { 'Fn::GetAtt': [expect.stringMatching(/^WebhooksProcessorAuditDeadLetterQueue/), 'Arn'] },
    },
    RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86_400 },
  });
  expect(
    Object.keys(template.findResources('AWS::CloudWatch::Alarm')).filter((id) =>
      id.startsWith('WebhooksProcessorAuditDeadLetterQueueAlarm'),
    ),
  ).toHaveLength(1);
});

it('takes the retention asked, the log key, and DESTROY with the receiver', () => {
  const { template, stack } = synthReceiver({}, (scope) => ({
    auditLog: { enabled: true, retention: logs.RetentionDays.TWO_YEARS },
    logEncryptionKey: new kms.Key(scope, 'LogKey'),
    removalPolicy: RemovalPolicy.DESTROY,
  }));
  const [[, group]] = auditGroups(template);
  expect(group).toMatchObject({
    Properties: { RetentionInDays: 731, KmsKeyId: { 'Fn::GetAtt': [expect.stringMatching(/^LogKey/), 'Arn'] } },
    DeletionPolicy: 'Delete',
  });
  expect(stack).toBeDefined();
});

it('refuses a retention CloudWatch Logs does not have, saying which', () => {
  expect(() => synthReceiver({ auditLog: { enabled: true, retention: 42 as logs.RetentionDays } })).toThrow(
    /auditLog\.retention: must be one of logs\.RetentionDays, got 42/,
  );
});

it("carries in the manifest the processor's own mappings, defaults filled in, for audit to read claims as the processor does; none when they are the defaults", () => {
  expect(manifestText(synthReceiver().template)).not.toContain('mappings');
  const text = manifestText(synthReceiver({ paymentStatuses: { settled: ['EFETIVADO', 'LIQUIDADO'] } }).template);
  expect(text).toContain(
    '\\"mappings\\":{\\"paymentStatuses\\":{\\"settled\\":[\\"EFETIVADO\\",\\"LIQUIDADO\\"],\\"pending\\":[\\"RECEBIDO\\"',
  );
});
