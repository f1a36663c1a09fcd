/**
 * Template tests of the registration constructs: PaymentWebhookRegistration,
 * BoletoWebhookContract, the stack's one RegistrationProvider, and the receiver's wiring.
 */
import { REDRIVE_ALLOW_RESOURCE_TYPE } from '../../contracts/redrive-allow';
import { App, type CfnElement, RemovalPolicy, SecretValue, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import {
  BankWebhookReceiver,
  BoletoContractStatus,
  BoletoWebhookContract,
  PaymentWebhookRegistration,
  RegistrationProvider,
  RegistrationResourceType,
} from '../../lib';
import { RegistrationDefaults } from '../../contracts/registration';
import { testBankConnection, testStack } from '../support/cdk';

const PAYMENTS_URL = 'https://webhooks.example.com/payments';
const BOLETO_URL = 'https://webhooks.example.com/boleto';

const newStack = (id = 'TestStack'): Stack => testStack(id);

function importedSecret(stack: Stack, id: string): secretsmanager.ISecret {
  return secretsmanager.Secret.fromSecretCompleteArn(
    stack,
    id,
    `arn:aws:secretsmanager:sa-east-1:111111111111:secret:${id.toLowerCase()}-AbCdEf`,
  );
}

/** The JSON property `name` of the only custom resource of `type`, parsed (tokens left as they are). */
function jsonProperty(template: Template, type: string, name: string): Record<string, unknown> {
  const [resource] = Object.values(template.findResources(type));
  const value = (resource.Properties as Record<string, unknown>)[name];
  return JSON.parse(typeof value === 'string' ? value : JSON.stringify(value)) as Record<string, unknown>;
}

describe('PaymentWebhookRegistration', () => {
  const stack = newStack();
  const registration = new PaymentWebhookRegistration(stack, 'Payments', {
    bank: testBankConnection(stack),
    url: PAYMENTS_URL,
    token: importedSecret(stack, 'PayToken'),
  });
  const template = Template.fromStack(stack);

  it("is a custom resource with a bounded ServiceTimeout, holding the connection, the URL and only the token's ARN", () => {
    template.hasResource(RegistrationResourceType.PAYMENT_WEBHOOK, {
      DeletionPolicy: 'Delete',
      Properties: {
        ServiceToken: {
          'Fn::GetAtt': [Match.stringLikeRegexp('BankWebhooksRegistrationProviderframeworkonEvent'), 'Arn'],
        },
        ServiceTimeout: String(RegistrationDefaults.serviceTimeoutSeconds),
        TokenVersion: '0',
      },
    });
    expect(jsonProperty(template, RegistrationResourceType.PAYMENT_WEBHOOK, 'Registration')).toEqual({
      url: PAYMENTS_URL,
      tokenSecretArn: 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:paytoken-AbCdEf',
    });
    expect(jsonProperty(template, RegistrationResourceType.PAYMENT_WEBHOOK, 'BankConnection')).toMatchObject({
      registrationBaseUrl: 'https://api.bank.example/pagamentos',
      account: { cooperativa: '0101', conta: '123456', documento: '12345678000199' },
      credentialsSecretArn: 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:bank-credentials-AbCdEf',
    });
    expect(registration.url).toBe(PAYMENTS_URL);
    expect(stack.resolve(registration.registeredUrl)).toEqual({
      'Fn::GetAtt': [stack.getLogicalId(registration.resource.node.defaultChild as CfnElement), 'Url'],
    });
  });

  it('lets the registration handler read the token and the bank credentials and keep its own applied record, and nothing else', () => {
    const [policy] = Object.values(
      template.findResources('AWS::IAM::Policy', {
        Properties: { Roles: [{ Ref: Match.stringLikeRegexp('BankWebhooksRegistrationProviderHandlerRole') }] },
      }),
    );
    const statements = (
      policy.Properties as { PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] } }
    ).PolicyDocument.Statement;
    const actions = statements.flatMap((st) => [st.Action].flat()).sort();
    expect(actions).toEqual([
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'secretsmanager:DescribeSecret',
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
      'secretsmanager:GetSecretValue',
      'ssm:DeleteParameter',
      'ssm:GetParameter',
      'ssm:PutParameter',
    ]);
    // Its own record only: the one parameter the registration names.
    const recordResources = statements
      .filter((st) => [st.Action].flat().includes('ssm:PutParameter'))
      .flatMap((st) => [st.Resource].flat());
    expect(JSON.stringify(recordResources)).toContain(`:parameter${registration.appliedRecordName}`);
    expect(JSON.stringify(recordResources)).not.toContain('*');
    const secretResources = statements
      .filter((st) => [st.Action].flat().includes('secretsmanager:GetSecretValue'))
      .flatMap((st) => [st.Resource].flat())
      .sort();
    expect(secretResources).toEqual([
      'arn:aws:secretsmanager:sa-east-1:111111111111:secret:bank-credentials-AbCdEf',
      'arn:aws:secretsmanager:sa-east-1:111111111111:secret:paytoken-AbCdEf',
    ]);
  });

  it("keeps both functions' logs for a year, and the handler's timeout inside the ServiceTimeout", () => {
    template.resourcePropertiesCountIs('AWS::Logs::LogGroup', { RetentionInDays: 365 }, 2);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.handler',
      Runtime: 'nodejs24.x',
      Timeout: RegistrationDefaults.functionTimeoutSeconds,
      LoggingConfig: { LogGroup: { Ref: Match.stringLikeRegexp('HandlerLogGroup') }, LogFormat: 'JSON' },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'framework.onEvent',
      LoggingConfig: Match.objectLike({ LogGroup: { Ref: Match.stringLikeRegexp('FrameworkLogGroup') } }),
    });
    expect(RegistrationDefaults.functionTimeoutSeconds + 60).toBeLessThan(RegistrationDefaults.serviceTimeoutSeconds);
    // No managed policy: the roles get exactly their log group and what the registrations need.
    for (const role of Object.values(template.findResources('AWS::IAM::Role')))
      expect((role.Properties as Record<string, unknown>).ManagedPolicyArns).toBeUndefined();
  });

  it('RETAIN leaves the registration at the bank on delete (CloudFormation never calls the handler)', () => {
    const s = newStack();
    new PaymentWebhookRegistration(s, 'Payments', {
      bank: testBankConnection(s),
      url: PAYMENTS_URL,
      token: importedSecret(s, 'T'),
      removalPolicy: RemovalPolicy.RETAIN,
      tokenVersion: '2026-11',
    });
    Template.fromStack(s).hasResource(RegistrationResourceType.PAYMENT_WEBHOOK, {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: { TokenVersion: '2026-11' },
    });
  });

  it('names every problem at once', () => {
    const s = newStack();
    expect(
      () =>
        new PaymentWebhookRegistration(s, 'Payments', {
          bank: { ...testBankConnection(s), baseUrl: 'http://api.bank.example' },
          url: 'http://webhooks.example.com/payments',
          token: undefined as unknown as secretsmanager.ISecret,
          removalPolicy: RemovalPolicy.SNAPSHOT,
          tokenVersion: 'x'.repeat(300),
        }),
    ).toThrow(
      [
        'Invalid PaymentWebhookRegistration props at TestStack/Payments (5 problems):',
        '  - bank.baseUrl: must be an https URL without query or fragment (the bank is only reached over HTTPS, and there is no sandbox default), got "http://api.bank.example"',
        '  - url: must be an https URL without query or fragment (the bank delivers over HTTPS only), got "http://webhooks.example.com/payments"',
        '  - tokenVersion: must be at most 256 characters, got 300',
        '  - removalPolicy: must be RemovalPolicy.DESTROY or RemovalPolicy.RETAIN, got snapshot',
        '  - token: is required: the secret holding authorizationCallback, the token the bank sends in the Authorization header',
      ].join('\n'),
    );
  });
});

