/**
 * A BankSandbox run locally as the runner runs the other functions: the sandbox's deployed bundle
 * in Lambda-like environments (several, sharing no memory), its state in dynalite, its
 * credentials secret in the local Secrets Manager (filled by its credentials custom resource,
 * answered to a local ResponseURL), the bank's API through a local function URL (HTTPS, a
 * certificate from its own CA), and the control API by invoking the function.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LambdaFunctionURLResult } from 'aws-lambda';
import {
  SANDBOX_CREDENTIALS_PROPERTY,
  SANDBOX_ENV,
  SANDBOX_PIX_CREDENTIALS_PROPERTY,
  SANDBOX_STATE_KEY,
  type SandboxAccount,
  type SandboxControlResult,
} from '../../contracts/sandbox';
import { createCertificateAuthority, issueCertificate, type PemPair } from '../../simulator/certificates';
import { BankSimulatorClient } from '../../simulator/control-client';
import { SAMPLE_ACCOUNT } from '../../simulator/simulator';
import type { BankCredentials } from '../../simulator/tokens';
import { type Dynalite, startDynalite } from '../local-aws/dynalite';
import { LocalFunctionUrl } from '../local-aws/function-url';
import { localAwsEnvironment } from '../local-aws/local-env';
import { LocalFunction } from '../local-aws/local-function';
import { LocalSecretsManager } from '../local-aws/secrets-manager-server';
import { HANDLER_OUT_DIR } from '../bundle-handlers';
import type { RunnerBank } from './bank-credentials';

/** CloudFormation's answer to a custom resource, as the function PUT it to the ResponseURL. */
export interface CustomResourceAnswer {
  readonly Status: string;
  readonly Reason?: string;
  readonly PhysicalResourceId: string;
  readonly Data?: Record<string, unknown>;
}

export interface LocalSandbox extends RunnerBank {
  readonly instances: readonly LocalFunction[];
  readonly secrets: LocalSecretsManager;
  readonly secretArn: string;
  /** The Pix application's credentials secret (filled by the same custom resource). */
  readonly pixSecretArn: string;
  readonly dynalite: Dynalite;
  readonly tableName: string;
  /** The CA of the function URL's certificate (the receiver trusts it as it trusts AWS's public one); it may issue local receivers' certificates, which the function trusts. */
  readonly ca: PemPair;
  /** Sends the credentials custom resource an event; resolves with what the function answered CloudFormation, and the raw body. */
  credentialsResource(
    requestType: 'Create' | 'Update' | 'Delete',
  ): Promise<{ answer: CustomResourceAnswer; raw: string }>;
  /** What the function logged. */
  readonly logs: string[];
  stop(): Promise<void>;
}

export interface LocalSandboxOptions {
  /** Execution environments the requests go round. @default 2 */
  readonly instances?: number;
  readonly accounts?: readonly SandboxAccount[];
  /** CAs (PEM) of the receivers it delivers to, trusted as Lambda trusts the public roots. @default none besides its own */
  readonly trustedCaPems?: readonly string[];
}

