/**
 * The hardened example: every hardening prop set, five cdk-nag packs with zero unacknowledged
 * findings, and every acknowledgement listed here per pack, so that a new one is a reviewed change.
 */
import { Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { HIPAASecurityChecks, NIST80053R5Checks, PCIDSS321Checks, ServerlessChecks } from 'cdk-nag';
import { buildHardenedApp, HardenedBankWebhooksStack } from '../../examples/hardened/app';
import { BankWebhookReceiver } from '../../lib';
import { temporaryApps, testBankConnection, testStack } from '../support/cdk';
import { acknowledgedRulesByPack, acknowledgments } from '../support/nag';

const newApp = temporaryApps('hardened-');

const app = buildHardenedApp(newApp());
// Throws, listing each finding, if any of the five packs has an unacknowledged one.
const assembly = app.synth();
const stack = app.node.findChild('BankWebhooksHardened') as HardenedBankWebhooksStack;
const template = Template.fromJSON(assembly.getStackByName(stack.stackName).template as Record<string, unknown>);

it('synthesizes under AwsSolutions, NIST 800-53 rev 5, PCI DSS 3.2.1, HIPAA and Serverless with every acknowledgement listed and reasoned', () => {
  expect(acknowledgedRulesByPack(app)).toEqual({
    AwsSolutions: [
      // The bank's API and the Pix API.
      'APIG2 ×2',
      'APIG4 ×2',
      'COG4 ×2',
      // API Gateway's logging role, AWS Backup's role, Lambda's VPC policy on the five functions' roles.
      'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs] ×1',
      'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup] ×1',
      'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole] ×5',
      // X-Ray (tracing: XRAY) on the receiver, processor and sweep; the framework's invoke of the handler's versions; the sweep's DescribeStackDriftDetectionStatus.
      'IAM5[Resource::*] ×4',
      // The processor's PutObject under the journal's two prefixes.
      'IAM5[Resource::<BankWebhooksProcessorJournal36CB996C.Arn>/notifications/*] ×1',
      'IAM5[Resource::<BankWebhooksProcessorJournal36CB996C.Arn>/subjects/*] ×1',
      'IAM5[Resource::<BankWebhooksRegistrationProviderHandlerB6890A73.Arn>:*] ×1',
      // The sweep's drift detection reads the stack's resources (generated names) as its caller: reads only, per service.
      'IAM5[Resource::arn:<AWS::Partition>:events:<AWS::Region>:<AWS::AccountId>:*] ×1',
      'IAM5[Resource::arn:<AWS::Partition>:iam::<AWS::AccountId>:role/*] ×1',
      'IAM5[Resource::arn:<AWS::Partition>:lambda:<AWS::Region>:<AWS::AccountId>:function:*] ×1',
      'IAM5[Resource::arn:<AWS::Partition>:s3:::*] ×1',
      'IAM5[Resource::arn:<AWS::Partition>:sqs:<AWS::Region>:<AWS::AccountId>:*] ×1',
      // The journal's access log bucket logs nothing of its own.
      'S1 ×1',
      // The company rotates tokens by deploy.
      'SMG4 ×2',
      // The audit log rule's dead-letter queue is the end of the line.
      'SQS3 ×1',
    ],
    'HIPAA.Security': [
      'APIGWCacheEnabledAndEncrypted ×2',
      'APIGWSSLEnabled ×2',
      'IAMNoInlinePolicy ×6',
      'LambdaConcurrency ×5',
      'LambdaDLQ ×5',
      'S3BucketLoggingEnabled ×1',
      'S3BucketReplicationEnabled ×2',
      'S3DefaultEncryptionKMS ×1',
      'SecretsManagerRotationEnabled ×2',
      'VPCDefaultSecurityGroupClosed ×1',
      'VPCNoUnrestrictedRouteToIGW ×2',
    ],
    'NIST.800.53.R5': [
      'APIGWCacheEnabledAndEncrypted ×2',
      'APIGWSSLEnabled ×2',
      'IAMNoInlinePolicy ×6',
      'LambdaConcurrency ×5',
      'LambdaDLQ ×5',
      'S3BucketLoggingEnabled ×1',
      'S3BucketReplicationEnabled ×2',
      'S3DefaultEncryptionKMS ×1',
      'SecretsManagerRotationEnabled ×2',
      'VPCDefaultSecurityGroupClosed ×1',
      'VPCNoUnrestrictedRouteToIGW ×2',
    ],
    'PCI.DSS.321': [
      'APIGWCacheEnabledAndEncrypted ×2',
      'APIGWSSLEnabled ×2',
      'IAMNoInlinePolicy ×6',
      'S3BucketLoggingEnabled ×1',
      'S3BucketReplicationEnabled ×2',
      'S3DefaultEncryptionKMS ×1',
      'VPCDefaultSecurityGroupClosed ×1',
      'VPCNoUnrestrictedRouteToIGW ×2',
    ],
    Serverless: [
      'EventBusDLQ ×1',
      'LambdaDefaultMemorySize ×1',
      'LambdaDLQ ×5',
      'LambdaEventSourceMappingDestination ×1',
      'LambdaTracing ×2',
      'SQSRedrivePolicy ×3',
    ],
  });
  for (const ack of acknowledgments(app).filter((a) => !a.id.startsWith('CloudFormation-Validate')))
    expect(ack.reason.length).toBeGreaterThan(60);
});

it('sets every hardening prop: KMS keys, WAF with redacted token headers, alarm topic, VPC with endpoints and flow logs, tracing, backups', () => {
  for (const type of ['AWS::Logs::LogGroup', 'AWS::SQS::Queue', 'AWS::SecretsManager::Secret']) {
    for (const [id, resource] of Object.entries(template.findResources(type))) {
      expect([
        id,
        (resource.Properties as Record<string, unknown>).KmsKeyId ??
          (resource.Properties as Record<string, unknown>).KmsMasterKeyId,
      ]).toEqual([id, expect.anything()]);
    }
  }
  template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
    WebACLArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^WebAcl'), 'Arn'] },
  });
  template.hasResourceProperties('AWS::WAFv2::LoggingConfiguration', {
    RedactedFields: [{ SingleHeader: { Name: 'authorization' } }],
  });
  for (const fn of Object.values(template.findResources('AWS::Lambda::Function')))
    expect(fn.Properties.VpcConfig).toBeDefined();
  template.resourceCountIs('AWS::EC2::VPCEndpoint', 5);
  template.resourceCountIs('AWS::EC2::FlowLog', 1);
  template.hasResourceProperties('AWS::ApiGateway::Stage', { TracingEnabled: true });
  template.hasResourceProperties('AWS::Backup::BackupSelection', {
    BackupSelection: { Resources: [{ 'Fn::GetAtt': [Match.stringLikeRegexp('IdempotencyTable'), 'Arn'] }] },
  });
  for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm')))
    expect(alarm.Properties.AlarmActions).toHaveLength(1);
});

