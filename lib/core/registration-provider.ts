import { type CfnElement, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { RegistrationDefaults } from '../../contracts/registration';
import { acknowledgeInherent, acknowledgeVpcAccessPolicy, ROLE_POLICY_REASON } from './compliance';
import { type FunctionNetworkProps, functionNetwork, sameNetwork } from './function-network';
import { ProviderFunction } from './provider-function';

/**
 * The one custom resource provider of a stack for the library's deploy-time work: the bank
 * registrations and each receiver's dead-letter queue redrive-allow policy. The provider's
 * handler (bundled from `lambda/provider`) behind the CDK Provider framework, each with a
 * log group that keeps a year. Found through the construct tree with {@link RegistrationProvider.of},
 * so every `BankWebhookReceiver`, `PaymentWebhookRegistration` and `BoletoWebhookContract` of a
 * stack shares it.
 */
export class RegistrationProvider extends Construct {
  /** The construct ID under the stack. */
  public static readonly ID = 'BankWebhooksRegistrationProvider';

  /**
   * The stack's provider, created on first use with `settings` (log encryption and VPC
   * placement of its functions); a later caller asking for other settings gets an error.
   */
  public static of(scope: Construct, settings: RegistrationProviderSettings = {}): RegistrationProvider {
    const stack = Stack.of(scope);
    const existing = stack.node.tryFindChild(RegistrationProvider.ID);
    if (existing === undefined) return new RegistrationProvider(stack, RegistrationProvider.ID, settings);
    if (existing instanceof RegistrationProvider) {
      existing.checkSameSettings(settings);
      return existing;
    }
    throw new Error(
      `The construct ID "${RegistrationProvider.ID}" at the root of stack ${stack.stackName} is taken by another construct; cdk-bank-webhooks keeps it for its registration provider, so rename that construct`,
    );
  }

  /** The function that calls the bank's registration APIs. */
  public readonly handler: lambda.Function;
  /** The provider framework. */
  public readonly provider: cr.Provider;
  /** The service token custom resources point at. */
  public readonly serviceToken: string;

  private constructor(
    scope: Construct,
    id: string,
    private readonly settings: RegistrationProviderSettings,
  ) {
    super(scope, id);
    const { logEncryptionKey } = settings;
    const retention = logs.RetentionDays.ONE_YEAR;
    const network = functionNetwork(this, 'SecurityGroup', settings);

    this.handler = new ProviderFunction(this, 'Handler', {
      description:
        'Registers the webhook URLs with the bank at deploy time and removes them at destroy; limits the dead-letter queue to its source queue (cdk-bank-webhooks)',
      timeout: Duration.seconds(RegistrationDefaults.functionTimeoutSeconds),
      memorySize: 256,
      logGroupId: 'HandlerLogGroup',
      roleId: 'HandlerRole',
      roleDescription:
        "Bank webhook registration: write its logs, read the bank credentials and the webhook tokens, set the dead-letter queues' redrive-allow policy",
      logRetention: retention,
      logEncryptionKey,
      network,
    });
    acknowledgeInherent(
      this.handler,
      'LambdaTracing',
      "It runs only during deploys, a few calls per custom resource, each logged with its request id; the stack's one provider takes no per-receiver tracing setting.",
    );

    const frameworkLogGroup = new logs.LogGroup(this, 'FrameworkLogGroup', {
      retention,
      removalPolicy: RemovalPolicy.RETAIN,
      encryptionKey: logEncryptionKey,
    });
    const frameworkRole = new iam.Role(this, 'FrameworkRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description:
        'CDK provider framework of the bank webhook registrations: invoke the registration handler, write its logs',
    });
    frameworkLogGroup.grantWrite(frameworkRole);
    this.provider = new cr.Provider(this, 'Provider', {
      onEventHandler: this.handler,
      logGroup: frameworkLogGroup,
      frameworkOnEventRole: frameworkRole,
      ...network,
    });
    this.serviceToken = this.provider.serviceToken;
    // CDK's own framework function: its memory, tracing and invocation are CDK's.
    const framework = this.provider.node.findChild('framework-onEvent');
    const frameworkReason =
      "CDK's provider framework function (aws-cdk-lib custom-resources), which takes no option for it; CloudFormation invokes it during deploys only, to relay one custom resource event to the registration handler, and a failure fails the stack operation with its reason.";
    for (const rule of ['LambdaDLQ', 'LambdaConcurrency', 'LambdaTracing', 'LambdaDefaultMemorySize'] as const)
      acknowledgeInherent(framework, rule, frameworkReason);
    acknowledgeInherent(frameworkRole, 'IAMNoInlinePolicy', ROLE_POLICY_REASON);
    if (network.vpc) {
      acknowledgeVpcAccessPolicy(frameworkRole);
    }

    const handlerLogicalId = Stack.of(this).getLogicalId(this.handler.node.defaultChild as CfnElement);
    Validations.of(frameworkRole).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${handlerLogicalId}.Arn>:*]`,
      reason:
        "The CDK provider framework invokes the registration handler; grantInvoke also covers the function's versions and aliases (ARN:*), which is that one function only.",
    });
  }

  private checkSameSettings(settings: RegistrationProviderSettings): void {
    const stackName = Stack.of(this).stackName;
    const mine = this.settings;
    if (settings.logEncryptionKey && mine.logEncryptionKey !== settings.logEncryptionKey) {
      throw new Error(
        `The receivers and registrations of stack ${stackName} share one provider, whose log groups are already encrypted with ${mine.logEncryptionKey ? 'another key' : 'no key'}: give every receiver and registration of the stack the same logEncryptionKey`,
      );
    }
    if ((settings.vpc || mine.vpc) && !sameNetwork(settings, mine)) {
      throw new Error(
        `The receivers and registrations of stack ${stackName} share one provider, whose functions are already placed ${mine.vpc ? `in VPC ${mine.vpc.node.path} with other subnets or security groups` : 'outside any VPC'}: give every receiver and registration of the stack the same vpc, vpcSubnets and securityGroups`,
      );
    }
  }

  /**
   * Lets the registration handler read, write and delete one registration's applied record (an
   * SSM parameter named by contracts/registration.ts `appliedRecordName`; no secret in it).
   */
  public grantAppliedRecord(parameterName: string): void {
    this.handler.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['ssm:GetParameter', 'ssm:PutParameter', 'ssm:DeleteParameter'],
        resources: [appliedRecordArn(this, parameterName)],
      }),
    );
  }

  /** Lets the registration handler read a secret (a token, the bank credentials). */
  public grantRead(secret: secretsmanager.ISecret): iam.Grant {
    return secret.grantRead(this.handler);
  }
}

/**
 * What the stack's registration provider is made with. It is shared by every registration of the
 * stack, so all of them must give the same settings (or none).
 */
export interface RegistrationProviderSettings extends FunctionNetworkProps {
  /**
   * KMS key for the log groups of the stack's registration provider. Its policy must let
   * CloudWatch Logs use it. The provider is one per stack: a receiver makes it with its own
   * settings (a receiver's registration entries take them deprecated); they matter on a
   * standalone registration construct.
   * @default - CloudWatch Logs' own encryption
   */
  readonly logEncryptionKey?: kms.IKey;
}

/** The ARN of an applied record (an SSM parameter whose name starts with a slash). */
export function appliedRecordArn(scope: Construct, parameterName: string): string {
  return Stack.of(scope).formatArn({
    service: 'ssm',
    resource: 'parameter',
    resourceName: parameterName.replace(/^\//, ''),
  });
}
