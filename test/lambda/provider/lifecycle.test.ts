import type { BankCall } from '../../../lambda/bank/cooperative/client';
import { BankApiError } from '../../../lambda/bank/errors';
import { describeUrl, sameUrl } from '../../../lambda/bank/cooperative/registration/steps';
import { type CustomResourceEvent, type LifecycleDeps, onEvent } from '../../../lambda/provider/lifecycle';
import {
  contractPhysicalId,
  cooperativeRegistrations,
  parseContractPhysicalId,
} from '../../../lambda/bank/cooperative/registration/kinds';
import { RegistrationResourceType } from '../../../contracts/registration';
import { registrationProperties } from '../../../lib/registration/registration-resource';
import { type BankConnectionSettings, BankConnectionDefaults, scopeSettings } from '../../../contracts/bank-connection';
import { secrets } from '../../../lambda/shared/redaction';
import { MemoryAppliedRegistrations } from '../../support/memory-records';

// The handler registers every secret it reads; this test's token is read by its fake.
beforeAll(() => secrets.remember(TOKEN));

const TOKEN = 'the-callback-token-0123456789';
const bank: BankConnectionSettings = {
  baseUrl: 'https://bank.example',
  registrationBaseUrl: 'https://bank.example/pagamentos',
  collectionTokenUrl: 'https://bank.example/auth/openapi/token',
  paymentsTokenUrl: 'https://bank.example/thirdparty/auth/token',
  collectionScope: BankConnectionDefaults.collectionScope,
  paymentsScope: BankConnectionDefaults.paymentsScopes.join(' '),
  paymentQueryScopes: scopeSettings(),
  zuluTimestamps: BankConnectionDefaults.zuluTimestamps,
  paymentsClientAuth: BankConnectionDefaults.paymentsClientAuth,
  account: {
    cooperativa: '0101',
    posto: '02',
    conta: '123456',
    documento: '12345678000199',
    codigoBeneficiario: '54321',
  },
  credentialsSecretArn: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:creds-AbCdEf',
  boletoQueryPath: BankConnectionDefaults.boletoQueryPath,
  settledBoletosPath: BankConnectionDefaults.settledBoletosPath,
  listingPageSize: BankConnectionDefaults.listingPageSize,
  paymentQueryPaths: BankConnectionDefaults.paymentQueryPaths,
  callTimeoutMs: 1_000,
  queriesPerSecond: BankConnectionDefaults.queriesPerSecond,
  registrationCallsPerSecond: BankConnectionDefaults.registrationCallsPerSecond,
};
const RECORD = '/cdk-bank-webhooks/applied/Stack/Payments';
const paymentProperties = registrationProperties(
  bank,
  { url: 'https://hooks.example.com/payments', tokenSecretArn: 'arn:token' },
  '0',
  RECORD,
);

function deps(
  call: (call: BankCall) => Promise<{ status: number; body: unknown }>,
): LifecycleDeps & { calls: BankCall[]; logs: string[]; records: MemoryAppliedRegistrations } {
  const calls: BankCall[] = [];
  const logs: string[] = [];
  return {
    calls,
    logs,
    registrations: cooperativeRegistrations((settings) => ({
      settings,
      call: (c: BankCall) => {
        calls.push(c);
        return call(c);
      },
    })),
    token: () => Promise.resolve({ value: TOKEN, versionId: 'v-1' }),
    records: new MemoryAppliedRegistrations(),
    log: {
      info: (message) => logs.push(message),
      warn: (message) => logs.push(message),
      error: (message) => logs.push(message),
    },
    deadline: Date.now() + 10_000,
    sleep: () => Promise.resolve(),
  };
}

function event(
  requestType: CustomResourceEvent['RequestType'],
  properties: Record<string, unknown>,
  extra: Partial<CustomResourceEvent> = {},
): CustomResourceEvent {
  return {
    RequestType: requestType,
    ResourceType: RegistrationResourceType.PAYMENT_WEBHOOK,
    ResourceProperties: properties,
    LogicalResourceId: 'Registration',
    RequestId: 'r-1',
    StackId: 'arn:aws:cloudformation:us-east-1:000000000000:stack/s/1',
    ...extra,
  };
}

it('keeps a token the bank echoes in an error out of the failure CloudFormation shows', async () => {
  const d = deps(() =>
    Promise.reject(
      new BankApiError(
        'PATCH /v1/associado/webhook (register the payment callback)',
        400,
        `authorizationCallback "${TOKEN}" is too long`,
        false,
      ),
    ),
  );
  const failure = await onEvent(event('Create', paymentProperties), d).then(
    () => undefined,
    (error: Error) => error,
  );
  expect(failure?.message).toBe(
    'PATCH /v1/associado/webhook (register the payment callback) failed with HTTP 400: authorizationCallback "***" is too long',
  );
  expect(failure?.stack).not.toContain(TOKEN);
});

