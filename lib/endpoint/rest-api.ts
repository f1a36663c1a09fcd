/** The REST API's parts that hold no state of the endpoint: the source allowlist, the access log's format, the compliance findings it answers. */
import { Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import { acknowledgeInherent } from '../core/compliance';

/** A resource policy that lets only `cidrs` invoke the API. */
export function sourceAllowlistPolicy(cidrs: string[]): iam.PolicyDocument {
  const invoke = { principals: [new iam.AnyPrincipal()], actions: ['execute-api:Invoke'], resources: ['execute-api:/*'] };
  return new iam.PolicyDocument({
    statements: [
      new iam.PolicyStatement({ effect: iam.Effect.ALLOW, ...invoke }),
      new iam.PolicyStatement({ effect: iam.Effect.DENY, ...invoke, conditions: { NotIpAddress: { 'aws:SourceIp': cidrs } } }),
    ],
  });
}

/** JSON access log: who called, what they got and how long it took. No headers, so no tokens. */
export function accessLogFormat(): apigateway.AccessLogFormat {
  const f = apigateway.AccessLogField;
  return apigateway.AccessLogFormat.custom(JSON.stringify({
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
  }));
}

/** The compliance findings the API answers by design, each with its reason. */
export function acknowledgeApiFindings(api: apigateway.RestApi, pix = false): void {
  const tokenCheck = pix
    ? 'The Pix provider authenticates with its client certificate (mutual TLS on the Pix domain, whose truststore is its issuing chain, and the receiver pins its leaf), not IAM or Cognito, which the standard Pix API does not speak; every Pix is then confirmed with the provider\'s query under our own credentials.'
    : 'The bank authenticates with a static shared token (authorizationCallback, or the boleto contract\'s header and token), not IAM or Cognito; the receiver function checks it in constant time on every request.';
  Validations.of(api).acknowledge(
    {
      id: 'AwsSolutions::AwsSolutions-APIG2',
      reason: 'Bodies must reach the receiver even when malformed: the bank does not resend, so an authenticated request is stored and the processor quarantines what it cannot parse.',
    },
    { id: 'AwsSolutions::AwsSolutions-APIG4', reason: tokenCheck },
    { id: 'AwsSolutions::AwsSolutions-COG4', reason: tokenCheck },
  );
  const stage = api.deploymentStage;
  acknowledgeInherent(stage, 'APIGWCacheEnabledAndEncrypted', 'Every request is a notification to store: a cached answer would never reach the receiver, and the bank does not resend. The stage caches nothing, so no response is kept to encrypt.');
  acknowledgeInherent(stage, 'APIGWSSLEnabled', 'A stage client certificate authenticates API Gateway to an HTTP backend; the only backend here is the receiver function, invoked through Lambda\'s API with API Gateway\'s IAM permission, where a client certificate has no use.');
}

