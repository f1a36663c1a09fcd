/**
 * A receiver given `pix` (issue 51): a REST API of its own for the provider's callbacks (`POST /`
 * and `POST /pix` to the same receiver), the processor told the connection and the keys in their
 * normal form, nothing of the existing API changed, and the props checked.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type { PixDomainProps, PixReceiverProps } from '../../lib/families/pix/receiver';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { BankWebhookReceiver } from '../../lib/bank-webhook-receiver';
import { BankStage } from '../../lib/core/bank-stage';
import type { BankWebhookReceiverProps } from '../../lib/bank-webhook-receiver-props';
import { PIX_CONNECTION_ENV } from '../../contracts/pix-connection';
import { OPERATOR_MANIFEST_DESCRIPTION } from '../../contracts/operations';
import { PROCESSOR_SETTINGS_ENV, type ProcessorSettings } from '../../contracts/processor';
import { pixKeyHash } from '../../contracts/pix';
import { SWEEP_SETTINGS_ENV, type SweepSettings } from '../../contracts/reconciliation';
import { settingsIn, synthReceiver, testBankConnection } from '../support/cdk';

const PIX_ARN = 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:pix-credentials-AbCdEf';
const KEYS = ['Financeiro@Example.com.br', '+55 (11) 98765-4321', '0F9A3C52-7B1E-4E0A-9D7C-1C2B3A4D5E6F'];

const pixProps =
  (keys: string[] = KEYS) =>
  (stack: Stack): Partial<BankWebhookReceiverProps> => ({
    pix: {
      connection: {
        baseUrl: 'https://api-pix.provider.example',
        credentials: secretsmanager.Secret.fromSecretCompleteArn(stack, 'PixCredentials', PIX_ARN),
      },
      keys,
    },
  });
const staging = { stage: BankStage.NON_PRODUCTION };

function processorOf(template: Template) {
  const [fn] = Object.values(
    template.findResources('AWS::Lambda::Function', {
      Properties: { Description: Match.stringLikeRegexp('^Verifies each stored') },
    }),
  );
  return fn as { Properties: Record<string, unknown> };
}

it("serves the Pix callback on an API of its own, to the same receiver, and leaves the bank's API as it was", () => {
  const without = synthReceiver(staging).template.toJSON() as {
    Resources: Record<string, { Type: string; Properties?: unknown }>;
  };
  const { template, receiver, stack } = synthReceiver(staging, pixProps());
  const withPix = template.toJSON() as typeof without;
  // Every resource of the receiver without Pix keeps its logical ID and type (the processor's
  // function and role change: its environment and the Pix secret's read).
  for (const [id, resource] of Object.entries(without.Resources))
    expect(withPix.Resources[id]?.Type).toBe(resource.Type);
  for (const [id, resource] of Object.entries(without.Resources).filter(([, r]) =>
    r.Type.startsWith('AWS::ApiGateway::'),
  )) {
    expect(withPix.Resources[id].Properties).toEqual(resource.Properties);
  }
  const apis = template.findResources('AWS::ApiGateway::RestApi');
  expect(Object.keys(apis)).toHaveLength(2);
  const pixApiId = Object.keys(apis).find((id) => id.startsWith('WebhooksPixApi'))!;
  expect(pixApiId).toBeDefined();
  const pixMethods = Object.values(
    template.findResources('AWS::ApiGateway::Method', { Properties: { RestApiId: { Ref: pixApiId } } }),
  );
  expect(pixMethods.map((m) => (m as { Properties: { HttpMethod: string } }).Properties.HttpMethod)).toEqual([
    'POST',
    'POST',
  ]);
  template.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: 'pix', RestApiId: { Ref: pixApiId } });
  // The URL to register has no trailing slash: the provider's `{url}/pix` is the route, not `//pix`.
  const url = stack.resolve(receiver.pixUrl) as { 'Fn::Join': [string, unknown[]] };
  const parts = url['Fn::Join'][1];
  expect(parts[0]).toBe('https://');
  // ... `.amazonaws.com/` then the stage's name, and nothing after it.
  expect(parts[parts.length - 2]).toEqual(expect.stringMatching(/\.execute-api\.sa-east-1\.amazonaws\.com\/$|\/$/));
  expect(parts[parts.length - 1]).toEqual({ Ref: expect.stringMatching(/^WebhooksPixApiDeploymentStageprod/) });
  expect(receiver.endpoint.pixApi).toBeDefined();
});

it('tells the processor the Pix connection, the keys in their normal form, and lets it read the Pix credentials', () => {
  const { template } = synthReceiver(staging, pixProps());
  const fn = processorOf(template);
  expect(settingsIn<ProcessorSettings>(fn, PROCESSOR_SETTINGS_ENV).pixKeys).toEqual([
    'financeiro@example.com.br',
    '+5511987654321',
    '0f9a3c52-7b1e-4e0a-9d7c-1c2b3a4d5e6f',
  ]);
  expect(settingsIn<Record<string, unknown>>(fn, PIX_CONNECTION_ENV)).toEqual({
    baseUrl: 'https://api-pix.provider.example',
    tokenUrl: 'https://api-pix.provider.example/oauth/token',
    credentialsSecretArn: PIX_ARN,
  });
  template.hasResourceProperties('AWS::IAM::Policy', {
    PolicyDocument: {
      Statement: Match.arrayWith([
        Match.objectLike({
          Action: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
          Resource: PIX_ARN,
        }),
      ]),
    },
  });
});

/** The provider's issuing chain the hardened example ships (PEM). */
const CHAIN = join(__dirname, '..', '..', 'examples', 'hardened', 'pix-provider-chain.pem');

