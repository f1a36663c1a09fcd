/**
 * Integ test of a Pix receiver behind mutual TLS (issue 52): a BankSandbox and a NON_PRODUCTION
 * receiver whose Pix API is on a regional domain of its own, with the provider's issuing chain as
 * truststore (a file in the app, uploaded as an asset), each of the sandbox's keys registered at
 * deploy, and the daily sweep. Deploy it in an account with a domain it may use
 * (docs/development.md, "Integ tests in an account"):
 *
 *   npx cdk deploy --all --app "npx tsx test/integ/integ.pix-receiver.ts" --require-approval never \
 *     -c pixDomainName=pix-webhooks.staging.example.com -c pixCertificateArn=arn:aws:acm:... \
 *     -c pixHostedZoneId=Z0123456789 -c pixHostedZoneName=staging.example.com
 *
 * The assertions stack checks what the account then shows: the Pix API's default `execute-api`
 * endpoint disabled (nobody skips the handshake) and its domain with a truststore; each key's
 * webhook at the sandbox is the domain; a charge paid by Pix whose callback the domain refused
 * (the sandbox presents no certificate the truststore knows) is found by the sweep and becomes one
 * `Pix Received`, `trigger: reconciliation`. CI compares the synthesized templates with the
 * committed snapshot (test/integ/snapshots.test.ts).
 */
import { join } from 'node:path';
import { App, Duration, Stack } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { ExpectedResult, IntegTest, Match } from '@aws-cdk/integ-tests-alpha';
import { BankEventDetailType, BankSandbox, BankStage, BankWebhookReceiver } from '../../lib';

/** The charge the assertions create and pay. */
const PIX_TXID = 'integpixreceiver0000000000000001';
/** The leaf the hardened example pins (examples/hardened/app.ts): the sandbox presents none, so no callback reaches the handler. */
const PINNED = '5A:D9:56:92:B3:53:66:9D:73:5C:C7:8D:D3:14:A0:77:13:0E:37:0F:2B:6D:01:79:12:8F:77:9C:04:12:12:08';

export function buildPixReceiverInteg(app: App = new App()): App {
  app.node.setContext('@aws-cdk/core:defaultCrossStackReferences', 'strong');
  const context = (key: string, fallback: string): string => {
    const value: unknown = app.node.tryGetContext(key);
    return typeof value === 'string' && value ? value : fallback;
  };
  const stack = new Stack(app, 'BankWebhooksIntegPixReceiver');
  const sandbox = new BankSandbox(stack, 'BankSandbox');
  const zoneId = context('pixHostedZoneId', '');
  const domainName = context('pixDomainName', 'pix-webhooks.integ.example.com');
  const receiver = new BankWebhookReceiver(stack, 'BankWebhooks', {
    stage: BankStage.NON_PRODUCTION,
    bank: sandbox.connection,
    paymentRegistration: {},
    pix: {
      connection: sandbox.pixConnection,
      keys: sandbox.pixKeys,
      domain: {
        domainName,
        certificate: acm.Certificate.fromCertificateArn(
          stack,
          'PixCertificate',
          context(
            'pixCertificateArn',
            `arn:aws:acm:${stack.region}:${stack.account}:certificate/00000000-0000-0000-0000-000000000000`,
          ),
        ),
        truststore: { file: join(__dirname, '..', '..', 'examples', 'hardened', 'pix-provider-chain.pem') },
        pinnedCertificates: { fingerprints: [PINNED] },
        ...(zoneId
          ? {
              hostedZone: route53.HostedZone.fromHostedZoneAttributes(stack, 'PixZone', {
                hostedZoneId: zoneId,
                zoneName: context('pixHostedZoneName', ''),
              }),
            }
          : {}),
      },
    },
    reconciliation: {},
    createApiGatewayCloudWatchRole: context('createApiGatewayCloudWatchRole', 'false') === 'true',
  });
  const caught = new sqs.Queue(stack, 'CaughtPix', {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.hours(1),
  });
  receiver.onVerifiedEvent('IntegPixRule', BankEventDetailType.PIX_RECEIVED, { target: new targets.SqsQueue(caught) });
  const integ = new IntegTest(app, 'PixReceiver', { testCases: [stack] });

  // 1. The Pix API answers only on its domain, with mutual TLS and the truststore.
  integ.assertions
    .awsApiCall('APIGateway', 'getRestApi', { restApiId: receiver.endpoint.pixApi!.restApiId })
    .expect(ExpectedResult.objectLike({ disableExecuteApiEndpoint: true }));
  integ.assertions.awsApiCall('APIGateway', 'getDomainName', { domainName }).expect(
    ExpectedResult.objectLike({
      mutualTlsAuthentication: Match.objectLike({ truststoreUri: Match.stringLikeRegexp('^s3://') }),
    }),
  );

  // 2. Each of the sandbox's keys has the domain as its webhook (the provider appends /pix).
  const invoke = (method: string, path: string, body?: unknown) =>
    integ.assertions.invokeFunction({
      functionName: sandbox.sandboxFunction.functionName,
      payload: JSON.stringify({ sandboxControl: { method, path, body } }),
    });
  invoke('GET', '/pix').expect(
    ExpectedResult.objectLike({
      Payload: Match.serializedJson({
        status: 200,
        body: Match.objectLike({
          webhooks: sandbox.pixKeys.map((chave) => Match.objectLike({ chave, webhookUrl: `https://${domainName}` })),
        }),
      }),
    }),
  );

  // 3. A charge paid by Pix: its callback is refused at the handshake; the sweep finds the Pix, and it is published once.
  const charge = invoke('POST', '/pix/charges', { txid: PIX_TXID, valor: '12.00' });
  charge.expect(
    ExpectedResult.objectLike({
      Payload: Match.serializedJson({ status: 201, body: Match.objectLike({ txid: PIX_TXID }) }),
    }),
  );
  const paid = invoke('POST', `/pix/charges/${PIX_TXID}/pay`, {});
  paid.expect(
    ExpectedResult.objectLike({
      Payload: Match.serializedJson({ status: 201, body: Match.objectLike({ skipped: [] }) }),
    }),
  );
  const refused = invoke('GET', '/deliveries');
  refused.expect(
    ExpectedResult.objectLike({
      Payload: Match.serializedJson({
        status: 200,
        body: Match.objectLike({ deliveries: Match.arrayWith([Match.objectLike({ outcome: 'NÃO ENTREGUE' })]) }),
      }),
    }),
  );
  const swept = integ.assertions.invokeFunction({
    functionName: receiver.reconciliation!.sweepFunction.functionName,
    payload: '{}',
  });
  swept.expect(ExpectedResult.objectLike({ Payload: Match.serializedJson(Match.objectLike({ complete: true })) }));
  const received = integ.assertions.awsApiCall('SQS', 'receiveMessage', {
    QueueUrl: caught.queueUrl,
    MaxNumberOfMessages: 10,
    WaitTimeSeconds: 20,
  });
  received
    .expect(
      ExpectedResult.objectLike({
        Messages: [
          Match.objectLike({
            Body: Match.serializedJson(
              Match.objectLike({
                'detail-type': BankEventDetailType.PIX_RECEIVED,
                detail: Match.objectLike({ trigger: 'reconciliation', pix: Match.objectLike({ txid: PIX_TXID }) }),
              }),
            ),
          }),
        ],
      }),
    )
    .waitForAssertions({ totalTimeout: Duration.minutes(5), interval: Duration.seconds(10) });
  charge.next(paid).next(refused).next(swept).next(received);
  return app;
}

if (require.main === module) {
  buildPixReceiverInteg().synth();
}
