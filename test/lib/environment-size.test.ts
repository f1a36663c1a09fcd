/**
 * Lambda takes 4 KB of environment variables per function, counted as CloudFormation resolves
 * them: synthesis fails (naming the function and its variables) before a deploy would, and the
 * examples' functions leave room for the Pix settings to come. The bank connection travels in
 * the environment without its defaults, and the handler reads it back whole.
 */
import { App, Duration, Stack } from 'aws-cdk-lib';
import { BANK_CONNECTION_ENV, compactBankConnection, expandBankConnection } from '../../contracts/bank-connection';
import { PIX_CONNECTION_ENV } from '../../contracts/pix-connection';
import { parseBankConnection } from '../../lambda/bank/cooperative/connection';
import { BoletoContractStatus } from '../../lib';
import { bankConnectionSettings } from '../../lib/families/cooperative/connection';
import { BundledFunction } from '../../lib/core/bundled-function';
import { environmentBytes, LAMBDA_ENVIRONMENT_LIMIT_BYTES } from '../../lib/core/environment-size';
import { buildExampleApp } from '../../examples/basic-receiver/app';
import { buildHardenedApp } from '../../examples/hardened/app';
import { buildStagingPairApp } from '../../examples/staging-pair/app';
import { buildTwoStageApp } from '../../examples/two-stages/app';
import { synthReceiver, testBankConnection, testStack } from '../support/cdk';

/** Room the processor's and the sweep's environments keep for what the Pix API family adds (its connection, keys' registrations). */
const ROOM_FOR_PIX_BYTES = 1_024;

const functionsOf = (app: App) => app.node.findAll().filter((c): c is BundledFunction => c instanceof BundledFunction);

it.each([
  ['basic', () => buildExampleApp(new App())],
  ['hardened', () => buildHardenedApp(new App())],
  ['staging pair', () => buildStagingPairApp(new App()).app],
  ['two stages', () => buildTwoStageApp(new App()).app],
])(
  "the %s example's functions resolve within Lambda's 4 KB, the processor and the sweep without Pix with room for the Pix settings",
  (_name, build) => {
    const functions = functionsOf(build());
    expect(functions.length).toBeGreaterThan(2);
    for (const fn of functions) {
      const { total, variables } = environmentBytes(fn);
      // A function without the Pix settings keeps room for them.
      const busy =
        /\/(Processor|Reconciliation)\/Function$/.test(fn.node.path) &&
        !variables.some((v) => v.name === PIX_CONNECTION_ENV);
      expect({
        fn: fn.node.path,
        fits: total <= LAMBDA_ENVIRONMENT_LIMIT_BYTES - (busy ? ROOM_FOR_PIX_BYTES : 0),
      }).toEqual({ fn: fn.node.path, fits: true });
    }
  },
);

it("fails synthesis, naming the function and its largest variables, when a function's environment could resolve past 4 KB", () => {
  // Each boleto contract adds what the stack deployed of it to the sweep's settings.
  const contracts = Array.from({ length: 8 }, (_, i) => ({
    posto: String(10 + i),
    nomeResponsavel: 'Finance',
    contratoStatus: BoletoContractStatus.ATIVO,
  }));
  expect(() => synthReceiver({ paymentRegistration: {}, boletoContracts: contracts })).toThrow(
    /\[TestStack\/Webhooks\/Reconciliation\/Function\] its environment variables could resolve to \d{4} bytes, over Lambda's 4096 for all of them together \(BANK_WEBHOOKS_SWEEP_SETTINGS \d{4}, BANK_WEBHOOKS_BANK_CONNECTION \d+, NODE_OPTIONS 32\): a deploy would fail/,
  );
  expect(() => synthReceiver({ paymentRegistration: {}, boletoContracts: contracts.slice(0, 2) })).not.toThrow();
});

describe("the bank connection in a function's environment", () => {
  it("leaves out what equals its default, and the handler reads back exactly the settings the registrations' properties carry", () => {
    const stack = testStack();
    for (const overrides of [
      {},
      {
        collectionScope: 'cobranca.custom',
        listingPageSize: 250,
        callTimeout: Duration.seconds(3),
        pixQueryPath: '/v2/pix/{id}',
      },
    ]) {
      const full = stack.resolve(bankConnectionSettings(testBankConnection(stack, overrides)));
      const compact = compactBankConnection(full);
      expect(JSON.stringify(compact).length).toBeLessThan(
        JSON.stringify(full).length - 400 + JSON.stringify(overrides).length,
      );
      expect(expandBankConnection(compact)).toEqual(full);
      expect(
        parseBankConnection(JSON.stringify(compact), { where: BANK_CONNECTION_ENV, setBy: 'SettlementProcessor' }),
      ).toEqual(full);
      // What a custom resource's properties hold (every field) reads the same.
      expect(
        parseBankConnection(JSON.stringify(full), {
          where: 'The custom resource property BankConnection',
          setBy: 'PaymentWebhookRegistration',
        }),
      ).toEqual(full);
    }
  });

  it('keeps a token URL it cannot derive at synth (a base URL only known at deploy time)', () => {
    const stack = new Stack(new App(), 'Deferred');
    const full = {
      ...stack.resolve(bankConnectionSettings(testBankConnection(testStack()))),
      registrationBaseUrl: '${Token[TOKEN.1]}',
    };
    expect(compactBankConnection(full)).toHaveProperty('paymentsTokenUrl', full.paymentsTokenUrl);
  });
});