describe('BoletoWebhookContract', () => {
  it('sends every field of the contract, eventos defaulting to LIQUIDACAO, the identity from the account, the token as its ARN', () => {
    const stack = newStack();
    new BoletoWebhookContract(stack, 'Contract', {
      bank: testBankConnection(stack),
      url: BOLETO_URL,
      token: importedSecret(stack, 'BolToken'),
      header: 'X-Webhook-Token',
      nomeResponsavel: 'Finance Operations',
      email: 'finance@example.com',
      telefone: '+55 11 3003-0000',
      enviarIdTituloEmpresa: true,
    });
    const template = Template.fromStack(stack);
    expect(jsonProperty(template, RegistrationResourceType.BOLETO_CONTRACT, 'Registration')).toEqual({
      cooperativa: '0101',
      posto: '02',
      codBeneficiario: '54321',
      eventos: ['LIQUIDACAO'],
      url: BOLETO_URL,
      urlStatus: 'ATIVO',
      contratoStatus: 'ATIVO',
      nomeResponsavel: 'Finance Operations',
      email: 'finance@example.com',
      telefone: '+55 11 3003-0000',
      enviarIdTituloEmpresa: true,
      header: 'X-Webhook-Token',
      tokenSecretArn: 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:boltoken-AbCdEf',
    });
    template.hasResourceProperties(RegistrationResourceType.BOLETO_CONTRACT, {
      ServiceTimeout: String(RegistrationDefaults.serviceTimeoutSeconds),
    });
  });

  it('takes its own identity, events and statuses; a token without header travels in Authorization', () => {
    const stack = newStack();
    const contract = new BoletoWebhookContract(stack, 'Contract', {
      bank: {
        ...testBankConnection(stack),
        account: { ...testBankConnection(stack).account, codigoBeneficiario: '11111' },
      },
      url: BOLETO_URL,
      token: importedSecret(stack, 'BolToken'),
      cooperativa: '0202',
      posto: '07',
      codBeneficiario: '11111',
      eventos: ['LIQUIDACAO', 'BAIXA'],
      contratoStatus: BoletoContractStatus.INATIVO,
    });
    expect(
      jsonProperty(Template.fromStack(stack), RegistrationResourceType.BOLETO_CONTRACT, 'Registration'),
    ).toMatchObject({
      cooperativa: '0202',
      posto: '07',
      codBeneficiario: '11111',
      eventos: ['LIQUIDACAO', 'BAIXA'],
      contratoStatus: 'INATIVO',
      urlStatus: 'ATIVO',
      header: 'Authorization',
    });
    expect(stack.resolve(contract.contractId)).toEqual({
      'Fn::GetAtt': [stack.getLogicalId(contract.resource.node.defaultChild as CfnElement), 'ContractId'],
    });
  });

  it('names every problem at once: url, contacts, events, statuses, header', () => {
    const stack = newStack();
    expect(
      () =>
        new BoletoWebhookContract(stack, 'Contract', {
          bank: testBankConnection(stack),
          url: 'https://webhooks.example.com/boleto?token=abc',
          header: 'Content-Type',
          email: 'finance-at-example.com',
          telefone: '12-34',
          nomeResponsavel: 'x'.repeat(101),
          eventos: ['liquidacao', 'LIQUIDACAO', 'LIQUIDACAO'],
          posto: '02/03',
          urlStatus: 'LIGADO' as BoletoContractStatus,
        }),
    ).toThrow(
      [
        'Invalid BoletoWebhookContract props at TestStack/Contract (10 problems):',
        '  - url: must be an https URL without query or fragment (the bank delivers over HTTPS only), got "https://webhooks.example.com/boleto?token=abc"',
        '  - posto: must be 1 to 20 letters, digits or hyphens, got "02/03"',
        '  - eventos: must be event names in capitals, such as LIQUIDACAO; not valid: "liquidacao"',
        '  - eventos: must not repeat an event',
        '  - email: must be an e-mail address such as finance@example.com, got "finance-at-example.com"',
        '  - telefone: must be a telephone number such as +55 11 3003-0000 (8 to 20 digits, spaces, hyphens, parentheses), got "12-34"',
        '  - nomeResponsavel: must be 1 to 100 characters, got 101',
        '  - urlStatus: must be ATIVO, INATIVO or BLOQUEADO, got "LIGADO"',
        '  - header: "Content-Type" is set or rewritten by HTTP or API Gateway and cannot carry the token; use Authorization or a custom header such as X-Webhook-Token',
        '  - header: only applies with token: set token (the secret the bank sends in this header), or remove header',
      ].join('\n'),
    );
  });

  it('requires the URL and at least one event', () => {
    const stack = newStack();
    expect(
      () => new BoletoWebhookContract(stack, 'Contract', { bank: testBankConnection(stack), url: '', eventos: [] }),
    ).toThrow(
      [
        'Invalid BoletoWebhookContract props at TestStack/Contract (2 problems):',
        '  - url: is required: the https URL the bank sends notifications to',
        '  - eventos: must name at least one event, such as ["LIQUIDACAO"]; leave it out for the default',
      ].join('\n'),
    );
  });
});

