/**
 * BankSandbox (the bank simulator deployed in the user's account) and a receiver pointed at it:
 * what it creates, what a NON_PRODUCTION receiver may do against it and a PRODUCTION one may not,
 * and that no credential value reaches the template.
 */
import { App, Duration, Fn, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { BankSandbox, BankStage, BankWebhookReceiver } from '../../lib';
import {
  SAMPLE_PIX_KEYS,
  SANDBOX_CREDENTIALS_PROPERTY,
  SANDBOX_ENV,
  SANDBOX_PIX_CREDENTIALS_PROPERTY,
} from '../../contracts/sandbox';
import { synthIn, testBankConnection, testStack } from '../support/cdk';

describe('BankSandbox', () => {
  const { built: sandbox, template } = synthIn((stack) => {
    const made = new BankSandbox(stack, 'Sandbox', { tokenLifetime: Duration.minutes(10) });
    made.grantControl(new iam.Role(stack, 'Tester', { assumedBy: new iam.AccountRootPrincipal() }));
    return made;
  });

  it("serves the bank's API through a function URL with no auth, and takes control calls by Lambda Invoke only", () => {
    template.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'NONE' });
    // The public may invoke through the URL only; a direct invoke (the control API) needs IAM.
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: '*',
      InvokedViaFunctionUrl: true,
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Action: 'lambda:InvokeFunction', Effect: 'Allow' })]),
      },
      Roles: [{ Ref: Match.stringLikeRegexp('^Tester') }],
    });
  });

  it('keeps its state in an on-demand table and its credentials in a secret the credentials resource fills with the ARN only', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    });
    const resources = template.findResources('Custom::BankSandboxCredentials');
    expect(Object.values(resources)).toHaveLength(1);
    const properties = Object.values(resources)[0].Properties as Record<string, unknown>;
    expect(Object.keys(properties).sort()).toEqual([
      SANDBOX_CREDENTIALS_PROPERTY,
      SANDBOX_PIX_CREDENTIALS_PROPERTY,
      'ServiceToken',
    ]);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          [SANDBOX_ENV.TOKEN_LIFETIME_SECONDS]: '600',
          [SANDBOX_ENV.ACCOUNTS]: JSON.stringify([
            {
              cooperativa: '0101',
              posto: '02',
              conta: '123456',
              documento: '12345678000199',
              beneficiario: '54321',
              pixKeys: SAMPLE_PIX_KEYS,
            },
          ]),
          [SANDBOX_ENV.PIX_CREDENTIALS_SECRET_ARN]: { Ref: Match.stringLikeRegexp('^SandboxPixCredentials') },
        }),
      },
    });
    expect(sandbox.connection.simulated).toBe(true);
    expect(sandbox.connection.account.codigoBeneficiario).toBe('54321');
  });

  it('refuses a malformed account, token lifetime and Pix key, naming each', () => {
    expect(() =>
      synthIn(
        (stack) =>
          new BankSandbox(stack, 'Sandbox', {
            account: {
              cooperativa: '01 01',
              posto: '02',
              conta: '123456',
              documento: '12345678000199',
              codigoBeneficiario: '',
            },
            tokenLifetime: Duration.seconds(10),
            pixKeys: ['pix@example.com', 'not a key'],
          }),
      ),
    ).toThrow(/BankSandbox.*account\.cooperativa.*account\.codigoBeneficiario.*pixKeys\[1\].*tokenLifetime/s);
  });

  it('has a Pix application of its own: a second secret the same resource fills, and a simulated Pix connection with its keys', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      Description: Match.stringLikeRegexp('Pix application'),
    });
    expect(sandbox.pixConnection.simulated).toBe(true);
    expect(sandbox.pixKeys).toEqual(SAMPLE_PIX_KEYS);
    const stack = Stack.of(sandbox);
    expect(stack.resolve(sandbox.pixConnection.credentials.secretArn)).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^SandboxCredentialsFill/), 'PixSecretArn'],
    });
  });
});

