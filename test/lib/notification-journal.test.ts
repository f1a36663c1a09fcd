/**
 * The raw journal's bucket as the processor makes it: encrypted, versioned, TLS only, public access
 * blocked, kept 5 years, written by the processor alone, read by the roles named.
 */
import { Duration } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { JournalObjectLock } from '../../lib';
import { PROCESSOR_SETTINGS_ENV, ProcessorMetric, type ProcessorSettings } from '../../contracts/processor';
import { settingsIn, synthReceiver } from '../support/cdk';

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
    expect(bucket.Properties.ObjectLockEnabled).toBeUndefined();
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
