/** The endpoint's REST APIs: how one is made, the source allowlist, the access log's format, the compliance findings it answers. */
import { Annotations, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { acknowledgeInherent } from '../core/compliance';
import { xrayTracing } from '../core/tracing';
import type { BankWebhookEndpointProps } from './bank-webhook-endpoint-props';

/** A resource policy that lets only `cidrs` invoke the API. */
export function sourceAllowlistPolicy(cidrs: string[]): iam.PolicyDocument {
  const invoke = {
    principals: [new iam.AnyPrincipal()],
    actions: ['execute-api:Invoke'],
    resources: ['execute-api:/*'],
  };
  return new iam.PolicyDocument({
    statements: [
      new iam.PolicyStatement({ effect: iam.Effect.ALLOW, ...invoke }),
      new iam.PolicyStatement({
        effect: iam.Effect.DENY,
        ...invoke,
        conditions: { NotIpAddress: { 'aws:SourceIp': cidrs } },
      }),
    ],
  });
}

/** JSON access log: who called, what they got and how long it took. No headers, so no tokens. */
export function accessLogFormat(): apigateway.AccessLogFormat {
  const f = apigateway.AccessLogField;
  return apigateway.AccessLogFormat.custom(
    JSON.stringify({
      requestId: f.contextRequestId(),
      requestTime: f.contextRequestTime(),
      sourceIp: f.contextIdentitySourceIp(),
      userAgent: f.contextIdentityUserAgent(),
      httpMethod: f.contextHttpMethod(),
      resourcePath: f.contextResourcePath(),
      protocol: f.contextProtocol(),
      status: f.contextStatus(),
      responseLength: f.contextResponseLength(),
      responseLatency: f.contextResponseLatency(),
      integrationLatency: f.contextIntegrationLatency(),
      integrationStatus: f.contextIntegrationStatus(),
      errorMessage: f.contextErrorMessage(),
    }),
  );
}

/** The compliance findings the API answers by design, each with its reason. */
export function acknowledgeApiFindings(api: apigateway.RestApi, pix = false): void {
  const tokenCheck = pix
    ? "The Pix provider authenticates with its client certificate (mutual TLS on the Pix domain, whose truststore is its issuing chain, and the receiver pins its leaf), not IAM or Cognito, which the standard Pix API does not speak; every Pix is then confirmed with the provider's query under our own credentials."
    : "The bank authenticates with a static shared token (authorizationCallback, or the boleto contract's header and token), not IAM or Cognito; the receiver function checks it in constant time on every request.";
  Validations.of(api).acknowledge(
    {
      id: 'AwsSolutions::AwsSolutions-APIG2',
      reason:
        'Bodies must reach the receiver even when malformed: the bank does not resend, so an authenticated request is stored and the processor quarantines what it cannot parse.',
    },
    { id: 'AwsSolutions::AwsSolutions-APIG4', reason: tokenCheck },
    { id: 'AwsSolutions::AwsSolutions-COG4', reason: tokenCheck },
  );
  const stage = api.deploymentStage;
  acknowledgeInherent(
    stage,
    'APIGWCacheEnabledAndEncrypted',
    'Every request is a notification to store: a cached answer would never reach the receiver, and the bank does not resend. The stage caches nothing, so no response is kept to encrypt.',
  );
  acknowledgeInherent(
    stage,
    'APIGWSSLEnabled',
    "A stage client certificate authenticates API Gateway to an HTTP backend; the only backend here is the receiver function, invoked through Lambda's API with API Gateway's IAM permission, where a client certificate has no use.",
  );
}

/**
 * A REST API of the endpoint, made in the endpoint's scope (its construct paths are the endpoint's):
 * regional, every body as bytes, the stage's access log and limits, the source allowlist (the bank's
 * API) or none (the Pix API, whose callers are the provider's), the WAF association, and the
 * account's CloudWatch role once per stack.
 */
export function endpointRestApi(
  scope: Construct,
  id: string,
  description: string,
  accessLogGroup: logs.LogGroup,
  props: BankWebhookEndpointProps,
  sourceAllowlist = true,
  disableExecuteApiEndpoint = false,
): apigateway.RestApi {
  // One account setting per stack: a second endpoint asking for it shares the first's.
  const existingAccount = Stack.of(scope)
    .node.findAll()
    .find((c): c is apigateway.CfnAccount => c instanceof apigateway.CfnAccount);
  const cloudWatchRole = (props.createApiGatewayCloudWatchRole ?? false) && !existingAccount;
  const api = new apigateway.RestApi(scope, id, {
    description,
    endpointConfiguration: { types: [apigateway.EndpointType.REGIONAL] },
    // A mutual-TLS domain's API: the default endpoint would let a caller skip the handshake.
    ...(disableExecuteApiEndpoint ? { disableExecuteApiEndpoint: true } : {}),
    cloudWatchRole,
    // The account-level role is shared by every REST API in the region: keep it on destroy.
    cloudWatchRoleRemovalPolicy: cloudWatchRole ? RemovalPolicy.RETAIN : undefined,
    policy: sourceAllowlist && props.allowedSourceCidrs ? sourceAllowlistPolicy(props.allowedSourceCidrs) : undefined,
    // Every body reaches the receiver base64-encoded, byte for byte: as text, API Gateway would
    // replace bytes that are not UTF-8 before the receiver could store them.
    binaryMediaTypes: ['*/*'],
    deployOptions: {
      stageName: props.stageName ?? 'prod',
      accessLogDestination: new apigateway.LogGroupLogDestination(accessLogGroup),
      accessLogFormat: accessLogFormat(),
      loggingLevel: apigateway.MethodLoggingLevel.ERROR,
      // Data trace would write request headers, and so the bank's token, to the execution log.
      dataTraceEnabled: false,
      metricsEnabled: true,
      tracingEnabled: xrayTracing(props),
      throttlingRateLimit: props.throttlingRateLimit ?? 500,
      throttlingBurstLimit: props.throttlingBurstLimit ?? 1000,
    },
  });
  // No output of an endpoint the API disables: its URL would answer nobody (the domain's is output instead).
  if (disableExecuteApiEndpoint) api.node.tryRemoveChild('Endpoint');
  acknowledgeApiFindings(api, !sourceAllowlist);
  if (props.webAclArn) {
    // The bank's API keeps its association's ID; the Pix API's stage gets one of its own.
    new wafv2.CfnWebACLAssociation(scope, sourceAllowlist ? 'WebAclAssociation' : `${id}WebAclAssociation`, {
      resourceArn: api.deploymentStage.stageArn,
      webAclArn: props.webAclArn,
    });
  }
  if (existingAccount) {
    api.deploymentStage.node.addDependency(existingAccount);
  } else if (!cloudWatchRole) {
    Annotations.of(scope).addWarningV2(
      'cdk-bank-webhooks:apiGatewayCloudWatchRole',
      "The API stage logs errors (execution logging), which needs API Gateway's CloudWatch role set for the account and region. This stack does not set it (createApiGatewayCloudWatchRole is not true): if the account and region have none, the deploy fails at the stage. Set createApiGatewayCloudWatchRole: true in one stack of the account and region (the setting is shared by every REST API there), or set the role once by hand.",
    );
  }
  const cloudWatchRoleConstruct = api.node.tryFindChild('CloudWatchRole');
  if (cloudWatchRoleConstruct) {
    Validations.of(cloudWatchRoleConstruct).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        "AWS's managed policy for API Gateway's account-level logging role; it only allows writing to CloudWatch Logs, which API Gateway needs for ERROR-level execution logs.",
    });
  }
  return api;
}