describe('a receiver against a BankSandbox', () => {
  const build = (stage?: BankStage) =>
    synthIn((stack) => {
      const sandbox = new BankSandbox(stack, 'Sandbox');
      return new BankWebhookReceiver(stack, 'Webhooks', {
        bank: sandbox.connection,
        stage,
        paymentRegistration: {},
        boletoContracts: [{}],
        reconciliation: {},
      });
    });

  it('is NON_PRODUCTION by default and still registers, sweeps and watches, against the sandbox', () => {
    const { built: receiver, template } = build();
    expect(receiver.stage).toBe(BankStage.NON_PRODUCTION);
    expect(receiver.reconciliation).toBeDefined();
    expect(Object.keys(template.findResources('Custom::BankPaymentWebhookRegistration'))).toHaveLength(1);
    expect(Object.keys(template.findResources('Custom::BankBoletoWebhookContract'))).toHaveLength(1);
    // The registrations read the credentials through the fill resource: they wait until it has made them.
    const registration = Object.values(template.findResources('Custom::BankPaymentWebhookRegistration'))[0];
    expect(JSON.stringify(registration.Properties)).toContain('"SecretArn"]');
    // No silence alarm: nobody's money depends on staging's notifications.
    expect(JSON.stringify(template.findResources('AWS::CloudWatch::Alarm'))).not.toMatch(/[Ss]ilence/);
  });

  it("receives Pix from the sandbox's Pix API: each of its keys registered at deploy, the sweep reading its listing, with the warning that no mutual TLS checks the callbacks", () => {
    const {
      built: receiver,
      template,
      stack,
    } = synthIn((s) => {
      const sandbox = new BankSandbox(s, 'Sandbox');
      return new BankWebhookReceiver(s, 'Webhooks', {
        bank: sandbox.connection,
        pix: { connection: sandbox.pixConnection, keys: sandbox.pixKeys },
        reconciliation: {},
      });
    });
    expect(receiver.stage).toBe(BankStage.NON_PRODUCTION);
    expect(Object.keys(template.findResources('Custom::BankPixKeyWebhook'))).toHaveLength(SAMPLE_PIX_KEYS.length);
    const sweep = Object.values(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Description: Match.stringLikeRegexp('^Finds settlements') },
      }),
    )[0];
    expect(JSON.stringify(sweep.Properties.Environment)).toContain('\\"simulated\\":true');
    Annotations.fromStack(stack).hasWarning(
      '/TestStack/Webhooks',
      Match.stringLikeRegexp('The Pix route checks no client certificate'),
    );
  });

  it("refuses a PRODUCTION receiver against a simulated Pix API, or one whose URL is a sandbox's", () => {
    expect(() =>
      synthIn((stack) => {
        const sandbox = new BankSandbox(stack, 'Sandbox');
        return new BankWebhookReceiver(stack, 'Webhooks', {
          bank: testBankConnection(stack),
          stage: BankStage.PRODUCTION,
          pix: { connection: { ...sandbox.pixConnection, simulated: false }, keys: sandbox.pixKeys },
        });
      }),
    ).toThrow(/pix\.connection\.baseUrl: points at a Lambda function URL/);
    expect(() =>
      synthIn(
        (stack) =>
          new BankWebhookReceiver(stack, 'Webhooks', {
            bank: testBankConnection(stack),
            stage: BankStage.PRODUCTION,
            pix: {
              connection: {
                baseUrl: 'https://api-pix.provider.example',
                credentials: testBankConnection(stack).credentials,
                simulated: true,
              },
              keys: ['pix@example.com'],
            },
          }),
      ),
    ).toThrow(/pix\.connection\.simulated: is true \(a BankSandbox's Pix API\) on a PRODUCTION receiver/);
  });

  it('refuses a PRODUCTION receiver against a simulated bank, saying what to do', () => {
    expect(() => build(BankStage.PRODUCTION)).toThrow(/bank\.simulated.*PRODUCTION receiver.*NON_PRODUCTION stack/);
  });

  it("refuses a PRODUCTION receiver whose URLs are a sandbox's, whatever flag is spread over them, in this stack or another of the app", () => {
    // The flag turned off on a copy of the connection.
    expect(() =>
      synthIn((stack) => {
        const sandbox = new BankSandbox(stack, 'Sandbox');
        return new BankWebhookReceiver(stack, 'Webhooks', {
          bank: { ...sandbox.connection, simulated: false },
          stage: BankStage.PRODUCTION,
          paymentRegistration: {},
        });
      }),
    ).toThrow(
      /Invalid BankWebhookReceiver props at TestStack\/Webhooks \(4 problems\):\n {2}- bank\.baseUrl: points at a Lambda function URL \(a BankSandbox's.*never the real bank.*\n {2}- bank\.registrationBaseUrl: .*\n {2}- bank\.collectionTokenUrl: .*\n {2}- bank\.paymentsTokenUrl: /,
    );
    // A sandbox in another stack of the app, its URL joined into another; the default stage (registrations make it PRODUCTION).
    const app = new App();
    const sandbox = new BankSandbox(new Stack(app, 'Staging'), 'Sandbox');
    const production = new Stack(app, 'Production');
    expect(
      () =>
        new BankWebhookReceiver(production, 'Webhooks', {
          bank: { ...testBankConnection(production), baseUrl: Fn.join('', [sandbox.baseUrl, '/']) },
          paymentRegistration: {},
        }),
    ).toThrow(
      /Invalid BankWebhookReceiver props at Production\/Webhooks \(1 problem\):\n {2}- bank\.baseUrl: points at a Lambda function URL/,
    );
  });

  it('refuses a literal function URL host in PRODUCTION, and lets a NON_PRODUCTION receiver point at one without registering', () => {
    const host = 'https://abcdefghijklmnopqrstuvwxyz012345.lambda-url.sa-east-1.on.aws';
    expect(() =>
      synthIn(
        (stack) =>
          new BankWebhookReceiver(stack, 'Webhooks', {
            bank: testBankConnection(stack, { baseUrl: host, registrationBaseUrl: `${host}/pagamentos` }),
            stage: BankStage.PRODUCTION,
          }),
      ),
    ).toThrow(
      /bank\.baseUrl: points at a Lambda function URL.*\n {2}- bank\.registrationBaseUrl: points at a Lambda function URL/s,
    );
    expect(() =>
      synthIn(
        (stack) =>
          new BankWebhookReceiver(stack, 'Webhooks', {
            bank: testBankConnection(stack, { baseUrl: host, registrationBaseUrl: `${host}/pagamentos` }),
            stage: BankStage.NON_PRODUCTION,
          }),
      ),
    ).not.toThrow();
    // The real bank's hosts pass.
    expect(() =>
      synthIn(
        (stack) =>
          new BankWebhookReceiver(stack, 'Webhooks', {
            bank: testBankConnection(stack),
            stage: BankStage.PRODUCTION,
            paymentRegistration: {},
          }),
      ),
    ).not.toThrow();
  });

  it('keeps refusing registrations of a NON_PRODUCTION receiver against the real bank', () => {
    const stack = testStack();
    expect(
      () =>
        new BankWebhookReceiver(stack, 'Webhooks', {
          bank: testBankConnection(stack),
          stage: BankStage.NON_PRODUCTION,
          paymentRegistration: {},
        }),
    ).toThrow(/paymentRegistration.*must be left out.*BankSandbox/s);
  });

  it("puts no credential in the template: only the secret's ARN travels", () => {
    const { template } = build();
    const json = JSON.stringify(template.toJSON());
    expect(json).not.toMatch(/"(apiKey|password|clientSecret)"\s*:\s*"[^"]/);
    expect(
      Template.fromJSON(template.toJSON()).findResources('AWS::SecretsManager::Secret', {
        Properties: { SecretString: Match.anyValue() },
      }),
    ).toEqual({});
  });
});
