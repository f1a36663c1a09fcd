/**
 * Integ test of the staging pair (examples/staging-pair): deploy it with its assertions in an
 * account (docs/development.md, "Integ tests in an account"):
 *
 *   npx cdk deploy --all --app "npx tsx test/integ/integ.staging-pair.ts" --require-approval never
 *
 * The assertions stack runs, against what was deployed: a forged request gets 401; a settlement
 * the sandbox sends becomes one `Boleto Settled` on the receiver's bus (caught by a test rule into
 * a queue); both registrations exist at the sandbox; each of the sandbox's Pix keys has the
 * receiver's Pix URL as its webhook, and a charge paid by Pix becomes one `Pix Received`,
 * confirmed with the sandbox's Pix API. Destroy removes them (a manual check, in the docs).
 * CI compares its synthesized templates with the committed snapshot (test/integ/snapshots.test.ts).
 */
import { App, Duration } from 'aws-cdk-lib';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { ExpectedResult, IntegTest, Match } from '@aws-cdk/integ-tests-alpha';
import { StagingPairStack } from '../../examples/staging-pair/app';
import { BankEventDetailType } from '../../lib';

/** The first boleto a fresh sandbox makes (its numbering starts at 1000001, nine digits). */
const FIRST_NOSSO_NUMERO = '001000001';
/** The charge the assertions create and pay (a charge's txid: 26 to 35 letters and digits). */
const PIX_TXID = 'integstagingpair0000000000000001';

export function buildStagingPairInteg(app: App = new App()): App {
  // The assertions read the test stack's outputs: strong references (exports), as integ tests always had; both stacks go together.
  app.node.setContext('@aws-cdk/core:defaultCrossStackReferences', 'strong');
  // An account whose API Gateway has no CloudWatch role yet: `-c createApiGatewayCloudWatchRole=true` (docs/development.md).
  const stack = new StagingPairStack(app, 'BankWebhooksIntegStagingPair', {
    receiver: { createApiGatewayCloudWatchRole: app.node.tryGetContext('createApiGatewayCloudWatchRole') === 'true' },
  });
  const caught = new sqs.Queue(stack, 'CaughtSettlements', {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.hours(1),
  });
  stack.receiver.onVerifiedEvent('IntegSettledRule', BankEventDetailType.BOLETO_SETTLED, {
    target: new targets.SqsQueue(caught),
  });
  const caughtPix = new sqs.Queue(stack, 'CaughtPix', {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.hours(1),
  });
  stack.receiver.onVerifiedEvent('IntegPixRule', BankEventDetailType.PIX_RECEIVED, {
    target: new targets.SqsQueue(caughtPix),
  });
  // The receiver keeps its log groups on destroy (RETAIN): the account keeps them after the test.
  const integ = new IntegTest(app, 'StagingPair', { testCases: [stack] });

  // 1. A forged request gets 401, and nothing is stored.
  integ.assertions
    .httpApiCall(stack.receiver.boletoUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [stack.receiver.boletoTokenHeader]: 'forged-token' },
      body: JSON.stringify({ nossoNumero: FIRST_NOSSO_NUMERO, movimento: 'LIQUIDACAO_PIX' }),
    })
    .expect(ExpectedResult.objectLike({ status: 401 }));

  // 2. Both registrations exist at the sandbox (made by the receiver's deploy).
  const invoke = (method: string, path: string, body?: unknown) =>
    integ.assertions.invokeFunction({
      functionName: stack.sandbox.sandboxFunction.functionName,
      payload: JSON.stringify({ sandboxControl: { method, path, body } }),
    });
  invoke('GET', '/registrations').expect(
    ExpectedResult.objectLike({
      Payload: Match.serializedJson({
        status: 200,
        body: Match.objectLike({
          registrations: Match.arrayWith([Match.objectLike({ urlCallback: stack.receiver.paymentsUrl })]),
        }),
      }),
    }),
  );
  invoke('GET', '/contracts').expect(
    ExpectedResult.objectLike({
      Payload: Match.serializedJson({
        status: 200,
        body: Match.objectLike({
          contracts: Match.arrayWith([
            Match.objectLike({ url: stack.receiver.boletoUrl, contratoStatus: 'ATIVO', urlStatus: 'ATIVO' }),
          ]),
        }),
      }),
    }),
  );

  // 3. A settlement the sandbox sends becomes one Boleto Settled on the bus.
  const created = invoke('POST', '/boletos', { valor: '150.00', seuNumero: 'INTEG-1' });
  created.expect(
    ExpectedResult.objectLike({
      Payload: Match.serializedJson({ status: 201, body: Match.objectLike({ nossoNumero: FIRST_NOSSO_NUMERO }) }),
    }),
  );
  const settled = invoke('POST', `/boletos/${FIRST_NOSSO_NUMERO}/settle`, { canal: 'PIX' });
  settled.expect(
    ExpectedResult.objectLike({
      Payload: Match.serializedJson({ status: 200, body: Match.objectLike({ skipped: null }) }),
    }),
  );
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
                'detail-type': BankEventDetailType.BOLETO_SETTLED,
                detail: Match.objectLike({ subject: Match.objectLike({ nossoNumero: FIRST_NOSSO_NUMERO }) }),
              }),
            ),
          }),
        ],
      }),
    )
    .waitForAssertions({ totalTimeout: Duration.minutes(5), interval: Duration.seconds(10) });
  created.next(settled).next(received);

  // 4. Each of the sandbox's Pix keys has the receiver's Pix URL (the provider appends /pix), and a
  // charge paid by Pix becomes one Pix Received once the sandbox's Pix API confirms it.
  invoke('GET', '/pix').expect(
    ExpectedResult.objectLike({
      Payload: Match.serializedJson({
        status: 200,
        body: Match.objectLike({
          webhooks: stack.sandbox.pixKeys.map((chave) =>
            Match.objectLike({ chave, webhookUrl: stack.receiver.pixUrl }),
          ),
        }),
      }),
    }),
  );
  const charge = invoke('POST', '/pix/charges', { txid: PIX_TXID, valor: '25.00' });
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
  const pixReceived = integ.assertions.awsApiCall('SQS', 'receiveMessage', {
    QueueUrl: caughtPix.queueUrl,
    MaxNumberOfMessages: 10,
    WaitTimeSeconds: 20,
  });
  pixReceived
    .expect(
      ExpectedResult.objectLike({
        Messages: [
          Match.objectLike({
            Body: Match.serializedJson(
              Match.objectLike({
                'detail-type': BankEventDetailType.PIX_RECEIVED,
                detail: Match.objectLike({
                  pix: Match.objectLike({ txid: PIX_TXID, charge: Match.objectLike({ status: 'CONCLUIDA' }) }),
                }),
              }),
            ),
          }),
        ],
      }),
    )
    .waitForAssertions({ totalTimeout: Duration.minutes(5), interval: Duration.seconds(10) });
  charge.next(paid).next(pixReceived);
  return app;
}

if (require.main === module) {
  buildStagingPairInteg().synth();
}