describe("the account's receiver for keyless Pix", () => {
  const keyless = (stack: Stack): Partial<BankWebhookReceiverProps> => ({
    pix: { ...pixProps()(stack).pix!, keylessPix: true },
  });

  it('tells its processor so; a receiver without keylessPix writes nothing new', () => {
    expect(
      settingsIn<ProcessorSettings>(processorOf(synthReceiver(staging, keyless).template), PROCESSOR_SETTINGS_ENV)
        .pixKeyless,
    ).toBe(true);
    expect(
      settingsIn<ProcessorSettings>(processorOf(synthReceiver(staging, pixProps()).template), PROCESSOR_SETTINGS_ENV),
    ).not.toHaveProperty('pixKeyless');
  });

  it('is one per account in an app: a second, in another stack, is refused naming the first', () => {
    const app = new App();
    const receiver = (name: string, conta = '123456') => {
      const stack = new Stack(app, name, { env: { account: '111111111111', region: 'sa-east-1' } });
      const bank = testBankConnection(stack);
      return new BankWebhookReceiver(stack, 'Webhooks', {
        bank: { ...bank, account: { ...bank.account, conta } },
        ...staging,
        ...keyless(stack),
      });
    };
    receiver('Sales');
    expect(() => receiver('Billing')).toThrow(
      /Billing\/Webhooks\/Processor: pix\.keylessPix is true, but the receiver at Sales\/Webhooks\/Processor is already the keyless Pix receiver of this account .*Keep pix\.keylessPix on one receiver per account/,
    );
    expect(() => receiver('OtherAccount', '654321')).not.toThrow();
  });
});

it("fits the processor's environment with twenty keys of the longest kind (Lambda holds 4 KB)", () => {
  const keys = Array.from({ length: 20 }, (_, i) => `${String(i).padStart(2, '0')}${'a'.repeat(60)}@example.com`);
  expect(() => synthReceiver(staging, pixProps(keys))).not.toThrow();
});

it('warns that the Pix route checks no client certificate yet', () => {
  const { stack } = synthReceiver(staging, pixProps());
  Annotations.fromStack(stack).hasWarning(
    '/TestStack/Webhooks',
    Match.stringLikeRegexp('The Pix route checks no client certificate'),
  );
});