it("fails clearly on a resource type it does not serve and on properties that are not the construct's", async () => {
  const d = deps(() => Promise.reject(new Error('no call expected')));
  await expect(onEvent(event('Create', paymentProperties, { ResourceType: 'Custom::Other' }), d)).rejects.toThrow(
    'Unknown resource type Custom::Other: this handler serves Custom::BankPaymentWebhookRegistration and Custom::BankBoletoWebhookContract',
  );
  await expect(
    onEvent(event('Create', { ...paymentProperties, Registration: '{"url":"https://x.example"}' }), d),
  ).rejects.toThrow(
    'The custom resource property Registration lacks tokenSecretArn (the PaymentWebhookRegistration construct sets it; redeploy rather than editing it)',
  );
  await expect(onEvent(event('Create', { ...paymentProperties, Registration: 'not json' }), d)).rejects.toThrow(
    'The custom resource property Registration is not JSON',
  );
  await expect(onEvent(event('Create', { Registration: paymentProperties.Registration }), d)).rejects.toThrow(
    'The custom resource property BankConnection is not set',
  );
  const badAccount = JSON.stringify({
    ...JSON.parse(paymentProperties.BankConnection),
    account: { ...bank.account, conta: '12 34', documento: undefined },
  });
  await expect(onEvent(event('Create', { ...paymentProperties, BankConnection: badAccount }), d)).rejects.toThrow(
    'The custom resource property BankConnection: account.conta "12 34", account.documento undefined must be 1 to 20 letters, digits or hyphens (the PaymentWebhookRegistration construct sets it; redeploy rather than editing it)',
  );
  expect(d.calls).toEqual([]);
});

it('a Delete of an id it did not make (a failed create) calls nothing at the bank', async () => {
  const d = deps(() => Promise.reject(new Error('no call expected')));
  const failedCreate = 'AWSCDK::CustomResourceProviderFramework::CREATE_FAILED';
  await expect(onEvent(event('Delete', paymentProperties, { PhysicalResourceId: failedCreate }), d)).resolves.toEqual({
    PhysicalResourceId: failedCreate,
  });
  await expect(
    onEvent(
      event('Delete', paymentProperties, {
        PhysicalResourceId: failedCreate,
        ResourceType: RegistrationResourceType.BOLETO_CONTRACT,
        ResourceProperties: registrationProperties(
          bank,
          {
            cooperativa: '0101',
            posto: '02',
            codBeneficiario: '54321',
            eventos: ['LIQUIDACAO'],
            url: 'https://hooks.example.com/boleto',
            urlStatus: 'ATIVO',
            contratoStatus: 'ATIVO',
          },
          '0',
        ),
      }),
      d,
    ),
  ).resolves.toEqual({ PhysicalResourceId: failedCreate });
  expect(d.calls).toEqual([]);
});

it('a PATCH the bank accepts but does not show is a failure that says what the bank holds', async () => {
  let patched = false;
  const d = deps((c) => {
    if (c.method === 'PATCH') patched = true;
    // Nothing registered before; after our PATCH, someone else's URL.
    return Promise.resolve(
      c.method === 'PATCH'
        ? { status: 204, body: null }
        : {
            status: 200,
            body: patched ? { urlCallback: 'https://other.example.net/cb?key=secret', authorizationCallback: 'x' } : {},
          },
    );
  });
  await expect(onEvent(event('Create', paymentProperties), d)).rejects.toThrow(
    'The bank accepted PATCH /v1/associado/webhook but GET still answers urlCallback https://other.example.net/cb?… instead of https://hooks.example.com/payments',
  );
  expect(d.calls.map((c) => c.method)).toEqual(['GET', 'PATCH', 'GET', 'GET', 'GET']);
});

it('names contracts by what the bank keys them by, and reads only its own ids back', () => {
  const id = contractPhysicalId({ cooperativa: '0101', posto: '02', codBeneficiario: '54321' }, '1001');
  expect(id).toBe('boleto-contract/0101/02/54321/1001');
  expect(parseContractPhysicalId(id)).toEqual({
    cooperativa: '0101',
    posto: '02',
    codBeneficiario: '54321',
    id: '1001',
  });
  expect(parseContractPhysicalId('payment-webhook/0101/123456')).toBeUndefined();
  expect(parseContractPhysicalId(undefined)).toBeUndefined();
});

it('compares URLs as the bank may echo them, and describes foreign ones without their query', () => {
  expect(sameUrl('https://HOOKS.example.com/prod/boleto/', 'https://hooks.example.com/prod/boleto')).toBe(true);
  expect(sameUrl('https://hooks.example.com/prod/boleto', 'https://hooks.example.com/prod/payments')).toBe(false);
  expect(sameUrl(null, 'https://hooks.example.com')).toBe(false);
  expect(describeUrl('https://x.example/a?token=1')).toBe('https://x.example/a?…');
  expect(describeUrl(null)).toBe('nothing');
});

