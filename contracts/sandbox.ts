/**
 * Names shared by the BankSandbox construct (lib/sandbox) and its handler (lambda/sandbox): the
 * deployed bank simulator.
 */

/** Environment variables of the sandbox function. */
export const SANDBOX_ENV = {
  /** The DynamoDB table holding the simulator's state. */
  TABLE_NAME: 'SANDBOX_TABLE_NAME',
  /** The Secrets Manager secret with the bank credentials the simulator accepts (and the receiver sends). */
  CREDENTIALS_SECRET_ARN: 'SANDBOX_CREDENTIALS_SECRET_ARN',
  /** JSON: the accounts the simulated bank knows ({@link SandboxAccount}[]). */
  ACCOUNTS: 'SANDBOX_ACCOUNTS',
  /** Access token lifetime in seconds. */
  TOKEN_LIFETIME_SECONDS: 'SANDBOX_TOKEN_LIFETIME_SECONDS',
  /** The Secrets Manager secret with the Pix application's credentials the simulator's Pix API accepts (the receiver's Pix connection reads it too). */
  PIX_CREDENTIALS_SECRET_ARN: 'SANDBOX_PIX_CREDENTIALS_SECRET_ARN',
} as const;

/** One account holder the sandbox's bank knows (the simulator's account, as the construct writes it). */
export interface SandboxAccount {
  readonly cooperativa: string;
  readonly posto: string;
  readonly conta: string;
  readonly documento: string;
  readonly beneficiario: string;
  /** The account's Pix keys (DICT keys: an EVP, an email, a phone, a CPF or CNPJ). @default none (a simulator with no account's keys uses sample ones) */
  readonly pixKeys?: readonly string[];
}

/** Paths of the simulated bank, relative to its origin (cdk-bank-webhooks/docs/bank-api.md): the simulator's routes and the sandbox's connection. */
export const SIMULATOR_PATHS = {
  collectionToken: '/auth/openapi/token',
  paymentsToken: '/thirdparty/auth/token',
  /** `{registration_base_url}`: the base that the callback registration and payment queries hang off. */
  registrationBase: '/pagamentos',
  contract: '/cobranca/boleto/v1/webhook/contrato',
  contracts: '/cobranca/boleto/v1/webhook/contratos',
  boletoQuery: '/cobranca/boleto/v1/boletos',
  /** Boletos settled on a day (cdk-bank-webhooks/docs/bank-api.md, listing APIs). */
  settledByDay: '/cobranca/boleto/v1/boletos/liquidados/dia',
  control: '/control',
  /** The standard Pix API's token endpoint (this bank's: cdk-bank-webhooks/docs/pix.md). */
  pixToken: '/oauth/token',
  /** The standard Pix API's base (`/api/v2`; this bank reads charges under `/api/v3` too). */
  pixApi: '/api/v2',
  pixApiV3: '/api/v3',
} as const;

/** The Pix keys of a simulator's account given none: an EVP, an email, a phone and a CNPJ. */
export const SAMPLE_PIX_KEYS: readonly string[] = [
  '2f6b1c9e-4d3a-4e8b-9c7f-1a2b3c4d5e6f',
  'pix@example.com',
  '+5511999990000',
  '12345678000199',
];

/** The account a simulator knows when given none. */
export const SAMPLE_SIMULATOR_ACCOUNT: SandboxAccount = {
  cooperativa: '0101',
  posto: '02',
  conta: '123456',
  documento: '12345678000199',
  beneficiario: '54321',
};

/** The key of the one item holding the simulator's state. */
export const SANDBOX_STATE_KEY = { attribute: 'id', value: 'simulator-state' } as const;

/**
 * A call of the control API by Lambda Invoke, the only way a deployed simulator takes one (IAM
 * decides who may): `path` is under `/control`, such as `/boletos` or `/boletos/000000001/settle`.
 */
export interface SandboxControlEvent {
  readonly sandboxControl: {
    readonly method: string;
    readonly path: string;
    readonly body?: unknown;
  };
}

/** The answer to a {@link SandboxControlEvent}: the control API's status and JSON body. */
export interface SandboxControlResult {
  readonly status: number;
  readonly body: unknown;
}

/** The custom resource property naming the secret the credentials resource fills. */
export const SANDBOX_CREDENTIALS_PROPERTY = 'CredentialsSecretArn';
/** The custom resource property naming the Pix credentials secret it fills too. */
export const SANDBOX_PIX_CREDENTIALS_PROPERTY = 'PixCredentialsSecretArn';

export const SandboxDefaults = {
  /** Access token lifetime (the bank's `expires_in`). */
  tokenLifetimeSeconds: 300,
  /** Tries of one request against concurrent changes of the state before it answers 503. */
  stateAttempts: 30,
  /** Gzipped state bytes the item may hold (DynamoDB's item limit is 400 KB, the key and version included). */
  maxStateBytes: 390_000,
  /** Delivery log lines kept (the oldest go first). */
  deliveryLogLength: 300,
  /** The longest `deliveryDelayMs` a deployed simulator takes: the delivery waits in the invocation that made the change. */
  maxDeliveryDelayMs: 20_000,
  /** The function's timeout, seconds. */
  functionTimeoutSeconds: 60,
} as const;