/** Starts a BankSandbox locally, with its credentials made by its custom resource. */
export async function startLocalSandbox(options: LocalSandboxOptions = {}): Promise<LocalSandbox> {
  const ca = createCertificateAuthority('sandbox test CA');
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-'));
  const caFile = join(dir, 'ca.crt');
  writeFileSync(caFile, [ca.certPem, ...(options.trustedCaPems ?? [])].join('\n'));
  const dynalite = await startDynalite();
  const tableName = 'sandbox-state';
  await dynalite.createTableLike(tableName, {
    AttributeDefinitions: [{ AttributeName: SANDBOX_STATE_KEY.attribute, AttributeType: 'S' }],
    KeySchema: [{ AttributeName: SANDBOX_STATE_KEY.attribute, KeyType: 'HASH' }],
  });
  const secrets = new LocalSecretsManager();
  await secrets.start();
  // What CloudFormation creates: a secret with a generated string, not yet the credentials.
  const secretArn = secrets.createSecret('sandbox-credentials', 'x8Q!generated-by-secrets-manager');
  const pixSecretArn = secrets.createSecret('sandbox-pix-credentials', 'p3R!generated-by-secrets-manager');
  const accounts = options.accounts ?? [SAMPLE_ACCOUNT];
  const logs: string[] = [];
  const instances = Array.from(
    { length: options.instances ?? 2 },
    (_, i) =>
      new LocalFunction({
        name: `bank-sandbox-${i + 1}`,
        entry: join(HANDLER_OUT_DIR, 'sandbox', 'index.js'),
        environment: {
          ...localAwsEnvironment({ DYNAMODB: dynalite.endpoint, SECRETS_MANAGER: secrets.endpoint }),
          [SANDBOX_ENV.TABLE_NAME]: tableName,
          [SANDBOX_ENV.CREDENTIALS_SECRET_ARN]: secretArn,
          [SANDBOX_ENV.ACCOUNTS]: JSON.stringify(accounts),
          [SANDBOX_ENV.TOKEN_LIFETIME_SECONDS]: '300',
          [SANDBOX_ENV.PIX_CREDENTIALS_SECRET_ARN]: pixSecretArn,
          // Lambda trusts the public roots; the local receivers' certificates come from this CA.
          NODE_EXTRA_CA_CERTS: caFile,
        },
        timeoutMs: 60_000,
        onLog: (line) => logs.push(line),
      }),
  );
  let next = 0;
  const pick = () => instances[next++ % instances.length];

  const responses: string[] = [];
  const responseServer: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      responses.push(Buffer.concat(chunks).toString('utf8'));
      res.end();
    });
  });
  await new Promise<void>((resolve) => responseServer.listen(0, '127.0.0.1', resolve));
  const responseUrl = `http://127.0.0.1:${(responseServer.address() as AddressInfo).port}/answer`;
  const credentialsResource = async (requestType: 'Create' | 'Update' | 'Delete') => {
    const before = responses.length;
    await instances[0].invoke({
      RequestType: requestType,
      ResponseURL: responseUrl,
      StackId: 'arn:aws:cloudformation:us-east-1:000000000000:stack/Sandbox/1',
      RequestId: `request-${before}`,
      LogicalResourceId: 'SandboxCredentials',
      ResourceType: 'Custom::BankSandboxCredentials',
      ...(requestType === 'Create' ? {} : { PhysicalResourceId: 'SandboxCredentials-existing' }),
      ResourceProperties: {
        ServiceToken: 'arn:aws:lambda:us-east-1:000000000000:function:bank-sandbox',
        [SANDBOX_CREDENTIALS_PROPERTY]: secretArn,
        [SANDBOX_PIX_CREDENTIALS_PROPERTY]: pixSecretArn,
      },
    });
    const raw = responses[before];
    return { answer: JSON.parse(raw) as CustomResourceAnswer, raw };
  };
  const created = await credentialsResource('Create');
  if (created.answer.Status !== 'SUCCESS') throw new Error(`The credentials resource failed: ${created.answer.Reason}`);
  const stored = JSON.parse(secrets.currentValue(secretArn)!) as Record<string, string>;
  const storedPix = JSON.parse(secrets.currentValue(pixSecretArn)!) as Record<string, string>;
  const credentials: BankCredentials = {
    collection: { apiKey: stored.apiKey, username: stored.username, password: stored.password },
    payments: { clientId: stored.clientId, clientSecret: stored.clientSecret },
    pix: { clientId: storedPix.clientId, clientSecret: storedPix.clientSecret },
  };

  const url = new LocalFunctionUrl(
    issueCertificate(ca, { commonName: 'localhost', hosts: ['localhost', '127.0.0.1'] }),
    (event) => pick().invoke<LambdaFunctionURLResult>(event),
  );
  const baseUrl = await url.start();
  const control = BankSimulatorClient.withTransport(async ({ method, path, body }) =>
    pick().invoke<SandboxControlResult>({ sandboxControl: { method, path, body } }),
  );
  return {
    baseUrl,
    caPem: ca.certPem,
    credentials,
    accounts: accounts,
    control,
    instances,
    secrets,
    secretArn,
    pixSecretArn,
    dynalite,
    tableName,
    ca,
    logs,
    credentialsResource,
    async stop() {
      await url.stop();
      await Promise.all(instances.map((instance) => instance.stop()));
      await new Promise<void>((resolve) => responseServer.close(() => resolve()));
      await secrets.stop();
      await dynalite.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
