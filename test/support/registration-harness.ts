import { randomBytes, randomUUID } from 'node:crypto';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Construct } from 'constructs';
import { CooperativeClient } from '../../lambda/bank/cooperative/client';
import { credentialsFromSecret } from '../../lambda/bank/cooperative/connection';
import { RegistrationResourceType } from '../../contracts/registration';
import type { WatchedRegistration } from '../../contracts/reconciliation';
import {
  type BankAccount,
  type CooperativeConnectionProps,
  BoletoWebhookContract,
  type BoletoWebhookContractOptions,
  PaymentWebhookRegistration,
} from '../../lib';
import type { SimulatorAccount } from '../../simulator/model';
import { BankSimulator, type BankSimulatorOptions, SimulatorPaths } from '../../simulator/simulator';
import { LocalCustomResource, type OnEventHandler } from '../../tools/local-aws/custom-resource';
import { localAwsEnvironment } from '../../tools/local-aws/local-env';
import { LocalSecretsManager } from '../../tools/local-aws/secrets-manager-server';
import { LocalSsm } from '../../tools/local-aws/ssm-server';
import { TEST_AWS } from './aws-env';
import { loadHandlerBundle } from './load-handler';
import { simulatorConnection, simulatorCredentials } from './simulator-connection';
import { secretForms } from '../../lambda/shared/redaction';

/** A second account at the same cooperative, for changes of account. */
export const OTHER_ACCOUNT: SimulatorAccount = {
  cooperativa: '0101',
  posto: '02',
  conta: '654321',
  documento: '98765432000155',
  beneficiario: '54321',
};

export interface PaymentRegistrationInput {
  readonly url: string;
  readonly account?: SimulatorAccount;
  readonly tokenVersion?: string;
  readonly takeOverExisting?: boolean;
}

export interface ContractInput extends BoletoWebhookContractOptions {
  readonly url: string;
  /** @default true: the harness's boleto token secret */
  readonly withToken?: boolean;
  readonly header?: string;
}

/** The stack the harness's registrations belong to (its ARN, as CloudFormation sends it and the sweep's settings name it). */
export const REGISTRATION_STACK_ID = 'arn:aws:cloudformation:us-east-1:000000000000:stack/Registration/1';

const bankAccount = (a: SimulatorAccount): BankAccount => ({
  cooperativa: a.cooperativa,
  posto: a.posto,
  conta: a.conta,
  documento: a.documento,
  codigoBeneficiario: a.beneficiario,
});

/**
 * The registration bundle (the deployed file) against the bank simulator and a local Secrets
 * Manager holding the bank credentials and the two tokens. The custom resource properties come
 * from synthesizing the real constructs pointed at the simulator, so the handler is tested with
 * exactly what CloudFormation would send it.
 */
export class RegistrationHarness {
  readonly secrets = new LocalSecretsManager();
  /** Where the provider records what each registration applied. */
  readonly ssm = new LocalSsm();
  simulator!: BankSimulator;
  handler!: OnEventHandler;
  credentialsArn!: string;
  paymentTokenArn!: string;
  boletoTokenArn!: string;
  paymentToken = `pay-${randomBytes(24).toString('hex')}`;
  boletoToken = `bol-${randomBytes(24).toString('hex')}`;
  private readonly clients: CooperativeClient[] = [];

  static async start(
    options: BankSimulatorOptions = {},
    tokens: { payment?: string; boleto?: string } = {},
  ): Promise<RegistrationHarness> {
    const harness = new RegistrationHarness();
    harness.paymentToken = tokens.payment ?? harness.paymentToken;
    harness.boletoToken = tokens.boleto ?? harness.boletoToken;
    harness.simulator = await BankSimulator.start(options);
    const [endpoint, ssmEndpoint] = await Promise.all([harness.secrets.start(), harness.ssm.start()]);
    harness.credentialsArn = harness.secrets.createSecret(
      `bank-credentials-${randomUUID().slice(0, 6)}`,
      JSON.stringify(simulatorCredentials(harness.simulator)),
    );
    harness.paymentTokenArn = harness.secrets.createSecret('payment-callback-token', harness.paymentToken);
    harness.boletoTokenArn = harness.secrets.createSecret('boleto-token', harness.boletoToken);
    harness.handler = loadHandlerBundle<OnEventHandler>(
      'provider',
      localAwsEnvironment({ SECRETS_MANAGER: endpoint, SSM: ssmEndpoint }),
    );
    return harness;
  }

  get control() {
    return this.simulator.control;
  }

  /** The bank connection props of a construct pointed at the simulator. */
  bankProps(scope: Construct, account: SimulatorAccount = this.simulator.accounts[0]): CooperativeConnectionProps {
    const s = this.simulator;
    return {
      baseUrl: s.baseUrl,
      registrationBaseUrl: s.baseUrl + SimulatorPaths.registrationBase,
      collectionTokenUrl: s.baseUrl + SimulatorPaths.collectionToken,
      paymentsTokenUrl: s.baseUrl + SimulatorPaths.paymentsToken,
      credentials: secretsmanager.Secret.fromSecretCompleteArn(scope, 'Credentials', this.credentialsArn),
      account: bankAccount(account),
      callTimeout: Duration.millis(1_500),
    };
  }

