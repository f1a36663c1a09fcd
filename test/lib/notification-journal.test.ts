/**
 * The raw journal's bucket as the processor makes it: encrypted, versioned, TLS only, public access
 * blocked, kept 5 years, written by the processor alone, read by the roles named.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { BankStage, JournalObjectLock } from '../../lib';
import { journalObjectLock } from '../../lib/processor/notification-journal';
import { PROCESSOR_SETTINGS_ENV, ProcessorMetric, type ProcessorSettings } from '../../contracts/processor';
import { settingsIn, synthReceiver } from '../support/cdk';
import { evaluate, symbolOf } from '../support/iam-policy';
import { describeChange, type TemplateJson, upgradeChanges, UpgradeHazard } from '../support/upgrade-gate';

const buckets = (template: Template) => template.findResources('AWS::S3::Bucket');
const policyOf = (template: Template) =>
  Object.values(template.findResources('AWS::S3::BucketPolicy'))[0].Properties.PolicyDocument.Statement as Array<
    Record<string, any>
  >;
const processorSettingsOf = (template: Template) => {
  const [fn] = Object.values(
    template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: { [PROCESSOR_SETTINGS_ENV]: Match.anyValue() } } },
    }),
  );
  return settingsIn<ProcessorSettings>(fn, PROCESSOR_SETTINGS_ENV);
};

describe('the raw journal', () => {
  it('is on by default: versioned, SSE-S3, TLS 1.2 only, public access blocked, expired after 5 years, retained on delete', () => {
    const { template } = synthReceiver();
    const [[id, bucket]] = Object.entries(buckets(template));
    expect(id).toMatch(/^WebhooksProcessorJournal[0-9A-F]{8}$/);
    expect(bucket.DeletionPolicy).toBe('Retain');
    expect(bucket.Properties).toMatchObject({
      VersioningConfiguration: { Status: 'Enabled' },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LifecycleConfiguration: {
        Rules: [
          expect.objectContaining({
            ExpirationInDays: 1827,
            NoncurrentVersionExpiration: { NoncurrentDays: 1827 },
            Transitions: [{ StorageClass: 'GLACIER_IR', TransitionInDays: 90 }],
          }),
        ],
      },
    });
    // A PRODUCTION journal kept under RETAIN is locked (GOVERNANCE, for its retention) by its
    // configuration alone, which S3 applies to an existing bucket in place: never ObjectLockEnabled.
    expect(bucket.Properties.ObjectLockEnabled).toBeUndefined();
    expect(bucket.Properties.ObjectLockConfiguration).toEqual({
      ObjectLockEnabled: 'Enabled',
      Rule: { DefaultRetention: { Mode: 'GOVERNANCE', Days: 1827 } },
    });
    expect(processorSettingsOf(template).journalBucketName).toEqual({ Ref: id });
    const statements = policyOf(template);
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        expect.objectContaining({ Effect: 'Deny', Condition: { NumericLessThan: { 's3:TlsVersion': 1.2 } } }),
      ]),
    );
  });

  it("lets only the processor write, under the journal's two prefixes and only create-only, and nobody delete", () => {
    const { template } = synthReceiver();
    const statements = policyOf(template);
    const onlyWriter = statements.find((s) => s.Sid === 'OnlyTheProcessorWrites')!;
    expect(onlyWriter).toMatchObject({
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 's3:PutObject',
      Condition: {
        ArnNotEquals: {
          'aws:PrincipalArn': { 'Fn::GetAtt': [expect.stringMatching(/^WebhooksProcessorRole/), 'Arn'] },
        },
      },
    });
    expect(statements.find((s) => s.Sid === 'NobodyDeletesARawNotification')).toMatchObject({
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: ['s3:DeleteObject', 's3:DeleteObjectVersion'],
    });
    // Every write create-only (If-None-Match: *, as both of the processor's writes send it): nothing already written is overwritten.
    expect(statements.find((s) => s.Sid === 'OnlyCreateOnlyWrites')).toMatchObject({
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 's3:PutObject',
      Condition: { Null: { 's3:if-none-match': 'true' } },
    });
    expect(statements.find((s) => s.Sid === 'OnlyTheNamedReadersRead')).toBeUndefined();
    const processorPolicies = JSON.stringify(
      template.findResources('AWS::IAM::Policy', {
        Properties: { Roles: [{ Ref: Match.stringLikeRegexp('^WebhooksProcessorRole') }] },
      }),
    );
    expect(processorPolicies).toContain('/notifications/*');
    expect(processorPolicies).toContain('/subjects/*');
    expect(processorPolicies).not.toMatch(/s3:GetObject|s3:Delete/);
  });

  it('uses SSE-KMS with a bucket key when given a key, locks objects in the mode asked, and lets only the named readers read', () => {
    const { template } = synthReceiver({}, (stack) => ({
      journal: {
        encryptionKey: new kms.Key(stack, 'Key'),
        objectLock: JournalObjectLock.COMPLIANCE,
        retention: Duration.days(3650),
        transitionAfter: Duration.days(30),
        readers: [iam.Role.fromRoleArn(stack, 'Auditor', 'arn:aws:iam::111111111111:role/auditor')],
      },
    }));
    const [bucket] = Object.values(buckets(template));
    expect(bucket.Properties).toMatchObject({
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          { BucketKeyEnabled: true, ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms' } },
        ],
      },
      ObjectLockEnabled: true,
      ObjectLockConfiguration: {
        ObjectLockEnabled: 'Enabled',
        Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: 3650 } },
      },
      LifecycleConfiguration: {
        Rules: [
          expect.objectContaining({
            ExpirationInDays: 3650,
            Transitions: [{ StorageClass: 'GLACIER_IR', TransitionInDays: 30 }],
          }),
        ],
      },
    });
    expect(policyOf(template).find((s) => s.Sid === 'OnlyTheNamedReadersRead')).toMatchObject({
      Effect: 'Deny',
      Action: ['s3:GetObject', 's3:GetObjectVersion'],
      Condition: { ArnNotLike: { 'aws:PrincipalArn': ['arn:aws:iam::111111111111:role/auditor'] } },
    });
  });

  it("keeps the raw copies the processor's alone, and the deletion records the operators' alone, both create-only (evaluated as IAM would)", () => {
    const operator = 'arn:aws:iam::111111111111:role/bank-operators';
    const { stack, template, receiver } = synthReceiver({}, (s) => ({
      operatorRoles: [iam.Role.fromRoleArn(s, 'Operators', operator)],
    }));
    const statements = policyOf(template);
    const processor = symbolOf(stack.resolve(receiver.processorFunction.role!.roleArn));
    const bucket = symbolOf(stack.resolve(receiver.journalBucket!.bucketArn));
    const put = (arn: string, key: string, createOnly = true) =>
      evaluate(statements, {
        action: 's3:PutObject',
        resource: `${bucket}/${key}`,
        principal: { arn },
        identityAllows: true,
        context: {
          'aws:SecureTransport': 'true',
          's3:TlsVersion': '1.3',
          ...(createOnly ? { 's3:if-none-match': '*' } : {}),
        },
      });
    const intruder = 'arn:aws:iam::111111111111:role/someone-else';
    expect([
      put(processor, 'notifications/2026-11-29/x.json'),
      put(processor, 'subjects/boleto:1:2/2026-11-29/x.json'),
      put(operator, 'deletions/2026-11-29/x.json'),
    ]).toEqual(['allowed', 'allowed', 'allowed']);
    expect([
      put(operator, 'notifications/2026-11-29/x.json'),
      put(processor, 'deletions/2026-11-29/x.json'),
      put(intruder, 'deletions/2026-11-29/x.json'),
      put(intruder, 'notifications/2026-11-29/x.json'),
      put(operator, 'deletions/2026-11-29/x.json', false),
    ]).toEqual(Array(5).fill('explicitly denied'));
    // Without operators named, nobody records a deletion.
    const none = synthReceiver();
    const alone = policyOf(none.template);
    expect(
      evaluate(alone, {
        action: 's3:PutObject',
        resource: `${symbolOf(none.stack.resolve(none.receiver.journalBucket!.bucketArn))}/deletions/x.json`,
        principal: { arn: operator },
        identityAllows: true,
        context: { 's3:if-none-match': '*' },
      }),
    ).toBe('explicitly denied');
  });

  it('is not locked by default where a stack may empty it (NON_PRODUCTION, or DESTROY), nor when told NONE', () => {
    for (const props of [
      { stage: BankStage.NON_PRODUCTION },
      { removalPolicy: RemovalPolicy.DESTROY },
      { journal: { objectLock: JournalObjectLock.NONE } },
    ]) {
      const [bucket] = Object.values(buckets(synthReceiver(props).template));
      expect([props, bucket.Properties.ObjectLockEnabled, bucket.Properties.ObjectLockConfiguration]).toEqual([
        props,
        undefined,
        undefined,
      ]);
    }
  });

  it("follows the retention given, and a standalone processor's stage", () => {
    const { template } = synthReceiver({
      journal: { retention: Duration.days(400), transitionAfter: Duration.days(30) },
    });
    const [bucket] = Object.values(buckets(template));
    expect(bucket.Properties.ObjectLockConfiguration.Rule).toEqual({
      DefaultRetention: { Mode: 'GOVERNANCE', Days: 400 },
    });
    expect(journalObjectLock({}, undefined, false)).toBe(JournalObjectLock.NONE);
    expect(journalObjectLock({}, RemovalPolicy.RETAIN, true)).toBe(JournalObjectLock.GOVERNANCE);
    expect(journalObjectLock({ objectLock: JournalObjectLock.COMPLIANCE }, undefined, false)).toBe(
      JournalObjectLock.COMPLIANCE,
    );
  });

  it("takes Object Lock in place on a deployed journal, by the upgrade gate's judgement: an update, never a replacement", () => {
    const today = synthReceiver().template.toJSON() as TemplateJson;
    const [id] = Object.keys(today.Resources!).filter((key) => today.Resources![key].Type === 'AWS::S3::Bucket');
    // The journal as a stack deployed it before the lock was its default.
    const deployed = structuredClone(today);
    delete (deployed.Resources![id].Properties as Record<string, unknown>).ObjectLockConfiguration;
    expect(upgradeChanges('Stack', deployed, today).map(describeChange)).toEqual([
      `Stack/${id} (AWS::S3::Bucket): updated in place: ObjectLockConfiguration`,
    ]);
    // Why a lock by default never writes ObjectLockEnabled: the same change through it replaces the journal.
    const throughEnabled = structuredClone(today);
    (throughEnabled.Resources![id].Properties as Record<string, unknown>).ObjectLockEnabled = true;
    expect(upgradeChanges('Stack', deployed, throughEnabled).map((change) => change.hazard)).toEqual([
      UpgradeHazard.REPLACE,
    ]);
  });

  it('refuses a stage that is not a BankStage, naming it', () => {
    expect(() => synthReceiver({ stage: 'PROD' as BankStage })).toThrow(
      /stage: must be BankStage\.PRODUCTION or BankStage\.NON_PRODUCTION, got "PROD"/,
    );
  });

  it('alarms when a raw notification cannot be stored, naming its runbook', () => {
    const { template } = synthReceiver();
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: ProcessorMetric.JOURNAL_FAILURES,
      AlarmDescription: Match.stringLikeRegexp('journal'),
    });
  });

  it('can be turned off: no bucket, no setting, no alarm', () => {
    const { template } = synthReceiver({ journal: { enabled: false } });
    expect(buckets(template)).toEqual({});
    expect(processorSettingsOf(template).journalBucketName).toBeUndefined();
    template.resourcePropertiesCountIs('AWS::CloudWatch::Alarm', { MetricName: ProcessorMetric.JOURNAL_FAILURES }, 0);
  });

  it('refuses a retention or transition out of range in one error naming each prop', () => {
    expect(() =>
      synthReceiver({ journal: { retention: Duration.days(0), transitionAfter: Duration.hours(36) } }),
    ).toThrow(
      /journal\.retention: must be a whole number of days from 1 to 36500[\s\S]*journal\.transitionAfter: must be a whole number of days/,
    );
    expect(() =>
      synthReceiver({ journal: { retention: Duration.days(30), transitionAfter: Duration.days(90) } }),
    ).toThrow(/journal\.transitionAfter: must be shorter than retention \(90 days is not shorter than 30\)/);
  });
});
