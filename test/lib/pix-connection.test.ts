/**
 * A Pix connection's props (lib/families/pix/connection.ts): every problem named at once, a PRODUCTION
 * receiver's Pix API held to a real provider by what it is, and settings that carry only what
 * differs from the defaults (a function's environment holds 4 KB in all).
 */
import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Template } from 'aws-cdk-lib/assertions';
import { PIX_CONNECTION_ENV, PixBasicCredentials, PixGrantTypePlacement } from '../../contracts/pix-connection';
import {
  checkRealPixProvider,
  type PixConnectionProps,
  pixConnectionEnvironment,
  pixConnectionSettings,
  validatePixConnection,
} from '../../lib/families/pix/connection';
import { PropsValidation } from '../../lib/core/props-validation';
import { testStack } from '../support/cdk';

const ARN = 'arn:aws:secretsmanager:us-east-1:111111111111:secret:pix-credentials-AbCdEf';

function connection(overrides: Partial<PixConnectionProps> = {}): {
  props: PixConnectionProps;
  stack: ReturnType<typeof testStack>;
} {
  const stack = testStack();
  return {
    stack,
    props: {
      baseUrl: 'https://api-pix.sicredi.com.br',
      credentials: secretsmanager.Secret.fromSecretCompleteArn(stack, 'Pix', ARN),
      ...overrides,
    },
  };
}

function problems(check: (v: PropsValidation) => void): string {
  const v = new PropsValidation('BankWebhookReceiver', 'Stack/Receiver');
  check(v);
  try {
    v.throwIfInvalid();
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

it('resolves the defaults to the base URL, the token URL and the secret alone', () => {
  const { props } = connection();
  expect(pixConnectionSettings(props)).toEqual({
    baseUrl: 'https://api-pix.sicredi.com.br',
    tokenUrl: 'https://api-pix.sicredi.com.br/oauth/token',
    credentialsSecretArn: ARN,
  });
});

it('carries only the paths, scopes and settings that differ from the defaults', () => {
  const { props } = connection({
    grantType: PixGrantTypePlacement.QUERY,
    basicCredentials: PixBasicCredentials.RAW,
    paths: { cobQuery: '/api/v2/cob/{txid}', pixQuery: '/api/v2/pix/{e2eid}' },
    scopes: { pixQuery: ['pix.read', 'cob.read'], cobQuery: ['cob.read'] },
    callTimeout: Duration.seconds(8),
  });
  expect(pixConnectionSettings(props)).toEqual({
    baseUrl: 'https://api-pix.sicredi.com.br',
    tokenUrl: 'https://api-pix.sicredi.com.br/oauth/token',
    credentialsSecretArn: ARN,
    grantType: 'query',
    basicCredentials: 'raw',
    paths: { cobQuery: '/api/v2/cob/{txid}' },
    scopes: { pixQuery: 'pix.read cob.read' },
    callTimeoutMs: 8000,
  });
  // The default, written out, is not carried: no deployed key registration's properties change.
  expect(
    pixConnectionSettings(connection({ basicCredentials: PixBasicCredentials.FORM_ENCODED }).props),
  ).not.toHaveProperty('basicCredentials');
});

it('names every problem of the props in one error', () => {
  const { props } = connection({
    baseUrl: 'https://api-pix.example/api/v2',
    tokenUrl: 'http://api-pix.example/oauth/token',
    paths: {
      pixQuery: '/api/v2/pix',
      refundQuery: '/api/v2/pix/{e2eid}/devolucao/../{id}',
      webhookPut: '/api/v2/webhook/{chave}?x=1',
    },
    scopes: { cobQuery: [], pixListing: ['pix read'] },
    callTimeout: Duration.minutes(1),
  });
  const message = problems((v) => validatePixConnection(v, props, 'pix'));
  expect(message).toMatch(/\(8 problems\)/);
  for (const expected of [
    "pix.baseUrl: must be the API's origin without a path",
    'pix.tokenUrl: must be an https URL',
    'pix.paths.pixQuery: must be a path such as /api/v2/pix/{e2eid} (segments of letters, digits and ._~-, holding {e2eid}), got "/api/v2/pix"',
    'pix.paths.refundQuery: must be a path such as',
    'pix.paths.webhookPut: must be a path such as',
    'pix.scopes.cobQuery: must be one or more scopes',
    'pix.scopes.pixListing: must be one or more scopes',
    'pix.callTimeout: must be from 1 to 30 seconds, got 60000',
  ])
    expect(message).toContain(expected);
});

it("refuses, for a PRODUCTION receiver, a Pix API on a Lambda function URL: a BankSandbox's in the app, or a literal one", () => {
  const { stack, props } = connection();
  const sandbox = new lambda.Function(stack, 'Sandbox', {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => ({})'),
  });
  const url = sandbox.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
  expect(problems((v) => checkRealPixProvider(v, stack, { ...props, baseUrl: url.url }, 'pix'))).toContain(
    'pix.baseUrl: points at a Lambda function URL',
  );
  expect(
    problems((v) =>
      checkRealPixProvider(
        v,
        stack,
        { ...props, tokenUrl: 'https://abc123.lambda-url.us-east-1.on.aws/oauth/token' },
        'pix',
      ),
    ),
  ).toContain('pix.tokenUrl: points at a Lambda function URL');
  expect(problems((v) => checkRealPixProvider(v, stack, props, 'pix'))).toBe('');
});

it('hands a function its settings in one variable well inside the 4 KB, with read access to the credentials only', () => {
  const { stack, props } = connection({
    paths: { cobQuery: '/api/v2/cob/{txid}', cobvQuery: '/api/v3/cobv/{txid}' },
    scopes: { webhookPut: ['webhook.write', 'webhook.read'] },
  });
  const role = new iam.Role(stack, 'Fn', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
  const environment = pixConnectionEnvironment(stack, props, role);
  const value = stack.resolve(environment[PIX_CONNECTION_ENV]) as unknown;
  expect(Buffer.byteLength(JSON.stringify(value))).toBeLessThan(600);
  const statements = Template.fromStack(stack).findResources('AWS::IAM::Policy');
  expect(JSON.stringify(statements)).toContain('secretsmanager:GetSecretValue');
  expect(JSON.stringify(statements)).toContain(ARN);
});
