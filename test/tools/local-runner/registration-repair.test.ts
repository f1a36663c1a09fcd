/**
 * The registration watch with `repairRegistrations`, over the local runner: it puts this stack's
 * registrations back when the bank deactivates or changes them, never over another party's URL,
 * and never once the stack is being destroyed (its schedule is deleted before the registrations).
 */
import { BankWebhooksExampleStack } from '../../../examples/basic-receiver/app';
import { LocalRunner } from '../../../tools/local-runner/runner';

jest.setTimeout(120_000);

let runner: LocalRunner;

beforeAll(async () => {
  runner = await LocalRunner.start({
    stack: (app, id) => new BankWebhooksExampleStack(app, id, { receiver: { reconciliation: { repairRegistrations: true } } }),
  });
  await runner.register();
});

afterAll(async () => {
  if (!runner) return;
  await runner.unregister();
  await runner.stop();
});

it('puts back a contract the bank deactivated and a callback token that is not ours', async () => {
  const [contract] = await runner.control.contracts();
  const account = runner.simulator.accounts[0];
  await runner.control.changeContract(Number(contract.idContrato), { contratoStatus: 'INATIVO', urlStatus: 'INATIVO' });
  await runner.control.changeRegistration(account.cooperativa, account.conta, { authorizationCallback: 'a-token-that-is-not-ours' });
  const result = await runner.sweep();
  expect(result.registrations).toEqual([
    { registration: 'payments', drift: ['token'], repaired: true },
    { registration: expect.stringMatching(/^boleto /), drift: ['inactive'], repaired: true },
  ]);
  const [after] = await runner.control.contracts();
  expect([after.contratoStatus, after.urlStatus]).toEqual(['ATIVO', 'ATIVO']);
  // Notifications reach the receiver again with the right token.
  const [registration] = await runner.control.registrations();
  expect(registration.authorizationCallback).toBe(runner.tokens.payments);
  expect(runner.counts().metrics.RegistrationsRepaired).toBe(2);
});

it('never takes over another party\'s URL without takeOverExisting', async () => {
  const account = runner.simulator.accounts[0];
  const [before] = await runner.control.registrations();
  await runner.control.changeRegistration(account.cooperativa, account.conta, { urlCallback: 'https://staging.example/payments' });
  try {
    const result = await runner.sweep();
    expect(result.registrations?.[0]).toEqual({ registration: 'payments', drift: ['other-url'], repaired: false, notRepaired: 'the bank holds another party\'s URL (takeOverExisting is off)' });
    expect((await runner.control.registrations())[0].urlCallback).toBe('https://staging.example/payments');
  } finally {
    await runner.control.changeRegistration(account.cooperativa, account.conta, { urlCallback: before.urlCallback });
  }
});

it('does not register again a stack being destroyed: its schedule goes first, and a sweep still running repairs nothing', async () => {
  await runner.unregister();
  const [registration] = await runner.control.registrations();
  expect(registration?.urlCallback ?? '').toBe('');
  const result = await runner.sweep();
  expect(result.registrations?.map((f) => [f.drift, f.repaired, f.notRepaired])).toEqual([
    [['missing'], false, 'the stack is being deleted or updated (its schedule is gone or disabled)'],
    [['inactive'], false, 'the stack is being deleted or updated (its schedule is gone or disabled)'],
  ]);
  expect((await runner.control.registrations())[0]?.urlCallback ?? '').toBe('');
  expect((await runner.control.contracts())[0].contratoStatus).toBe('INATIVO');
  await runner.register();
});
