import { CustomResource, Duration, Fn, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ACCOUNT_FIELD_PATTERN, ACCOUNT_FIELDS, type BankAccount } from '../../contracts/bank-connection';
import {
  SAMPLE_PIX_KEYS,
  SAMPLE_SIMULATOR_ACCOUNT,
  SANDBOX_CREDENTIALS_PROPERTY,
  SANDBOX_ENV,
  SANDBOX_PIX_CREDENTIALS_PROPERTY,
  SANDBOX_STATE_KEY,
  SIMULATOR_PATHS,
  type SandboxAccount,
  SandboxDefaults,
} from '../../contracts/sandbox';
import { MAX_PIX_KEY_LENGTH, normalizePixKey } from '../../contracts/pix';
import type { CooperativeConnectionProps } from '../families/cooperative/connection';
import type { PixConnectionProps } from '../families/pix/connection';
import { PropsValidation } from '../core/props-validation';
import { SandboxFunction } from './sandbox-function';

const { beneficiario: sampleBeneficiario, ...sample } = SAMPLE_SIMULATOR_ACCOUNT;
/** The simulator's sample account, as a receiver's bank account: what a sandbox knows when given none. */
const SAMPLE_ACCOUNT: BankAccount = { ...sample, codigoBeneficiario: sampleBeneficiario };

export interface BankSandboxProps {
  /**
   * The account the simulated bank knows: give the staging receiver the same (`connection` does).
   * @default the simulator's sample account (cooperativa 0101, posto 02, conta 123456, documento 12345678000199, codigoBeneficiario 54321)
   */
  readonly account?: BankAccount;
  /**
   * The Pix keys of the account at the simulated provider (give the staging receiver the same:
   * `pixKeys` is them). 1 to 20 DICT keys.
   * @default the simulator's sample keys (an EVP, pix@example.com, +5511999990000, 12345678000199)
   */
  readonly pixKeys?: string[];
  /**
   * Lifetime of the access tokens it issues (the bank's `expires_in`).
   * @default Duration.minutes(5)
   */
  readonly tokenLifetime?: Duration;
  /**
   * What becomes of its state table and credentials secret when the sandbox leaves the stack.
   * @default RemovalPolicy.DESTROY (a sandbox's state is disposable)
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Retention of its function's log group.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
}

/**
 * The bank simulator deployed in your account, for a NON_PRODUCTION receiver to run the whole flow
 * against (registrations, notifications, queries, the sweep, the watch) without the production
 * bank: a Lambda function behind a function URL (the bank's API, HTTPS, no auth: the bank's own
 * credentials guard it), its state in DynamoDB, its control API reached by Lambda Invoke only
 * (`grantControl`), and bank credentials of its own, made at deploy time into a Secrets Manager
 * secret the receiver reads. Give the receiver `bank: sandbox.connection`. See cdk-bank-webhooks/docs/sandbox.md for
 * what differs from the real bank (no mutual TLS; deliveries made by the request that changed the boleto).
 */
export class BankSandbox extends Construct {
  /** The simulator's function (the bank's API through its URL; the control API by Lambda Invoke). */
  public readonly sandboxFunction: lambda.IFunction;
  /** The function URL serving the bank's API. */
  public readonly functionUrl: lambda.FunctionUrl;
  /** Origin of the simulated bank, such as `https://abc.lambda-url.us-east-1.on.aws` (no trailing slash). */
  public readonly baseUrl: string;
  /** The bank credentials the simulator accepts (apiKey, username, password, clientId, clientSecret), made at deploy time. */
  public readonly credentials: secretsmanager.ISecret;
  /** The table holding the simulator's state. */
  public readonly stateTable: dynamodb.ITable;
  /** The account the simulated bank knows. */
  public readonly account: BankAccount;
  /** Bank connection settings for a receiver of this sandbox (`simulated: true`). */
  public readonly connection: CooperativeConnectionProps;
  /** The Pix application's credentials its standard Pix API accepts (a client id and secret; no client certificate), made at deploy time. */
  public readonly pixCredentials: secretsmanager.ISecret;
  /** Pix connection settings for a receiver of this sandbox (`simulated: true`): its standard Pix API. */
  public readonly pixConnection: PixConnectionProps;
  /** The account's Pix keys at the simulated provider: a receiver's `pix.keys`. */
  public readonly pixKeys: string[];

