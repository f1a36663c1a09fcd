/**
 * Example app for an audited account: a BankWebhookReceiver with every hardening prop set (KMS
 * keys for logs, queues and tokens, a WAF web ACL, an alarm topic, a VPC with endpoints, X-Ray,
 * a backup plan for the table) and Pix behind mutual TLS, checked by five cdk-nag packs: AwsSolutions, NIST 800-53 rev 5,
 * PCI DSS 3.2.1, HIPAA Security and Serverless. Synth fails on any unacknowledged finding; what
 * this stack acknowledges is a choice of its own, with its reason, next to the resource.
 *
 *   npx cdk synth --app "npx tsx examples/hardened/app.ts"
 */
import { App, CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { join } from 'node:path';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as backup from 'aws-cdk-lib/aws-backup';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { AwsSolutionsChecks, HIPAASecurityChecks, NIST80053R5Checks, PCIDSS321Checks, ServerlessChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import { BankWebhookReceiver, JournalObjectLock, TracingMode } from '../../lib';
import {
  acknowledgeTokenRotationByDeploy,
  encryptedAlarmTopic,
  exampleBank,
  exampleBoletoContract,
} from '../example-account';

export class HardenedBankWebhooksStack extends Stack {
  public readonly receiver: BankWebhookReceiver;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    // Customer-managed keys, rotated yearly: one for every log group, one for the data at rest
    // (the queues and the token secrets).
    const logsKey = new kms.Key(this, 'LogsKey', {
      enableKeyRotation: true,
      description: 'Encrypts the bank webhook log groups (functions, API access, VPC flow, WAF)',
    });
    const dataKey = new kms.Key(this, 'DataKey', {
      enableKeyRotation: true,
      description: 'Encrypts the bank webhook queues and token secrets',
    });

    const { vpc, functionsSecurityGroup } = this.functionsVpc(logsKey);
    const webAcl = this.webAcl();

    this.receiver = new BankWebhookReceiver(this, 'BankWebhooks', {
      bank: exampleBank(this),
      vpc,
      securityGroups: [functionsSecurityGroup],
      logEncryptionKey: logsKey,
      queueEncryptionKey: dataKey,
      tokenEncryptionKey: dataKey,
      webAclArn: webAcl.attrArn,
      tracing: TracingMode.XRAY,
      alarmTopic: encryptedAlarmTopic(this),
      createApiGatewayCloudWatchRole: true,
      // The role the on-call team redrives and reverifies with: the queues refuse every other sender.
      operatorRoles: [iam.Role.fromRoleName(this, 'Operators', 'bank-webhooks-operators')],
      paymentRegistration: {},
      boletoContracts: [exampleBoletoContract(this)],
      // Raw notifications kept 5 years under the data key, locked against early deletion, with access logs.
      journal: {
        encryptionKey: dataKey,
        objectLock: JournalObjectLock.GOVERNANCE,
        serverAccessLogsBucket: this.accessLogsBucket(),
      },
      // What `cdk-bank-webhooks audit` reads of the bus: every event, written by a rule the processor cannot stand in for (encrypted with the logs key).
      auditLog: { enabled: true },
      // Pix received: on a domain of its own with mutual TLS, only the provider's pinned certificate
      // (its issuing chain in pix-provider-chain.pem: this bank ships it with the Pix application's certificates).
      pix: {
        connection: {
          baseUrl: 'https://api-pix.sicredi.com.br',
          credentials: secretsmanager.Secret.fromSecretNameV2(
            this,
            'PixCredentials',
            'cdk-bank-webhooks/pix-credentials',
          ),
        },
        keys: ['financeiro@example.com.br'],
        domain: {
          domainName: 'pix-webhooks.example.com',
          certificate: acm.Certificate.fromCertificateArn(
            this,
            'PixCertificate',
            `arn:aws:acm:${this.region}:${this.account}:certificate/00000000-0000-0000-0000-000000000000`,
          ),
          truststore: { file: join(__dirname, 'pix-provider-chain.pem') },
          pinnedCertificates: {
            fingerprints: [
              '5A:D9:56:92:B3:53:66:9D:73:5C:C7:8D:D3:14:A0:77:13:0E:37:0F:2B:6D:01:79:12:8F:77:9C:04:12:12:08',
            ],
          },
        },
      },
    });
    // The journal is this stack's record of what the bank sent; one copy in one region is its choice.
    for (const pack of ['NIST.800.53.R5', 'PCI.DSS.321', 'HIPAA.Security']) {
      Validations.of(this.receiver.journalBucket!).acknowledge({
        id: `${pack}::${pack}-S3BucketReplicationEnabled`,
        reason:
          'The raw journal is versioned, locked in governance mode for its retention and written by the processor alone; a cross-region copy is a disaster-recovery choice this example leaves to the account.',
      });
    }

    this.logWebAcl(webAcl, logsKey);

    // The table holds what was published: back it up daily, kept 35 days (beside its point-in-time recovery).
    const plan = backup.BackupPlan.daily35DayRetention(this, 'Backup');
    const selection = plan.addSelection('IdempotencyTable', {
      resources: [backup.BackupResource.fromDynamoDbTable(this.receiver.idempotencyTable)],
    });
    Validations.of(selection).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
      reason:
        "AWS's managed policy for the role AWS Backup assumes to back up the selected table; it is kept current by AWS as Backup adds services.",
    });

    // Tokens are rotated by deploy (put the new value, bump tokenVersion), not on a schedule.
    acknowledgeTokenRotationByDeploy(this.receiver, { awsSolutions: true, nist: true, hipaa: true });

    new CfnOutput(this, 'PaymentsUrl', { value: this.receiver.paymentsUrl, description: 'Register as urlCallback' });
    new CfnOutput(this, 'BoletoUrl', {
      value: this.receiver.boletoUrl,
      description: 'Register as the boleto contract url',
    });
  }

  /** Where S3 writes the journal's access logs (SSE-S3: S3 server access logging cannot write with a KMS key). */
  private accessLogsBucket(): s3.Bucket {
    const bucket = new s3.Bucket(this, 'AccessLogs', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      lifecycleRules: [{ expiration: Duration.days(400) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const reason =
      'The access log bucket itself: logging its own access would log forever, replicating it is a disaster-recovery choice, and S3 server access logging writes only to SSE-S3 buckets.';
    Validations.of(bucket).acknowledge({ id: 'AwsSolutions::AwsSolutions-S1', reason });
    for (const pack of ['NIST.800.53.R5', 'PCI.DSS.321', 'HIPAA.Security']) {
      for (const rule of ['S3BucketLoggingEnabled', 'S3BucketReplicationEnabled', 'S3DefaultEncryptionKMS']) {
        Validations.of(bucket).acknowledge({ id: `${pack}::${pack}-${rule}`, reason });
      }
    }
    return bucket;
  }

  /**
   * Two AZs of private subnets for the functions, with a NAT gateway for the bank (over the
   * internet) and endpoints for the AWS services they call, and flow logs of all traffic.
   */
  private functionsVpc(logsKey: kms.IKey): { vpc: ec2.Vpc; functionsSecurityGroup: ec2.SecurityGroup } {
    const vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 1,
      subnetConfiguration: [
        { name: 'Public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24, mapPublicIpOnLaunch: false },
        { name: 'Functions', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 22 },
      ],
      restrictDefaultSecurityGroup: false,
    });
    for (const pack of ['NIST.800.53.R5', 'PCI.DSS.321', 'HIPAA.Security']) {
      Validations.of(vpc).acknowledge({
        id: `${pack}::${pack}-VPCDefaultSecurityGroupClosed`,
        reason:
          "Nothing in this VPC uses its default security group: the functions and the endpoints each have their own. Closing it takes CDK's custom resource function (restrictDefaultSecurityGroup), one more function to audit; the account's AWS Config rule watches it instead.",
      });
    }
    const flowLogs = new logs.LogGroup(this, 'VpcFlowLogs', {
      retention: logs.RetentionDays.ONE_YEAR,
      encryptionKey: logsKey,
    });
    const flowLog = vpc.addFlowLog('FlowLog', {
      destination: ec2.FlowLogDestination.toCloudWatchLogs(flowLogs),
      trafficType: ec2.FlowLogTrafficType.ALL,
    });
    for (const pack of ['NIST.800.53.R5', 'PCI.DSS.321', 'HIPAA.Security']) {
      Validations.of(flowLog).acknowledge({
        id: `${pack}::${pack}-IAMNoInlinePolicy`,
        reason:
          "CDK's role for VPC Flow Logs, whose policy only lets it write to the flow log group; it serves nothing else.",
      });
    }

    // The functions: no inbound, outbound HTTPS only (to the endpoints and, through the NAT, the bank).
    const functionsSecurityGroup = new ec2.SecurityGroup(this, 'FunctionsSecurityGroup', {
      vpc,
      allowAllOutbound: false,
      description: 'Bank webhook functions: outbound HTTPS only',
    });
    functionsSecurityGroup.addEgressRule(
      ec2.Peer.anyIpv4(),
      ec2.Port.tcp(443),
      'HTTPS to the endpoints and, through the NAT gateway, the bank',
    );
    // What the functions call, without leaving the VPC: the table and the journal (gateways), the
    // queues, the secrets and the bus, each endpoint open to the functions only.
    vpc.addGatewayEndpoint('DynamoDb', { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB });
    vpc.addGatewayEndpoint('S3', { service: ec2.GatewayVpcEndpointAwsService.S3 });
    for (const [id, service] of [
      ['Sqs', ec2.InterfaceVpcEndpointAwsService.SQS],
      ['SecretsManager', ec2.InterfaceVpcEndpointAwsService.SECRETS_MANAGER],
      ['EventBridge', ec2.InterfaceVpcEndpointAwsService.EVENTBRIDGE],
    ] as const) {
      const endpointGroup = new ec2.SecurityGroup(this, `${id}EndpointSecurityGroup`, {
        vpc,
        allowAllOutbound: false,
        description: `${id} endpoint: HTTPS from the bank webhook functions`,
      });
      endpointGroup.addIngressRule(functionsSecurityGroup, ec2.Port.tcp(443), 'HTTPS from the bank webhook functions');
      vpc.addInterfaceEndpoint(id, { service, privateDnsEnabled: true, open: false, securityGroups: [endpointGroup] });
    }
    // The public subnets hold only the NAT gateway: their route to the internet gateway is how the processor reaches the bank.
    for (const subnet of vpc.publicSubnets) {
      for (const pack of ['NIST.800.53.R5', 'PCI.DSS.321', 'HIPAA.Security']) {
        Validations.of(subnet).acknowledge({
          id: `${pack}::${pack}-VPCNoUnrestrictedRouteToIGW`,
          reason:
            "A public subnet holding only the NAT gateway: the bank's API is on the internet, and the functions reach it through the NAT; no function or instance runs here.",
        });
      }
    }
    return { vpc, functionsSecurityGroup };
  }

  /**
   * A regional web ACL for the stage: AWS's IP reputation list and known-bad-inputs rules. No
   * rate rule: the bank sends from few addresses, and a blocked notification is never resent
   * (the stage's throttling bounds the rate).
   */
  private webAcl(): wafv2.CfnWebACL {
    const visibility = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: false,
      metricName,
    });
    const managed = (name: string, priority: number) => ({
      name,
      priority,
      overrideAction: { none: {} },
      visibilityConfig: visibility(name),
      statement: { managedRuleGroupStatement: { vendorName: 'AWS', name } },
    });
    return new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      description: 'Bank webhook endpoint',
      visibilityConfig: visibility('bank-webhooks'),
      rules: [managed('AWSManagedRulesAmazonIpReputationList', 0), managed('AWSManagedRulesKnownBadInputsRuleSet', 1)],
    });
  }

  /** The web ACL's logs, in an encrypted log group, with the headers carrying the bank's tokens redacted. */
  private logWebAcl(acl: wafv2.CfnWebACL, logsKey: kms.IKey): void {
    const wafLogs = new logs.LogGroup(this, 'WafLogs', {
      logGroupName: `aws-waf-logs-${this.stackName}`,
      retention: logs.RetentionDays.ONE_YEAR,
      encryptionKey: logsKey,
    });
    const tokenHeaders = [...new Set(['authorization', this.receiver.boletoTokenHeader.toLowerCase()])];
    new wafv2.CfnLoggingConfiguration(this, 'WebAclLogging', {
      resourceArn: acl.attrArn,
      logDestinationConfigs: [wafLogs.logGroupArn],
      redactedFields: tokenHeaders.map((name) => ({ singleHeader: { Name: name } })),
    });
  }
}

/** Builds the hardened example app with the five cdk-nag packs applied. */
export function buildHardenedApp(app: App = new App()): App {
  for (const pack of [
    new AwsSolutionsChecks(app),
    new NIST80053R5Checks(app),
    new PCIDSS321Checks(app),
    new HIPAASecurityChecks(app),
    new ServerlessChecks(app),
  ]) {
    Validations.of(app).addPlugins(pack);
  }
  new HardenedBankWebhooksStack(app, 'BankWebhooksHardened');
  return app;
}

if (require.main === module) {
  buildHardenedApp().synth();
}