describe('one provider per stack', () => {
  it('is shared by every registration of a stack, found through the construct tree', () => {
    const stack = newStack();
    const bank = testBankConnection(stack);
    new PaymentWebhookRegistration(stack, 'A', { bank, url: PAYMENTS_URL, token: importedSecret(stack, 'T1') });
    new BoletoWebhookContract(stack, 'B', { bank, url: BOLETO_URL, token: importedSecret(stack, 'T2') });
    new BankWebhookReceiver(stack, 'Webhooks', {
      bank,
      paymentRegistration: {},
      boletoContracts: [{}, { posto: '03' }],
    });
    const template = Template.fromStack(stack);
    template.resourceCountIs(RegistrationResourceType.PAYMENT_WEBHOOK, 2);
    template.resourceCountIs(RegistrationResourceType.BOLETO_CONTRACT, 3);
    template.resourcePropertiesCountIs('AWS::Lambda::Function', { Handler: 'framework.onEvent' }, 1);
    template.resourcePropertiesCountIs(
      'AWS::Lambda::Function',
      { Description: Match.stringLikeRegexp('^Registers the webhook URLs') },
      1,
    );
    expect(RegistrationProvider.of(stack)).toBe(stack.node.findChild(RegistrationProvider.ID));
  });

  it('gives each stack its own, and refuses an ID clash with a clear error', () => {
    const app = new App();
    const one = new Stack(app, 'One');
    const two = new Stack(app, 'Two');
    expect(RegistrationProvider.of(one)).not.toBe(RegistrationProvider.of(two));
    const clash = new Stack(app, 'Clash');
    new secretsmanager.Secret(clash, RegistrationProvider.ID);
    expect(() => RegistrationProvider.of(clash)).toThrow(
      `The construct ID "${RegistrationProvider.ID}" at the root of stack Clash is taken by another construct`,
    );
  });
});