  constructor(scope: Construct, id: string, props: BankSandboxProps = {}) {
    super(scope, id);
    const account = props.account ?? SAMPLE_ACCOUNT;
    const v = new PropsValidation('BankSandbox', this.node.path);
    for (const key of ACCOUNT_FIELDS) {
      v.check(
        typeof account[key] === 'string' && ACCOUNT_FIELD_PATTERN.test(account[key]),
        `account.${key}`,
        `must be 1 to 20 letters, digits or hyphens, got ${JSON.stringify(account[key])}`,
      );
    }
    const pixKeys = props.pixKeys ?? [...SAMPLE_PIX_KEYS];
    v.check(
      pixKeys.length >= 1 && pixKeys.length <= 20,
      'pixKeys',
      `must list 1 to 20 Pix keys, got ${pixKeys.length}`,
    );
    pixKeys.forEach((key, i) =>
      v.check(
        normalizePixKey(key) !== undefined,
        `pixKeys[${i}]`,
        `must be a Pix key (an EVP, an email, a phone as +55 and its digits, a CPF or CNPJ; at most ${MAX_PIX_KEY_LENGTH} characters), got "${key}"`,
      ),
    );
    const lifetime = props.tokenLifetime?.toSeconds() ?? SandboxDefaults.tokenLifetimeSeconds;
    v.check(
      Number.isInteger(lifetime) && lifetime >= 60 && lifetime <= 86_400,
      'tokenLifetime',
      `must be a whole number of seconds from 60 to 86400, got ${lifetime}`,
    );
    v.throwIfInvalid();
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.DESTROY;

    const table = new dynamodb.Table(this, 'State', {
      partitionKey: { name: SANDBOX_STATE_KEY.attribute, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy,
    });
    // Secrets only the simulator checks and only its receiver sends: replace the BankSandbox to get new ones.
    const ownSecret = (id: string, what: string) => {
      const made = new secretsmanager.Secret(this, id, {
        description: `cdk-bank-webhooks BankSandbox: ${what} the deployed simulator accepts (made at deploy time by its Credentials resource).`,
        removalPolicy,
      });
      Validations.of(made).acknowledge({
        id: 'AwsSolutions::AwsSolutions-SMG4',
        reason: `The sandbox's own ${what}: only the simulator checks them and only its receiver sends them. Replace the BankSandbox to get new ones; a rotation would have to change both at once.`,
      });
      return made;
    };
    const secret = ownSecret('Credentials', 'the bank credentials');
    const pixSecret = ownSecret('PixCredentials', "the Pix application's credentials (its standard Pix API)");
    const simulatorAccount: SandboxAccount = {
      cooperativa: account.cooperativa,
      posto: account.posto,
      conta: account.conta,
      documento: account.documento,
      beneficiario: account.codigoBeneficiario,
      pixKeys,
    };
    const fn = new SandboxFunction(this, 'Function', {
      description:
        'cdk-bank-webhooks BankSandbox: the bank simulator (bank API through the function URL, control API by Lambda Invoke)',
      timeout: Duration.seconds(SandboxDefaults.functionTimeoutSeconds),
      memorySize: 512,
      logGroupId: 'FunctionLogs',
      roleId: 'FunctionRole',
      roleDescription: 'The bank sandbox: reads and writes its state table, reads and fills its credentials secret.',
      logRetention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      environment: {
        [SANDBOX_ENV.TABLE_NAME]: table.tableName,
        [SANDBOX_ENV.CREDENTIALS_SECRET_ARN]: secret.secretArn,
        [SANDBOX_ENV.ACCOUNTS]: JSON.stringify([simulatorAccount]),
        [SANDBOX_ENV.TOKEN_LIFETIME_SECONDS]: String(lifetime),
        [SANDBOX_ENV.PIX_CREDENTIALS_SECRET_ARN]: pixSecret.secretArn,
      },
    });
    table.grantReadWriteData(fn);
    for (const s of [secret, pixSecret]) {
      s.grantRead(fn);
      s.grantWrite(fn);
    }
    // The bank's API is public as the bank's is; its credentials guard it.
    const url = fn.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
    const filled = new CustomResource(this, 'CredentialsFill', {
      serviceToken: fn.functionArn,
      resourceType: 'Custom::BankSandboxCredentials',
      properties: {
        [SANDBOX_CREDENTIALS_PROPERTY]: secret.secretArn,
        [SANDBOX_PIX_CREDENTIALS_PROPERTY]: pixSecret.secretArn,
      },
    });

    // `https://<id>.lambda-url.<region>.on.aws/` without its final slash.
    const baseUrl = Fn.join('', ['https://', Fn.select(2, Fn.split('/', url.url))]);
    this.sandboxFunction = fn;
    this.functionUrl = url;
    this.baseUrl = baseUrl;
    this.stateTable = table;
    this.account = account;
    // Read through the fill resource, so whatever uses the credentials waits until they are made.
    this.credentials = secretsmanager.Secret.fromSecretCompleteArn(
      this,
      'FilledCredentials',
      filled.getAttString('SecretArn'),
    );
    this.pixCredentials = secretsmanager.Secret.fromSecretCompleteArn(
      this,
      'FilledPixCredentials',
      filled.getAttString('PixSecretArn'),
    );
    this.pixKeys = pixKeys;
    // Its Pix API under the same origin: `/oauth/token`, `/api/v2`, charges under `/api/v3` (the defaults).
    this.pixConnection = { baseUrl, credentials: this.pixCredentials, simulated: true };
    this.connection = {
      baseUrl,
      registrationBaseUrl: Fn.join('', [baseUrl, SIMULATOR_PATHS.registrationBase]),
      collectionTokenUrl: Fn.join('', [baseUrl, SIMULATOR_PATHS.collectionToken]),
      paymentsTokenUrl: Fn.join('', [baseUrl, SIMULATOR_PATHS.paymentsToken]),
      credentials: this.credentials,
      account,
      simulated: true,
    };
  }

  /** Lets `grantee` call the control API (Lambda Invoke of the sandbox's function): create, settle, fault, read deliveries. */
  public grantControl(grantee: iam.IGrantable): iam.Grant {
    return this.sandboxFunction.grantInvoke(grantee);
  }
}