it('refuses Pix on a PRODUCTION receiver without mutual TLS, and bad keys, naming each', () => {
  expect(() => synthReceiver({}, pixProps())).toThrow(/pix\.domain: is required on a PRODUCTION receiver/);
  expect(() => synthReceiver(staging, pixProps([]))).toThrow(/pix\.keys: must list 1 to 20 Pix keys, got 0/);
  let message = '';
  try {
    synthReceiver(staging, pixProps(['not a key', 'financeiro@example.com.br', 'FINANCEIRO@example.com.br']));
  } catch (error) {
    message = (error as Error).message;
  }
  expect(message).toContain('pix.keys[0]: must be a Pix key');
  expect(message).toContain('pix.keys[2]: is the key of pix.keys[1] written otherwise (financeiro@example.com.br)');
});

it('gives a receiver without pix no Pix API and no Pix settings', () => {
  const { template, receiver } = synthReceiver(staging);
  expect(Object.keys(template.findResources('AWS::ApiGateway::RestApi'))).toHaveLength(1);
  expect(receiver.pixUrl).toBeUndefined();
  const fn = processorOf(template);
  expect(settingsIn<ProcessorSettings>(fn, PROCESSOR_SETTINGS_ENV).pixKeys).toBeUndefined();
  expect(
    (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables[PIX_CONNECTION_ENV],
  ).toBeUndefined();
});

it('lets an endpoint serve one Pix API only', () => {
  const { receiver } = synthReceiver(staging, pixProps());
  expect(() => receiver.endpoint.addPixApi()).toThrow('Webhooks/Default: addPixApi() was called already');
});

describe('the Pix API on its own mutual-TLS domain', () => {
  const LEAF = 'AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89';
  const withDomain =
    (extra: Partial<PixDomainProps> = {}) =>
    (stack: Stack): Partial<BankWebhookReceiverProps> => {
      const base = pixProps()(stack).pix!;
      return {
        pix: {
          ...base,
          domain: {
            domainName: 'pix-webhooks.example.com',
            certificate: acm.Certificate.fromCertificateArn(
              stack,
              'PixCertificate',
              'arn:aws:acm:sa-east-1:111111111111:certificate/abc',
            ),
            truststore: {
              bucket: s3.Bucket.fromBucketName(stack, 'Truststores', 'truststores-bucket'),
              key: 'provider-chain.pem',
              version: 'v2',
            },
            pinnedCertificates: { fingerprints: [LEAF] },
            ...extra,
          },
        },
      };
    };

  it('disables the default endpoint, serves the domain with the truststore, pins the leaf in the receiver, and alarms a month before it expires; a PRODUCTION receiver takes it', () => {
    const { template, receiver } = synthReceiver({}, withDomain());
    const apis = template.findResources('AWS::ApiGateway::RestApi');
    const pixApiId = Object.keys(apis).find((id) => id.startsWith('WebhooksPixApi'))!;
    expect(apis[pixApiId].Properties.DisableExecuteApiEndpoint).toBe(true);
    const bankApiId = Object.keys(apis).find((id) => id !== pixApiId)!;
    expect(apis[bankApiId].Properties.DisableExecuteApiEndpoint).toBeUndefined();
    template.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'pix-webhooks.example.com',
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
      MutualTlsAuthentication: { TruststoreUri: 's3://truststores-bucket/provider-chain.pem', TruststoreVersion: 'v2' },
    });
    template.hasResourceProperties('AWS::ApiGateway::BasePathMapping', { RestApiId: { Ref: pixApiId } });
    template.hasOutput('*', {
      Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^WebhooksPixDomain'), 'RegionalDomainName'] },
    });
    // Outputs that are true: the Pix URL is the domain's, and no output names the endpoint the API disables.
    template.hasOutput('*', {
      Value: 'https://pix-webhooks.example.com',
      Description: Match.stringLikeRegexp('^The Pix API.s URL'),
    });
    const outputs = JSON.stringify(template.toJSON().Outputs);
    expect(outputs).not.toContain(`{"Ref":"${pixApiId}"},".execute-api.`);
    expect(
      Object.keys(template.toJSON().Outputs as object).filter((id) => id.startsWith('WebhooksPixApiEndpoint')),
    ).toEqual([]);
    // The bank's API keeps its endpoint's output (it is enabled).
    expect(Object.keys(template.toJSON().Outputs as object).some((id) => id.startsWith('WebhooksApiEndpoint'))).toBe(
      true,
    );
    const receiverFn = Object.values(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Description: Match.stringLikeRegexp('^Checks the bank webhook token') },
      }),
    )[0] as { Properties: Record<string, unknown> };
    expect(
      settingsIn<{ pixClientCertificates: unknown }>(receiverFn, 'BANK_WEBHOOKS_RECEIVER_SETTINGS')
        .pixClientCertificates,
    ).toEqual({ fingerprints: [LEAF.replace(/:/g, '').toLowerCase()], subjects: [] });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ClientCertificateDaysLeft',
      Threshold: 30,
      ComparisonOperator: 'LessThanThreshold',
      Statistic: 'Minimum',
      Period: 86400,
      TreatMissingData: 'notBreaching',
    });
    expect(receiver.endpoint.pixCertificateExpiryAlarm).toBeDefined();
    expect(receiver.pixUrl).toBe('https://pix-webhooks.example.com');
    // Only the provider can post a callback: the processor retries a 404 of its Pix as the provider's lag.
    expect(settingsIn<ProcessorSettings>(processorOf(template), PROCESSOR_SETTINGS_ENV).pixCallbacksAuthenticated).toBe(
      true,
    );
    expect(
      settingsIn<ProcessorSettings>(processorOf(synthReceiver(staging, pixProps()).template), PROCESSOR_SETTINGS_ENV),
    ).not.toHaveProperty('pixCallbacksAuthenticated');
  });

  it('uploads a truststore file as an asset, and makes the alias record in a given zone', () => {
    const { template } = synthReceiver({}, (stack) => {
      const props = withDomain({
        truststore: { file: CHAIN },
        hostedZone: route53.HostedZone.fromHostedZoneAttributes(stack, 'Zone', {
          hostedZoneId: 'Z123',
          zoneName: 'example.com',
        }),
      })(stack);
      return props;
    });
    template.hasResourceProperties('AWS::ApiGateway::DomainName', {
      MutualTlsAuthentication: { TruststoreUri: Match.anyValue() },
    });
    template.hasResourceProperties('AWS::Route53::RecordSet', {
      Name: 'pix-webhooks.example.com.',
      Type: 'A',
      HostedZoneId: 'Z123',
    });
  });

  it('refuses a truststore file that holds no PEM certificate, or a private key, or cannot be read, saying how to fix it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'truststore-'));
    try {
      const der = join(dir, 'chain.der');
      writeFileSync(der, Buffer.from([0x30, 0x82, 0x03, 0x1a, 0x30, 0x82]));
      expect(() => synthReceiver({}, withDomain({ truststore: { file: der } }))).toThrow(
        /pix\.domain\.truststore\.file: must hold at least one PEM certificate \(-----BEGIN CERTIFICATE-----\), and ".*chain\.der" holds none: convert a DER file with `openssl x509 -inform der/,
      );
      const withKey = join(dir, 'with-key.pem');
      writeFileSync(
        withKey,
        `${readFileSync(CHAIN, 'utf8')}\n-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n`,
      );
      expect(() => synthReceiver({}, withDomain({ truststore: { file: withKey } }))).toThrow(
        /pix\.domain\.truststore\.file: holds a private key .*remove the key \(and rotate it/,
      );
      expect(() => synthReceiver({}, withDomain({ truststore: { file: join(dir, 'missing.pem') } }))).toThrow(
        /pix\.domain\.truststore\.file: cannot be read \(".*missing\.pem": ENOENT\)/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the -sha256 fix for a SHA-1 pin', () => {
    const sha1 = 'A1:B2:C3:D4:E5:F6:07:18:29:3A:4B:5C:6D:7E:8F:90:A1:B2:C3:D4';
    expect(() => synthReceiver({}, withDomain({ pinnedCertificates: { fingerprints: [sha1] } }))).toThrow(
      /fingerprints\[0\]: is a SHA-1 fingerprint \(40 hex digits\), got ".*": pin the SHA-256 one, which `openssl x509 -noout -fingerprint -sha256/,
    );
  });

  it('names every problem of the domain props', () => {
    let message = '';
    try {
      synthReceiver(
        {},
        withDomain({
          domainName: 'not a domain',
          truststore: { file: 'a.pem', key: 'b.pem' },
          pinnedCertificates: { fingerprints: ['abc', LEAF, LEAF] },
        }),
      );
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('pix.domain.domainName: must be a DNS name');
    expect(message).toContain(
      'pix.domain.truststore: must name a file in the app (file) or an existing object (bucket and key), one of them',
    );
    expect(message).toContain('pix.domain.pinnedCertificates.fingerprints: takes at most two');
    expect(message).toContain('pix.domain.pinnedCertificates.fingerprints[0]: must be a SHA-256 fingerprint');
    expect(() => synthReceiver({}, withDomain({ pinnedCertificates: {} }))).toThrow(
      /pix\.domain\.pinnedCertificates: must pin the provider's certificate/,
    );
    expect(() =>
      synthReceiver({}, withDomain({ pinnedCertificates: { fingerprints: [LEAF], issuers: ['CN=Provider CA'] } })),
    ).toThrow(/pinnedCertificates\.issuers: holds subject pins to their issuer: it needs subjects/);
  });

  it('verifies by listing at a peak behind the domain (10 s, charges an hour back by default; its own bound and reach when set; off when asked), never without it', () => {
    const bulkOf = (extra: Partial<PixReceiverProps> = {}, domain = true) =>
      settingsIn<ProcessorSettings>(
        processorOf(
          synthReceiver({}, (stack) => {
            const props = (domain ? withDomain() : pixProps())(stack);
            return { ...props, pix: { ...props.pix!, ...extra } };
          }).template,
        ),
        PROCESSOR_SETTINGS_ENV,
      ).pixBulk;
    expect(bulkOf()).toEqual({ afterSeconds: 10, chargeReachMinutes: 60 });
    expect(bulkOf({ bulkVerification: { after: Duration.seconds(30), chargeReach: Duration.minutes(15) } })).toEqual({
      afterSeconds: 30,
      chargeReachMinutes: 15,
    });
    expect(bulkOf({ bulkVerification: { enabled: false } })).toBeUndefined();
    expect(
      settingsIn<ProcessorSettings>(processorOf(synthReceiver(staging, pixProps()).template), PROCESSOR_SETTINGS_ENV),
    ).not.toHaveProperty('pixBulk');
    let message = '';
    try {
      bulkOf({ bulkVerification: { after: Duration.millis(1500), chargeReach: Duration.days(2) } });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('pix.bulkVerification.after: must be whole seconds from 0 to 900, got 1.5');
    expect(message).toContain(
      'pix.bulkVerification.chargeReach: must be whole minutes from 0 to 1440 (a day), got 2880',
    );
    expect(() =>
      synthReceiver(staging, (stack) => {
        const props = pixProps()(stack);
        return { ...props, pix: { ...props.pix!, bulkVerification: { after: Duration.seconds(20) } } };
      }),
    ).toThrow(/pix\.bulkVerification: needs pix\.domain \(mutual TLS with a pin\)/);
  });

  it("holds a subject pin to its issuers in the receiver's settings; a subject pin alone still synthesizes, with a warning", () => {
    const held = synthReceiver(
      {},
      withDomain({
        pinnedCertificates: { subjects: ['CN=webhook.provider.example'], issuers: ['O=Provider, CN=Provider CA'] },
      }),
    );
    const receiverFn = Object.values(held.template.findResources('AWS::Lambda::Function')).find((fn) =>
      JSON.stringify(fn).includes('BANK_WEBHOOKS_RECEIVER_SETTINGS'),
    )!;
    expect(
      settingsIn<{ pixClientCertificates: unknown }>(receiverFn, 'BANK_WEBHOOKS_RECEIVER_SETTINGS')
        .pixClientCertificates,
    ).toEqual({ fingerprints: [], subjects: ['CN=webhook.provider.example'], issuers: ['CN=Provider CA,O=Provider'] });
    expect(Annotations.fromStack(held.stack).findWarning('*', Match.stringLikeRegexp('subjectOnlyPin'))).toEqual([]);
    const alone = synthReceiver({}, withDomain({ pinnedCertificates: { subjects: ['CN=webhook.provider.example'] } }));
    expect(
      Annotations.fromStack(alone.stack).findWarning(
        '*',
        Match.stringLikeRegexp('pins a subject from any CA in the truststore'),
      ),
    ).toHaveLength(1);
  });
});

