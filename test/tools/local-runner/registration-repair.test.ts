/**
 * The registration watch with `repairRegistrations`, over the local runner: it compares the bank
 * with what the last deploy recorded, puts that back when the bank deactivates or changes it,
 * never undoes a deploy (a sweep during the update repairs nothing; after it, the new values are
 * the ones kept), never over another party's URL, and never once the stack is being destroyed.
 * The sweep reads the stack's status with DescribeStacks and the records from SSM, both local.
 */
import {
  type AppliedRegistration,
  RegistrationProperty,
  RegistrationResourceType,
} from '../../../contracts/registration';
import { WatchState } from '../../../contracts/reconciliation';
import { BankWebhooksExampleStack } from '../../../examples/basic-receiver/app';
import { LocalRunner } from '../../../tools/local-runner/runner';

jest.setTimeout(120_000);

let runner: LocalRunner;

beforeAll(async () => {
  runner = await LocalRunner.start({
    stack: (app, id) =>
      new BankWebhooksExampleStack(app, id, { receiver: { reconciliation: { repairRegistrations: true } } }),
  });
  await runner.register();
});

afterAll(async () => {
  if (!runner) return;
  await runner.unregister();
  await runner.stop();
});

/** The registration's properties with its spec changed. */
const withSpec = (change: Record<string, unknown>, tokenVersion?: string) => (properties: Record<string, unknown>) => ({
  ...properties,
  [RegistrationProperty.SPEC]: JSON.stringify({
    ...JSON.parse(properties[RegistrationProperty.SPEC] as string),
    ...change,
  }),
  ...(tokenVersion ? { [RegistrationProperty.TOKEN_VERSION]: tokenVersion } : {}),
});

