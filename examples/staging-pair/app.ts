/**
 * Example app: a staging stack that runs the whole flow without the production bank. A
 * BankSandbox (the bank simulator, deployed in your account) and a NON_PRODUCTION receiver
 * pointed at it: the receiver registers both webhooks with the sandbox at deploy time, the
 * sandbox notifies the staging endpoint, the processor verifies with the sandbox's query API and
 * publishes, and the sweep and the watch run against the sandbox. Pix too: the sandbox's standard
 * Pix API, each of its keys registered at deploy, without mutual TLS (no domain, certificate or
 * DNS in staging: every Pix is still confirmed with the sandbox's Pix API before it is
 * published). Drive it with the sandbox's control API (Lambda Invoke; docs/sandbox.md). Checked by cdk-nag's AwsSolutions pack like the
 * other examples.
 */
import { Annotations, App, CfnOutput, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import { BankSandbox, BankStage, BankWebhookReceiver, type BankWebhookReceiverProps } from '../../lib';
import { acknowledgeTokenRotationByDeploy, encryptedAlarmTopic, exampleBoletoContract } from '../example-account';

export interface StagingPairStackProps extends StackProps {
  /** Receiver props in place of the example's. @default the example's */
  readonly receiver?: Partial<BankWebhookReceiverProps>;
}

export class StagingPairStack extends Stack {
  public readonly sandbox: BankSandbox;
  public readonly receiver: BankWebhookReceiver;

  constructor(scope: Construct, id: string, props?: StagingPairStackProps) {
    super(scope, id, props);
    this.sandbox = new BankSandbox(this, 'BankSandbox');
    this.receiver = new BankWebhookReceiver(this, 'BankWebhooks', {
      stage: BankStage.NON_PRODUCTION,
      // Everything against the sandbox: its URLs, its credentials secret, its account.
      bank: this.sandbox.connection,
      alarmTopic: encryptedAlarmTopic(this),
      // Registered with the sandbox at deploy time, removed at destroy (as production does with the bank).
      paymentRegistration: {},
      boletoContracts: [exampleBoletoContract(this)],
      // Pix from the sandbox's standard Pix API (synth warns: no mutual TLS without pix.domain).
      pix: { connection: this.sandbox.pixConnection, keys: this.sandbox.pixKeys },
      // The sweep and the registration watch run against the sandbox too.
      reconciliation: {},
      // One API Gateway CloudWatch role per account and region: production's stack sets it.
      createApiGatewayCloudWatchRole: false,
      ...props?.receiver,
    });
    acknowledgeTokenRotationByDeploy(this.receiver);
    // The two warnings a staging stack of this shape meets, each a choice made above.
    Annotations.of(this.receiver).acknowledgeWarning(
      'cdk-bank-webhooks:pixWithoutMutualTls',
      "Staging against the sandbox, which presents no client certificate: each Pix is still confirmed with the sandbox's Pix API; production's stack (examples/hardened) sets pix.domain.",
    );
    Annotations.of(this.receiver).acknowledgeWarning(
      'cdk-bank-webhooks:apiGatewayCloudWatchRole',
      "Production's stack of the same account and region sets API Gateway's CloudWatch role (createApiGatewayCloudWatchRole: true there); the setting is shared by every REST API there.",
    );
    for (const api of [this.receiver.api, this.receiver.endpoint.pixApi!]) {
      Validations.of(api).acknowledge({
        id: 'AwsSolutions::AwsSolutions-APIG3',
        reason:
          "A staging endpoint that only the sandbox calls: the token check (Pix: the query under the receiver's credentials) and stage throttling guard it; production's stack (examples/hardened) sets a WAF web ACL.",
      });
    }
    Validations.of(this.receiver.journalBucket!).acknowledge({
      id: 'AwsSolutions::AwsSolutions-S1',
      reason: "Staging's raw journal holds the sandbox's notifications only; no S3 server access logs for it.",
    });
    new CfnOutput(this, 'SandboxFunctionName', {
      value: this.sandbox.sandboxFunction.functionName,
      description: 'Invoke with {"sandboxControl": {...}} to drive the sandbox (docs/sandbox.md)',
    });
    new CfnOutput(this, 'SandboxUrl', { value: this.sandbox.baseUrl, description: "The simulated bank's base URL" });
    new CfnOutput(this, 'EventBusName', {
      value: this.receiver.eventBus.eventBusName,
      description: 'Verified events are published here',
    });
  }
}

/** Builds the staging pair with cdk-nag's AwsSolutions checks applied. */
export function buildStagingPairApp(app: App = new App()): { app: App; stack: StagingPairStack } {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const stack = new StagingPairStack(app, 'BankWebhooksStagingPair');
  return { app, stack };
}

if (require.main === module) {
  buildStagingPairApp().app.synth();
}