/** A PRODUCTION receiver with Pix on its mutual-TLS domain, registering with the bank. */
const LEAF = 'ab'.repeat(32);
const production = (stack: Stack): Partial<BankWebhookReceiverProps> => ({
  paymentRegistration: {},
  pix: {
    ...pixProps()(stack).pix!,
    domain: {
      domainName: 'pix-webhooks.example.com',
      certificate: acm.Certificate.fromCertificateArn(
        stack,
        'PixCertificate',
        'arn:aws:acm:sa-east-1:111111111111:certificate/abc',
      ),
      truststore: { bucket: s3.Bucket.fromBucketName(stack, 'Truststores', 'truststores-bucket'), key: 'chain.pem' },
      pinnedCertificates: { fingerprints: [LEAF] },
    },
  },
});

describe("each key's webhook, registered at deploy", () => {
  it('makes one custom resource per key, named by the key, with the URL the provider appends /pix to, and lets the provider read the Pix credentials', () => {
    const { template } = synthReceiver({}, production);
    const webhooks = template.findResources('Custom::BankPixKeyWebhook');
    expect(Object.keys(webhooks).sort()).toEqual(
      [
        expect.stringMatching(/^WebhooksPixKey0f9a3c527b1e4e0a9d7c1c2b3a4d5e6f/),
        expect.stringMatching(/^WebhooksPixKey5511987654321/),
        expect.stringMatching(/^WebhooksPixKeyfinanceiroexamplecombr/),
      ].sort((a, b) => String(a).localeCompare(String(b))),
    );
    for (const resource of Object.values(webhooks) as Array<{ Properties: Record<string, string> }>) {
      expect(JSON.parse(resource.Properties.Registration)).toMatchObject({ url: 'https://pix-webhooks.example.com' });
      expect(JSON.parse(resource.Properties.PixConnection)).toEqual({
        baseUrl: 'https://api-pix.provider.example',
        tokenUrl: 'https://api-pix.provider.example/oauth/token',
        credentialsSecretArn: PIX_ARN,
      });
    }
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: Match.arrayWith([{ Ref: Match.stringLikeRegexp('RegistrationProvider') }]),
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
            Resource: PIX_ARN,
          }),
        ]),
      },
    });
  });

  it("has the watch read the keys from a stack output (an entry per key would not fit the sweep's 4 KB), and lets the sweep read the Pix API", () => {
    const { template } = synthReceiver({}, production);
    const outputs = template.findOutputs('*', { Description: Match.stringLikeRegexp('^The Pix keys whose webhooks') });
    const [outputKey] = Object.keys(outputs);
    expect(outputKey).toMatch(/^WebhooksReconciliationPixKeysWatched/);
    const sweepFn = Object.values(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Description: Match.stringLikeRegexp('^Finds settlements') },
      }),
    )[0] as { Properties: Record<string, unknown> };
    expect(
      settingsIn<{ watch: { pixKeysOutput: string } }>(sweepFn, 'BANK_WEBHOOKS_SWEEP_SETTINGS').watch.pixKeysOutput,
    ).toBe(outputKey);
    expect(
      (sweepFn.Properties.Environment as { Variables: Record<string, unknown> }).Variables[PIX_CONNECTION_ENV],
    ).toBeDefined();
  });

  it("fits the sweep's environment with twenty keys of the longest kind", () => {
    const keys = Array.from({ length: 20 }, (_, i) => `${String(i).padStart(2, '0')}${'a'.repeat(60)}@example.com`);
    expect(() =>
      synthReceiver({}, (stack) => {
        const props = production(stack);
        return { ...props, pix: { ...props.pix!, keys } };
      }),
    ).not.toThrow();
  });

  it("registers no key from a NON_PRODUCTION stack against the real provider (its webhook would replace production's)", () => {
    const { template } = synthReceiver(staging, pixProps());
    expect(template.findResources('Custom::BankPixKeyWebhook')).toEqual({});
  });

  it('defers the registration when told (a first deploy before the DNS), and registers every key by default', () => {
    const deferred = synthReceiver({}, (stack) => {
      const props = production(stack);
      return { ...props, pix: { ...props.pix!, registerKeyWebhooks: false } };
    });
    expect(deferred.template.findResources('Custom::BankPixKeyWebhook')).toEqual({});
    // The Pix API and the sweep are there all the same.
    expect(Object.keys(deferred.template.findResources('AWS::ApiGateway::RestApi'))).toHaveLength(2);
    expect(Object.keys(synthReceiver({}, production).template.findResources('Custom::BankPixKeyWebhook'))).toHaveLength(
      KEYS.length,
    );
  });
});