it("leaves the user's choices to the user: the library acknowledges none of them", () => {
  const bare = newApp();
  const plain = testStack('Plain', bare);
  new BankWebhookReceiver(plain, 'Webhooks', {
    bank: testBankConnection(plain),
    vpc: new ec2.Vpc(plain, 'Vpc'),
    tracingEnabled: true,
    paymentRegistration: {},
    boletoContracts: [{}],
  });
  const ids = acknowledgments(bare).map((a) => a.id);
  const choices = [
    'LambdaInsideVPC',
    'CloudWatchLogGroupEncrypted',
    'SecretsManagerRotationEnabled',
    'SecretsManagerUsingKMSKey',
    'DynamoDBInBackupPlan',
    'APIGWAssociatedWithWAF',
    'APIGWXrayEnabled',
    'AwsSolutions-APIG3',
    'AwsSolutions-SMG4',
  ];
  expect(ids.filter((id) => choices.some((choice) => id.endsWith(choice)))).toEqual([]);
});

it('still finds problems: the four other packs are live (a receiver without the hardening props fails them)', () => {
  const bare = newApp();
  for (const pack of [
    new NIST80053R5Checks(bare),
    new PCIDSS321Checks(bare),
    new HIPAASecurityChecks(bare),
    new ServerlessChecks(bare),
  ])
    Validations.of(bare).addPlugins(pack);
  const plain = testStack('Plain', bare);
  new BankWebhookReceiver(plain, 'Webhooks', { bank: testBankConnection(plain) });
  let report = '';
  try {
    bare.synth();
  } catch (error) {
    report = (error as Error).message;
  }
  for (const finding of [
    'NIST.800.53.R5-LambdaInsideVPC',
    'PCI.DSS.321-CloudWatchLogGroupEncrypted',
    'HIPAA.Security-DynamoDBInBackupPlan',
    'Serverless-LambdaTracing',
  ]) {
    expect(report).toContain(finding);
  }
});