it('records what the deploy applied, one SSM parameter a registration, with no secret in it', () => {
  const names = runner.services.ssm.names('/cdk-bank-webhooks/applied/BankWebhooksLocal/');
  expect(names).toHaveLength(2);
  for (const name of names) {
    const text = runner.services.ssm.get(name)!;
    expect(JSON.parse(text)).toMatchObject({
      format: 1,
      appliedAt: expect.any(String),
      spec: { url: expect.stringMatching(/^https:\/\//) },
    });
    expect(text).not.toContain(runner.tokens.payments!);
    expect(text).not.toContain(runner.tokens.boleto!);
  }
});

it('puts back a contract the bank deactivated and a callback token that is not ours', async () => {
  const [contract] = await runner.control.contracts();
  const account = runner.simulator.accounts[0];
  await runner.control.changeContract(Number(contract.idContrato), { contratoStatus: 'INATIVO', urlStatus: 'INATIVO' });
  await runner.control.changeRegistration(account.cooperativa, account.conta, {
    authorizationCallback: 'a-token-that-is-not-ours',
  });
  const result = await runner.sweep();
  expect(result.registrations).toEqual([
    { registration: 'payments', state: WatchState.REPAIRED, drift: ['token'], repaired: true },
    {
      registration: expect.stringMatching(/^boleto /),
      state: WatchState.REPAIRED,
      drift: ['inactive'],
      repaired: true,
    },
  ]);
  const [after] = await runner.control.contracts();
  expect([after.contratoStatus, after.urlStatus]).toEqual(['ATIVO', 'ATIVO']);
  // Notifications reach the receiver again with the right token.
  const [registration] = await runner.control.registrations();
  expect(registration.authorizationCallback).toBe(runner.tokens.payments);
  expect(runner.counts().metrics.RegistrationsRepaired).toBe(2);
});

it('never undoes a deploy that pauses the contract: a sweep during the update repairs nothing, and after it the pause is what is kept', async () => {
  const during = await new Promise<Awaited<ReturnType<LocalRunner['sweep']>>>((resolve, reject) => {
    runner
      .updateRegistration(
        RegistrationResourceType.BOLETO_CONTRACT,
        withSpec({ contratoStatus: 'INATIVO', urlStatus: 'INATIVO' }),
        async () => resolve(await runner.sweep()),
      )
      .catch(reject);
  });
  expect(during.registrations?.[1]).toMatchObject({ state: WatchState.IN_SYNC });
  const [paused] = await runner.control.contracts();
  expect([paused.contratoStatus, paused.urlStatus]).toEqual(['INATIVO', 'INATIVO']);
  expect((await runner.sweep()).registrations?.[1]).toMatchObject({ state: WatchState.IN_SYNC });
  expect((await runner.control.contracts())[0].contratoStatus).toBe('INATIVO');
  // Someone switches it back on: held ATIVO where the stack says INATIVO is drift, and the pause is put back.
  await runner.control.changeContract(Number(paused.idContrato), { contratoStatus: 'ATIVO', urlStatus: 'ATIVO' });
  expect((await runner.sweep()).registrations?.[1]).toMatchObject({ state: WatchState.REPAIRED, drift: ['active'] });
  expect((await runner.control.contracts())[0].contratoStatus).toBe('INATIVO');
  await runner.updateRegistration(
    RegistrationResourceType.BOLETO_CONTRACT,
    withSpec({ contratoStatus: 'ATIVO', urlStatus: 'ATIVO' }),
  );
});

it('never puts the old callback token back after an update registered a new one', async () => {
  const records = runner.services.ssm
    .names('/cdk-bank-webhooks/applied/')
    .map((name) => JSON.parse(runner.services.ssm.get(name)!) as AppliedRegistration);
  const arn = records.find((r) => r.resourceType === RegistrationResourceType.PAYMENT_WEBHOOK)!.spec.tokenSecretArn!;
  const newToken = 'a-rotated-callback-token-0123456789abcdef';
  runner.secrets.putValue(arn, newToken, ['AWSPENDING']);
  // A sweep with the old settings runs while the update registers the pending value: it repairs nothing.
  await runner.updateRegistration(RegistrationResourceType.PAYMENT_WEBHOOK, withSpec({}, 'rotated-1'), async () => {
    expect((await runner.sweep()).registrations?.[0]).toMatchObject({
      registration: 'payments',
      state: WatchState.IN_SYNC,
    });
  });
  expect((await runner.control.registrations())[0].authorizationCallback).toBe(newToken);
  expect((await runner.sweep()).registrations?.[0]).toMatchObject({ state: WatchState.IN_SYNC });
  expect((await runner.control.registrations())[0].authorizationCallback).toBe(newToken);
  // The rotation completes: the bank holds the current value, still in sync.
  runner.secrets.finishRotation(arn);
  expect((await runner.sweep()).registrations?.[0]).toMatchObject({ state: WatchState.IN_SYNC });
  runner.tokens.payments = newToken;
});

it("never takes over another party's URL without takeOverExisting", async () => {
  const account = runner.simulator.accounts[0];
  const [before] = await runner.control.registrations();
  await runner.control.changeRegistration(account.cooperativa, account.conta, {
    urlCallback: 'https://staging.example/payments',
  });
  try {
    const result = await runner.sweep();
    expect(result.registrations?.[0]).toEqual({
      registration: 'payments',
      state: WatchState.DRIFT,
      drift: ['other-url'],
      repaired: false,
      notRepaired: "the bank holds another party's URL (takeOverExisting is off)",
    });
    expect((await runner.control.registrations())[0].urlCallback).toBe('https://staging.example/payments');
  } finally {
    await runner.control.changeRegistration(account.cooperativa, account.conta, { urlCallback: before.urlCallback });
  }
});

it('does not register again a stack being destroyed: a sweep still running repairs nothing', async () => {
  await runner.unregister();
  const [registration] = await runner.control.registrations();
  expect(registration?.urlCallback ?? '').toBe('');
  const result = await runner.sweep();
  // The registrations' records went with them: nothing to compare, nothing repaired.
  expect(result.registrations?.map((f) => [f.state, f.repaired])).toEqual([
    [WatchState.UNKNOWN, false],
    [WatchState.UNKNOWN, false],
  ]);
  expect((await runner.control.registrations())[0]?.urlCallback ?? '').toBe('');
  expect((await runner.control.contracts())[0].contratoStatus).toBe('INATIVO');
  expect(runner.services.ssm.names('/cdk-bank-webhooks/applied/')).toEqual([]);
  await runner.register();
});