describe('the record of what a deploy applied', () => {
  /** A bank that holds what was PATCHed. */
  function bankHolding(): (c: BankCall) => Promise<{ status: number; body: unknown }> {
    let held: Record<string, string> = {};
    return (c) => {
      if (c.method === 'PATCH') held = c.body as Record<string, string>;
      return Promise.resolve(c.method === 'PATCH' ? { status: 204, body: null } : { status: 200, body: held });
    };
  }

  it('is written before the bank is changed, names the token by its secret and version, and holds no secret', async () => {
    const d = deps(bankHolding());
    const written: string[] = [];
    const write = d.records.write.bind(d.records);
    d.records.write = async (name, record) => {
      written.push(`record after ${d.calls.length} bank calls`);
      return write(name, record);
    };
    await expect(onEvent(event('Create', paymentProperties), d)).resolves.toEqual({
      PhysicalResourceId: 'payment-webhook/0101/123456',
      Data: { Url: 'https://hooks.example.com/payments' },
    });
    expect(written).toEqual(['record after 0 bank calls']);
    expect(d.calls.map((c) => c.method)).toEqual(['GET', 'PATCH', 'GET']);
    const record = d.records.values.get(RECORD);
    expect(record).toEqual({
      format: 1,
      resourceType: RegistrationResourceType.PAYMENT_WEBHOOK,
      appliedAt: expect.any(String),
      requestId: 'r-1',
      subject: 'payment-webhook/0101/123456',
      physicalResourceId: 'payment-webhook/0101/123456',
      spec: { url: 'https://hooks.example.com/payments', tokenSecretArn: 'arn:token' },
      tokenVersionId: 'v-1',
      stackId: 'arn:aws:cloudformation:us-east-1:000000000000:stack/s/1',
    });
    expect(JSON.stringify(record)).not.toContain(TOKEN);
  });

  it('a deploy that cannot record changes nothing at the bank, and says why', async () => {
    const d = deps(bankHolding());
    d.records.failWrites = Object.assign(new Error('User is not authorized to perform: ssm:PutParameter'), {
      name: 'AccessDeniedException',
    });
    await expect(onEvent(event('Create', paymentProperties), d)).rejects.toThrow('ssm:PutParameter');
    expect(d.calls.map((c) => c.method)).toEqual([]);
  });

  it("refuses a record name outside the library's path before any call", async () => {
    const d = deps(bankHolding());
    await expect(
      onEvent(event('Create', { ...paymentProperties, AppliedRecord: '/other-team/secret-config' }), d),
    ).rejects.toThrow(
      'The custom resource property AppliedRecord must be an SSM parameter name under /cdk-bank-webhooks/applied/',
    );
    expect(d.calls).toEqual([]);
    expect(d.records.writes).toEqual([]);
  });

  it('Delete removes its own record, and keeps the one a replacement (another account) wrote', async () => {
    const d = deps(bankHolding());
    await onEvent(event('Create', paymentProperties), d);
    const other = { ...bank, account: { ...bank.account, conta: '654321' } };
    const moved = registrationProperties(
      other,
      { url: 'https://hooks.example.com/payments', tokenSecretArn: 'arn:token' },
      '0',
      RECORD,
    );
    await onEvent(
      event('Update', moved, {
        PhysicalResourceId: 'payment-webhook/0101/123456',
        OldResourceProperties: paymentProperties,
      }),
      d,
    );
    expect(d.records.values.get(RECORD)?.physicalResourceId).toBe('payment-webhook/0101/654321');
    // CloudFormation deletes the replaced registration with its old properties: the record stays the new one's.
    await onEvent(event('Delete', paymentProperties, { PhysicalResourceId: 'payment-webhook/0101/123456' }), d);
    expect(d.records.values.get(RECORD)?.physicalResourceId).toBe('payment-webhook/0101/654321');
    await onEvent(event('Delete', moved, { PhysicalResourceId: 'payment-webhook/0101/654321' }), d);
    expect(d.records.values.has(RECORD)).toBe(false);
  });

  it('properties from before records existed register as before and record nothing', async () => {
    const d = deps(bankHolding());
    const { AppliedRecord: _, ...older } = paymentProperties;
    await expect(onEvent(event('Create', older), d)).resolves.toMatchObject({
      PhysicalResourceId: 'payment-webhook/0101/123456',
    });
    expect(d.records.writes).toEqual([]);
  });

  it('refuses a token a deploy must not register, before any call, naming the secret and not the value', async () => {
    for (const value of [`${TOKEN}\n`, ' padded', 'in\u0000side']) {
      const d = deps(bankHolding());
      secrets.remember(value);
      const failure = await onEvent(event('Create', paymentProperties), {
        ...d,
        token: () => Promise.resolve({ value, versionId: 'v-2' }),
      }).then(
        () => undefined,
        (error: Error) => error,
      );
      expect(failure?.message).toMatch(
        /^The token secret arn:token holds a value with (leading or trailing whitespace|a control character)/,
      );
      expect(failure?.message).not.toContain(value.trim());
      expect(d.calls).toEqual([]);
      expect(d.records.writes).toEqual([]);
    }
  });
});
