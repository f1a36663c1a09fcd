/**
 * The families bound to a handler's environment (lambda/bank/families.ts bindFamilies): what the
 * processor, the sweep and the deploy-time provider get without naming a family.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { BANK_CONNECTION_ENV } from '../../../contracts/bank-connection';
import { PIX_CONNECTION_ENV } from '../../../contracts/pix-connection';
import { RegistrationResourceType } from '../../../contracts/registration';
import type { SweepSettings } from '../../../contracts/reconciliation';
import { bindFamilies, readAccountConnection } from '../../../lambda/bank/families';
import { MemorySlotSchedule, RatePacer } from '../../../lambda/bank/pacing';
import { simulatorConnection } from '../../../tools/local-runner/bank-credentials';

const BANK_ARN = 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:bank-AbCdEf';
const PIX_ARN = 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:pix-AbCdEf';
const ACCOUNTS = [
  { beneficiario: '123456', cooperativa: '0101', posto: '02', conta: '12345678', documento: '12345678000190' },
];
const BANK = simulatorConnection({ baseUrl: 'https://bank.example', accounts: ACCOUNTS }, BANK_ARN);
const PIX = {
  baseUrl: 'https://api-pix.example',
  tokenUrl: 'https://api-pix.example/oauth/token',
  credentialsSecretArn: PIX_ARN,
};
const SWEEP: SweepSettings = {
  idempotencyTableName: 't',
  queueUrl: 'q',
  lookbackDays: 2,
  paymentMaxAgeDays: 30,
  maxPaymentLooksPerSweep: 10,
  maxListingCallsPerSweep: 50,
  maxListingPage: 20,
  safetyMarginMs: 1000,
  receiverName: 'r',
};
const PIX_SWEEP = {
  keyHashes: ['h'],
  publishWithoutTxid: false,
  refundLookbackDays: 90,
  refundDaysPerSweep: 4,
  intervalMinutes: 60,
};
const pacer = () => new RatePacer(new MemorySlotSchedule(), { ratePerSecond: 10, name: 'test' });
const bind = (env: NodeJS.ProcessEnv) =>
  bindFamilies({
    env,
    setBy: 'ReconciliationSweep',
    secretsManager: new SecretsManagerClient({ region: 'sa-east-1' }),
  });

describe('a receiver without Pix', () => {
  const families = bind({ [BANK_CONNECTION_ENV]: JSON.stringify(BANK) });

  it("queries through the first family only, and reads its account from the first family's connection", () => {
    expect(Object.keys(families.queries(pacer()).clients)).toEqual(['cooperative']);
    expect(
      readAccountConnection({ [BANK_CONNECTION_ENV]: JSON.stringify(BANK) }, 'SettlementProcessor').account
        .codigoBeneficiario,
    ).toBe('123456');
  });

  it('lists the settled boletos over the lookback, and refuses Pix settings it has no connection for, naming who sets them', () => {
    expect(families.listings(pacer(), SWEEP).map((l) => [l.listing.name, l.days])).toEqual([
      ['boleto', { lookbackDays: 2 }],
    ]);
    expect(() => families.listings(pacer(), { ...SWEEP, pix: PIX_SWEEP })).toThrow(
      /asks for the Pix sweep but the function has no Pix connection \(set by ReconciliationSweep/,
    );
  });

  it("watches the bank's registrations only, and refuses a Pix key's it cannot read", () => {
    const deployed = families.deployed(pacer());
    expect(deployed.resourceTypes).toEqual([
      RegistrationResourceType.PAYMENT_WEBHOOK,
      RegistrationResourceType.BOLETO_CONTRACT,
    ]);
    expect(() => deployed.fromDeployed({ kind: 'pix-key', chave: 'a@b.c', url: 'https://x' } as never)).toThrow(
      /No API family owns this registration/,
    );
  });
});

describe('a receiver with Pix', () => {
  const families = bind({ [BANK_CONNECTION_ENV]: JSON.stringify(BANK), [PIX_CONNECTION_ENV]: JSON.stringify(PIX) });

  it('queries through both families; one pacer, one Pix client (its token and connection kept)', () => {
    const calls = pacer();
    const first = families.queries(calls).clients;
    expect(Object.keys(first)).toEqual(['cooperative', 'pix']);
    expect(families.queries(calls).clients.pix).toBe(first.pix);
    expect(families.queries(pacer()).clients.pix).not.toBe(first.pix);
  });

  it('lists the Pix of the recent days and, in turn, the refunds of older days', () => {
    expect(families.listings(pacer(), { ...SWEEP, pix: PIX_SWEEP }).map((l) => [l.listing.name, l.days])).toEqual([
      ['boleto', { lookbackDays: 2 }],
      ['pix', { lookbackDays: 2 }],
      ['pix-refund', { lookbackDays: 90, rotation: { from: 3, perSweep: 4, intervalMinutes: 60 } }],
    ]);
  });

  it("gives the deploy-time provider every family's registrations, and refuses an unknown type naming those it serves", () => {
    const registrations = bind({}).registrations();
    expect(registrations.resourceTypes).toEqual([
      RegistrationResourceType.PAYMENT_WEBHOOK,
      RegistrationResourceType.BOLETO_CONTRACT,
      RegistrationResourceType.PIX_KEY_WEBHOOK,
      RegistrationResourceType.PIX_ACCOUNT_WEBHOOK,
    ]);
    expect(() => registrations.fromProperties('Custom::Other', {})).toThrow(
      `Unknown resource type Custom::Other: this handler serves ${registrations.resourceTypes.join(', ')}`,
    );
    expect(families.deployed(pacer()).resourceTypes).toContain(RegistrationResourceType.PIX_KEY_WEBHOOK);
  });
});