  /** The custom resource's properties CloudFormation sends (ServiceToken and ServiceTimeout left out), and what the sweep's settings carry of the registration. */
  private synthesized(
    resourceType: string,
    build: (stack: Stack) => PaymentWebhookRegistration | BoletoWebhookContract | void,
  ): { properties: Record<string, unknown>; watched?: WatchedRegistration } {
    const stack = new Stack(new App(), 'Registration');
    const construct = build(stack);
    const resources = Object.values(Template.fromStack(stack).findResources(resourceType));
    if (resources.length !== 1) throw new Error(`expected one ${resourceType}, found ${resources.length}`);
    const properties = { ...(resources[0].Properties as Record<string, unknown>) };
    delete properties.ServiceToken;
    delete properties.ServiceTimeout;
    for (const [name, value] of Object.entries(properties)) {
      if (typeof value !== 'string')
        throw new Error(`property ${name} is not a plain string after synthesis: ${JSON.stringify(value)}`);
    }
    return { properties, ...(construct ? { watched: stack.resolve(construct._watched) as WatchedRegistration } : {}) };
  }

  /** A payment registration as deployed: its custom resource's properties, and what the sweep's settings carry of it. */
  paymentDeployment(input: PaymentRegistrationInput): {
    properties: Record<string, unknown>;
    watched: WatchedRegistration;
  } {
    const { properties, watched } = this.synthesized(
      RegistrationResourceType.PAYMENT_WEBHOOK,
      (stack) =>
        new PaymentWebhookRegistration(stack, 'Payments', {
          bank: this.bankProps(stack, input.account),
          url: input.url,
          token: secretsmanager.Secret.fromSecretCompleteArn(stack, 'Token', this.paymentTokenArn),
          tokenVersion: input.tokenVersion,
          takeOverExisting: input.takeOverExisting,
        }),
    );
    return { properties, watched: watched! };
  }

  /** A boleto contract as deployed: its custom resource's properties, and what the sweep's settings carry of it. */
  contractDeployment(input: ContractInput): { properties: Record<string, unknown>; watched: WatchedRegistration } {
    const { withToken = true, ...options } = input;
    const { properties, watched } = this.synthesized(
      RegistrationResourceType.BOLETO_CONTRACT,
      (stack) =>
        new BoletoWebhookContract(stack, 'Contract', {
          ...options,
          bank: this.bankProps(stack),
          token: withToken
            ? secretsmanager.Secret.fromSecretCompleteArn(stack, 'Token', this.boletoTokenArn)
            : undefined,
        }),
    );
    return { properties, watched: watched! };
  }

  paymentProperties(input: PaymentRegistrationInput): Record<string, unknown> {
    return this.paymentDeployment(input).properties;
  }

  contractProperties(input: ContractInput): Record<string, unknown> {
    return this.contractDeployment(input).properties;
  }

  paymentResource(stackId = REGISTRATION_STACK_ID): LocalCustomResource {
    return new LocalCustomResource({
      handler: this.handler,
      resourceType: RegistrationResourceType.PAYMENT_WEBHOOK,
      logicalResourceId: 'PaymentRegistration',
      stackId,
    });
  }

  contractResource(stackId = REGISTRATION_STACK_ID): LocalCustomResource {
    return new LocalCustomResource({
      handler: this.handler,
      resourceType: RegistrationResourceType.BOLETO_CONTRACT,
      logicalResourceId: 'BoletoContract',
      stackId,
    });
  }

  /** Every value that must never be written: both tokens and the bank credentials. */
  secretValues(): string[] {
    const c = this.simulator.credentials;
    return [this.paymentToken, this.boletoToken, c.collection.password, c.collection.apiKey, c.payments.clientSecret];
  }

  /** Asserts that `text` (a log, an answer, an error) holds none of {@link secretValues}, in any form it can travel in. */
  expectNoSecret(text: string): void {
    expectNoSecretIn(text, this.secretValues());
  }

  /** A bank client of the same account, to act as "someone else" at the bank. */
  bankClient(account: SimulatorAccount = this.simulator.accounts[0]): CooperativeClient {
    const sm = new SecretsManagerClient({
      region: TEST_AWS.region,
      credentials: TEST_AWS.credentials,
      endpoint: this.secrets.endpoint,
    });
    const client = new CooperativeClient({
      settings: simulatorConnection(this.simulator, this.credentialsArn, { account: { ...bankAccount(account) } }),
      credentials: credentialsFromSecret(sm, this.credentialsArn),
    });
    this.clients.push(client);
    return client;
  }

  async stop(): Promise<void> {
    for (const client of this.clients) client.close();
    await Promise.all([this.simulator?.stop(), this.secrets.stop(), this.ssm.stop()]);
  }
}

/** Asserts that `text` holds none of `values` raw, URL- or form-encoded, JSON-escaped or in base64. */
export function expectNoSecretIn(text: string, values: readonly string[]): void {
  for (const value of values)
    for (const form of secretForms(value))
      expect({ value, form, found: text.includes(form) }).toEqual({ value, form, found: false });
}