describe('the daily Pix sweep', () => {
  const sweepSettingsOf = (template: Template) => {
    const fn = Object.values(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Description: Match.stringLikeRegexp('^Finds settlements') },
      }),
    )[0] as { Properties: Record<string, unknown> };
    return { fn, settings: settingsIn<SweepSettings>(fn, SWEEP_SETTINGS_ENV) };
  };

  it("has the sweep read the Pix listing under the receiver's Pix credentials, holding the keys as hashes, refunds back to the records' lifetime, even with no key registered", () => {
    const { template } = synthReceiver({}, production);
    const { fn, settings } = sweepSettingsOf(template);
    expect(settings.pix).toEqual({
      keyHashes: ['financeiro@example.com.br', '+5511987654321', '0f9a3c52-7b1e-4e0a-9d7c-1c2b3a4d5e6f'].map(
        pixKeyHash,
      ),
      publishWithoutTxid: false,
      // 100 days (a MED claim up to 80 days after the Pix, its refund days later): the 97 days older than the look-back, two a sweep of 15 minutes.
      refundLookbackDays: 100,
      refundDaysPerSweep: 2,
      intervalMinutes: 15,
    });
    expect(JSON.stringify(fn.Properties.Environment)).not.toContain('financeiro');
    expect(settingsIn<Record<string, unknown>>(fn, PIX_CONNECTION_ENV)).toMatchObject({
      credentialsSecretArn: PIX_ARN,
    });
    const sweepRole = (fn.Properties.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0];
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: sweepRole }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
            Resource: PIX_ARN,
          }),
        ]),
      },
    });
  });

  it('takes the refund look-back and Pix without a txid from pix.sweep; a daily sweep reads every older day each time', () => {
    const { template } = synthReceiver({ reconciliation: { interval: Duration.hours(24) } }, (stack) => {
      const props = production(stack);
      return {
        ...props,
        pix: { ...props.pix!, sweep: { refundLookback: Duration.days(10), publishWithoutTxid: true } },
      };
    });
    expect(sweepSettingsOf(template).settings.pix).toMatchObject({
      publishWithoutTxid: true,
      refundLookbackDays: 10,
      refundDaysPerSweep: 7,
      intervalMinutes: 1440,
    });
  });

  it('refuses a refund look-back past what records remember, shorter than the look-back, or in part days, naming it', () => {
    const withLookback =
      (refundLookback: Duration, extra: Partial<BankWebhookReceiverProps> = {}) =>
      () =>
        synthReceiver({ ...staging, ...extra }, (stack) => {
          const props = pixProps()(stack);
          return { pix: { ...props.pix!, sweep: { refundLookback } } };
        });
    const withLifetime = (refundLookback: Duration, recordLifetime: Duration) => () =>
      synthReceiver(staging, (stack) => ({
        pix: { ...pixProps()(stack).pix!, recordLifetime, sweep: { refundLookback } },
      }));
    expect(withLifetime(Duration.days(30), Duration.days(30))).toThrow(
      /pix\.sweep\.refundLookback: is 30 days, past what Pix records remember \(pix\.recordLifetime, or idempotencyTtl when longer, less a day: 29 days\)/,
    );
    expect(withLookback(Duration.days(100))).not.toThrow();
    expect(withLifetime(Duration.days(60), Duration.days(30))).toThrow(/past what Pix records remember/);
    expect(withLookback(Duration.days(60), { idempotencyTtl: Duration.days(90) })).not.toThrow();
    expect(withLookback(Duration.days(101))).toThrow(
      /pix\.sweep\.refundLookback: must be whole days from the sweep's lookbackDays \(3\) to 100/,
    );
    expect(withLookback(Duration.days(2))).toThrow(
      /pix\.sweep\.refundLookback: must be whole days from the sweep's lookbackDays \(3\) to 100/,
    );
    expect(withLifetime(Duration.days(10), Duration.hours(60))).toThrow(
      /pix\.recordLifetime: must be whole days from 2 to 400/,
    );
    expect(withLookback(Duration.hours(100))).toThrow(/pix\.sweep\.refundLookback: must be whole days/);
  });

  it('keeps the records of Pix and refunds 101 days (boletos and payments keep idempotencyTtl), the longer of the two when idempotencyTtl is', () => {
    const lifetimes = (extra: Partial<BankWebhookReceiverProps> = {}, recordLifetime?: Duration) =>
      settingsIn<ProcessorSettings>(
        processorOf(
          synthReceiver({ ...staging, ...extra }, (stack) => ({
            pix: { ...pixProps()(stack).pix!, ...(recordLifetime ? { recordLifetime } : {}) },
          })).template,
        ),
        PROCESSOR_SETTINGS_ENV,
      );
    expect(lifetimes()).toMatchObject({
      idempotencyTtlSeconds: 30 * 86_400,
      recordTtlSecondsByKind: { pix: 101 * 86_400, 'pix-refund': 101 * 86_400 },
    });
    expect(lifetimes({}, Duration.days(45)).recordTtlSecondsByKind).toEqual({
      pix: 45 * 86_400,
      'pix-refund': 45 * 86_400,
    });
    expect(lifetimes({ idempotencyTtl: Duration.days(120) })).not.toHaveProperty('recordTtlSecondsByKind');
    expect(
      settingsIn<ProcessorSettings>(processorOf(synthReceiver(staging).template), PROCESSOR_SETTINGS_ENV),
    ).not.toHaveProperty('recordTtlSecondsByKind');
  });

  it('tells the operator CLI how long Pix records live (reverify reaches that far back for them)', () => {
    const manifestText = (template: Template) =>
      JSON.stringify(
        Object.values(template.toJSON().Outputs as Record<string, { Description: string; Value: unknown }>).find(
          (o) => o.Description === OPERATOR_MANIFEST_DESCRIPTION,
        )!.Value,
      );
    expect(manifestText(synthReceiver(staging, pixProps()).template)).toContain(
      '\\"recordsLifetimeSeconds\\":2592000,\\"recordsLifetimeSecondsByKind\\":{\\"pix\\":8726400,\\"pix-refund\\":8726400}',
    );
    expect(
      manifestText(synthReceiver({ ...staging, idempotencyTtl: Duration.days(120) }, pixProps()).template),
    ).not.toContain('recordsLifetimeSecondsByKind');
    expect(manifestText(synthReceiver(staging).template)).not.toContain('recordsLifetimeSecondsByKind');
  });

  it('warns that pix.sweep does nothing on a NON_PRODUCTION receiver against the real provider (it runs no sweep)', () => {
    const { stack } = synthReceiver(staging, (s) => ({
      pix: { ...pixProps()(s).pix!, sweep: { publishWithoutTxid: true } },
    }));
    Annotations.fromStack(stack).hasWarning(
      '/TestStack/Webhooks',
      Match.stringLikeRegexp('reconciliation or pix.sweep is set, but a NON_PRODUCTION receiver'),
    );
  });

  it('reads no Pix listing without pix', () => {
    expect(sweepSettingsOf(synthReceiver({ paymentRegistration: {} }).template).settings.pix).toBeUndefined();
  });
});
