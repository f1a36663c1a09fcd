import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { BankWebhooksExampleStack } from '../../../examples/basic-receiver/app';
import { BANK_CONNECTION_ENV } from '../../../contracts/bank-connection';
import { PROCESSOR_SETTINGS_ENV } from '../../../contracts/processor';
import { RECEIVER_SETTINGS_ENV } from '../../../contracts/receiver';
import {
  type CloudFormationTemplate,
  describeReceiverDeployment,
  type IntrinsicValues,
  resolveIntrinsics,
} from '../../../tools/local-runner/template';

const template = Template.fromStack(
  new BankWebhooksExampleStack(new App(), 'Example'),
).toJSON() as CloudFormationTemplate;
const deployment = describeReceiverDeployment(template);

/** Local stand-ins: what Ref and GetAtt answer for each resource type. */
const values: IntrinsicValues = {
  region: 'us-east-1',
  accountId: '000000000000',
  ref: (id) => {
    const type = template.Resources[id]?.Type;
    if (type === 'AWS::SQS::Queue') return `http://sqs.us-east-1.localhost:9324/000000000000/${id}`;
    if (type === 'AWS::SecretsManager::Secret')
      return `arn:aws:secretsmanager:us-east-1:000000000000:secret:${id}-AbCdEf`;
    if (type === 'AWS::ApiGateway::RestApi') return 'localapi';
    if (type === 'AWS::ApiGateway::Stage') return 'prod';
    return `${id}-name`;
  },
  getAtt: (id, attribute) => `${id}.${attribute}`,
};

it('finds the receiver, the processor, the registration handler and their settings in the example app', () => {
  expect(deployment.queue).toEqual({
    logicalId: expect.stringMatching(/^BankWebhooksQueue/),
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 5,
    deadLetterQueue: expect.stringMatching(/^BankWebhooksDeadLetterQueue/),
  });
  expect(deployment.eventSource).toEqual({ batchSize: 10, reportBatchItemFailures: true, maxConcurrency: undefined });
  expect(deployment.receiver).toMatchObject({ timeoutSeconds: 6, memorySize: 512 });
  expect(deployment.processor).toMatchObject({ timeoutSeconds: 30, memorySize: 512 });
  expect(deployment.registrationHandler).toMatchObject({
    timeoutSeconds: 120,
    logicalId: expect.stringMatching(/RegistrationProviderHandler/),
  });
  expect(deployment.generatedSecrets).toHaveLength(2);
  expect(deployment.api.stageName).toBe('prod');
  expect(deployment.registrations.map((r) => r.type)).toEqual([
    'Custom::BankPaymentWebhookRegistration',
    'Custom::BankBoletoWebhookContract',
  ]);
});

it("resolves the functions' environment and the registrations against the local stand-ins", () => {
  const receiverEnv = resolveIntrinsics(deployment.receiver.environment, values) as Record<string, string>;
  expect(JSON.parse(receiverEnv[RECEIVER_SETTINGS_ENV])).toMatchObject({
    queueUrl: `http://sqs.us-east-1.localhost:9324/000000000000/${deployment.queue.logicalId}`,
    paymentsTokenSecretArn: expect.stringMatching(
      /^arn:aws:secretsmanager:us-east-1:000000000000:secret:BankWebhooksPaymentCallbackToken/,
    ),
  });

  const processorEnv = resolveIntrinsics(deployment.processor.environment, values) as Record<string, string>;
  expect(JSON.parse(processorEnv[BANK_CONNECTION_ENV])).toMatchObject({
    credentialsSecretArn: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:cdk-bank-webhooks/bank-credentials',
  });
  expect(JSON.parse(processorEnv[PROCESSOR_SETTINGS_ENV])).toMatchObject({
    idempotencyTableName: `${deployment.idempotencyTable}-name`,
    quarantineQueueUrl: `http://sqs.us-east-1.localhost:9324/000000000000/${deployment.queue.deadLetterQueue}`,
  });

  const [payment, contract] = deployment.registrations.map(
    (r) => resolveIntrinsics(r.properties, values) as Record<string, string>,
  );
  expect(JSON.parse(payment.Registration)).toMatchObject({
    url: 'https://localapi.execute-api.us-east-1.amazonaws.com/prod/payments',
  });
  expect(JSON.parse(contract.Registration)).toMatchObject({
    url: 'https://localapi.execute-api.us-east-1.amazonaws.com/prod/boleto',
  });
});

it('names what it cannot resolve or find', () => {
  expect(() => resolveIntrinsics({ 'Fn::ImportValue': 'x' }, values)).toThrow(
    'The local runner cannot resolve Fn::ImportValue (found in the synthesized template)',
  );
  expect(() => describeReceiverDeployment({ Resources: {} })).toThrow(
    'The template has 0 receiver functions; the local runner runs a stack with exactly one BankWebhookReceiver',
  );
  expect(resolveIntrinsics({ 'Fn::Sub': 'arn:${AWS::Partition}:x:${AWS::Region}:${Thing.Arn}' }, values)).toBe(
    'arn:aws:x:us-east-1:Thing.Arn',
  );
});
