/**
 * Staging cleans up when asked (issue 53, item 5): `removalPolicy: RemovalPolicy.DESTROY` removes
 * the records' table, the raw journal (emptied first: its deny on deletes lifted for that
 * clean-up alone) and every part's log groups with the receiver; RETAIN stays the default whatever
 * the stage; Object Lock and DESTROY are refused together; no stateful logical ID changes.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { BankStage } from '../../lib/core/bank-stage';
import { JournalObjectLock } from '../../lib';
import { synthReceiver } from '../support/cdk';

const STATEFUL = ['AWS::DynamoDB::Table', 'AWS::S3::Bucket', 'AWS::Logs::LogGroup'];

function policies(template: Template): Record<string, string> {
  const resources = template.toJSON().Resources as Record<string, { Type: string; DeletionPolicy?: string }>;
  return Object.fromEntries(
    Object.entries(resources)
      .filter(([, r]) => STATEFUL.includes(r.Type))
      .map(([id, r]) => [id, r.DeletionPolicy ?? 'Delete']),
  );
}

it('keeps the table, the journal and the log groups by default, in PRODUCTION and in a stack that says NON_PRODUCTION', () => {
  for (const props of [{}, { stage: BankStage.NON_PRODUCTION }]) {
    const kept = policies(synthReceiver(props).template);
    expect(Object.keys(kept).length).toBeGreaterThan(5);
    expect(new Set(Object.values(kept))).toEqual(new Set(['Retain']));
  }
});

it("removes them all with DESTROY, emptying the journal through the stack's own clean-up alone, with the same logical IDs", () => {
  const staging = { stage: BankStage.NON_PRODUCTION };
  const kept = policies(synthReceiver(staging).template);
  const { template } = synthReceiver({ ...staging, removalPolicy: RemovalPolicy.DESTROY });
  const removed = policies(template);
  expect(Object.keys(removed).sort()).toEqual(Object.keys(kept).sort());
  expect(new Set(Object.values(removed))).toEqual(new Set(['Delete']));
  // The journal is emptied first; nobody else may delete a raw notification, even then.
  const cleanUp = Object.values(template.findResources('Custom::S3AutoDeleteObjects'));
  expect(cleanUp).toHaveLength(1);
  const [policy] = Object.values(template.findResources('AWS::S3::BucketPolicy')) as Array<{
    Properties: { PolicyDocument: { Statement: Array<{ Sid?: string; Condition?: unknown }> } };
  }>;
  const deny = policy.Properties.PolicyDocument.Statement.find((s) => s.Sid === 'NobodyDeletesARawNotification');
  expect(deny?.Condition).toEqual({
    ArnNotEquals: {
      'aws:PrincipalArn': {
        'Fn::GetAtt': [expect.stringMatching(/^CustomS3AutoDeleteObjectsCustomResourceProviderRole/), 'Arn'],
      },
    },
  });
});

it('refuses DESTROY with the journal under Object Lock, and a policy it does not take, saying why', () => {
  expect(() =>
    synthReceiver({ removalPolicy: RemovalPolicy.DESTROY, journal: { objectLock: JournalObjectLock.GOVERNANCE } }),
  ).toThrow(
    /removalPolicy: is RemovalPolicy.DESTROY, but journal.objectLock \(GOVERNANCE\) forbids deleting a raw notification before its retention/,
  );
  expect(() => synthReceiver({ removalPolicy: RemovalPolicy.SNAPSHOT })).toThrow(
    /removalPolicy: must be RemovalPolicy.RETAIN or RemovalPolicy.DESTROY, got snapshot/,
  );
});