describe('BankWebhookReceiver with registrations', () => {
  const stack = newStack();
  const receiver = new BankWebhookReceiver(stack, 'Webhooks', {
    bank: testBankConnection(stack),
    boletoTokenHeader: 'X-Webhook-Token',
    paymentRegistration: { tokenVersion: '1' },
    boletoContracts: [{ email: 'finance@example.com' }, { posto: '03' }],
  });
  const template = Template.fromStack(stack);

  it('registers the payments route with the payment token, after the API is deployed', () => {
    const registration = jsonProperty(template, RegistrationResourceType.PAYMENT_WEBHOOK, 'Registration');
    expect(JSON.stringify(registration)).toMatch(/payments/);
    const [resource] = Object.values(template.findResources(RegistrationResourceType.PAYMENT_WEBHOOK));
    expect(JSON.stringify(resource.Properties)).toContain(stack.resolve(receiver.paymentCallbackToken.secretArn).Ref);
    expect(resource.DependsOn).toEqual(
      expect.arrayContaining([expect.stringMatching(/^WebhooksApiDeploymentStageprod/)]),
    );
    expect(receiver.paymentRegistration).toBeInstanceOf(PaymentWebhookRegistration);
  });

  it('makes one contract per entry for the boleto route, with the boleto token and its header, named by posto', () => {
    const contracts = Object.entries(template.findResources(RegistrationResourceType.BOLETO_CONTRACT));
    expect(contracts.map(([id]) => id.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual([
      'WebhooksBoletoContract01010254321',
      'WebhooksBoletoContract01010354321',
    ]);
    for (const [, resource] of contracts) {
      const text = JSON.stringify(resource.Properties);
      expect(text).toContain('/boleto');
      expect(text).toContain('X-Webhook-Token');
      expect(text).toContain(stack.resolve(receiver.boletoToken.secretArn).Ref);
    }
    expect(receiver.boletoContracts).toHaveLength(2);
  });

  it('refuses two contracts for the same cooperativa/posto/beneficiário and checks every entry', () => {
    const s = newStack();
    expect(
      () =>
        new BankWebhookReceiver(s, 'Webhooks', {
          bank: testBankConnection(s),
          paymentRegistration: { removalPolicy: RemovalPolicy.SNAPSHOT },
          boletoContracts: [{}, { posto: '02', email: 'nope' }],
        }),
    ).toThrow(
      [
        'Invalid BankWebhookReceiver props at TestStack/Webhooks (3 problems):',
        '  - paymentRegistration.removalPolicy: must be RemovalPolicy.DESTROY or RemovalPolicy.RETAIN, got snapshot',
        '  - boletoContracts[1].email: must be an e-mail address such as finance@example.com, got "nope"',
        '  - boletoContracts[1]: is for the same cooperativa/posto/beneficiário as boletoContracts[0] (0101-02-54321); the bank keeps one contract for each',
      ].join('\n'),
    );
  });

  it("puts no secret value in the template, even when a token secret's value is known at synth", () => {
    const s = newStack();
    const known = 'known-token-value-that-must-stay-out-0123456789';
    const credentialsValue = 'credentials-password-that-must-stay-out-9876';
    new BankWebhookReceiver(s, 'Webhooks', {
      bank: testBankConnection(s),
      paymentCallbackToken: importedSecret(s, 'PayToken'),
      boletoToken: importedSecret(s, 'BolToken'),
      paymentRegistration: {},
      boletoContracts: [{}],
    });
    // A user secret created in the stack with a literal value: only the Secret resource itself holds it.
    const literal = new secretsmanager.Secret(s, 'LiteralToken', {
      secretStringValue: SecretValue.unsafePlainText(known),
    });
    new PaymentWebhookRegistration(s, 'Other', {
      bank: testBankConnection(s, {
        credentials: new secretsmanager.Secret(s, 'LiteralCredentials', {
          secretStringValue: SecretValue.unsafePlainText(credentialsValue),
        }),
      }),
      url: PAYMENTS_URL,
      token: literal,
    });
    const template = Template.fromStack(s).toJSON() as {
      Resources: Record<string, { Type: string; Properties?: unknown }>;
    };
    const everythingButTheSecrets = JSON.stringify(
      Object.values(template.Resources).filter((r) => r.Type !== 'AWS::SecretsManager::Secret'),
    );
    for (const value of [known, credentialsValue]) expect(everythingButTheSecrets).not.toContain(value);
    // No dynamic reference would resolve a secret into a custom resource either.
    expect(everythingButTheSecrets).not.toContain('{{resolve:secretsmanager');
    for (const resource of Object.values(template.Resources).filter(
      (r) => r.Type.startsWith('Custom::Bank') && r.Type !== REDRIVE_ALLOW_RESOURCE_TYPE,
    )) {
      expect(Object.keys(resource.Properties as object).sort()).toEqual([
        'AppliedRecord',
        'BankConnection',
        'Registration',
        'ServiceTimeout',
        'ServiceToken',
        'TokenVersion',
      ]);
      expect(JSON.stringify(resource.Properties)).not.toMatch(
        /"(token|authorizationCallback|password|clientSecret|apiKey)\\?"/,
      );
    }
  });
});
