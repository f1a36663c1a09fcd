/**
 * A receiver against a BankSandbox, over the local runner: the sandbox's deployed bundle in two
 * local environments behind a local function URL (state in dynalite, control by invoking it, no
 * mutual TLS) instead of the in-process simulator; the receiver's deployed bundles as always. The
 * whole flow a staging stack runs against it: registrations at deploy, notifications the sandbox
 * sends, verification by its query APIs, the sweep, and unregistration at destroy.
 */
import { BankEventDetailType as T } from '../../../contracts/events';
import { tokenFingerprint } from '../../../lambda/sandbox/host';
import { LocalRunner } from '../../../tools/local-runner/runner';

jest.setTimeout(120_000);

let runner: LocalRunner;

beforeAll(async () => {
  runner = await LocalRunner.start({ sandbox: true });
  await runner.register();
});

afterAll(async () => {
  await runner?.stop();
});

afterEach(async () => {
  await runner.control.clearFaults();
});

it('has no in-process simulator to offer, and says what to use', () => {
  expect(() => runner.simulator).toThrow(/local BankSandbox.*runner\.bank/);
});

it("registers both webhooks with the sandbox at deploy, with the receiver's tokens (shown as fingerprints by its control API)", async () => {
  const [registration] = await runner.control.registrations();
  expect(registration.urlCallback).toMatch(/\/payments$/);
  expect(registration.authorizationCallback).toBe(tokenFingerprint(runner.tokens.payments!));
  const [contract] = await runner.control.contracts();
  expect(contract).toEqual(
    expect.objectContaining({
      url: expect.stringMatching(/\/boleto$/),
      contratoStatus: 'ATIVO',
      urlStatus: 'ATIVO',
      token: tokenFingerprint(runner.tokens.boleto!),
    }),
  );
});

it('turns a settlement and a Pix payment the sandbox notifies into one verified event each, and refuses forged requests', async () => {
  const since = runner.checkpoint();
  const boleto = await runner.control.createBoleto({ valor: '321.00' });
  const settled = await runner.control.settleBoleto(boleto.nossoNumero);
  expect(settled.skipped).toBeNull();
  const pix = await runner.control.createPayment({ tipo: 'pix', valor: '45.60' });
  await runner.control.settlePayment('pix', pix.payment.idTransacao);
  const forged = await runner.post(
    'boleto',
    JSON.stringify({ idEventoWebhook: 'forged', nossoNumero: boleto.nossoNumero, movimento: 'LIQUIDACAO_PIX' }),
    'wrong-token',
  );
  expect(forged.status).toBe(401);
  await runner.settle(60_000);
  const events = runner.verifiedEvents(since);
  expect(
    events
      .filter((e) => e.detailType === String(T.BOLETO_SETTLED))
      .map((e) => (e.detail as { subject: { nossoNumero: string } }).subject.nossoNumero),
  ).toEqual([boleto.nossoNumero]);
  // Created and settled before the receiver looked, or looked at in between: its changes once each, in order, ending settled.
  const pixChanges = events
    .filter((e) => e.detailType === String(T.PAYMENT_STATUS_VERIFIED))
    .map((e) => e.detail as { subject: { idTransacao: string; sequence: number }; state: { status: string } })
    .filter((d) => d.subject.idTransacao === pix.payment.idTransacao);
  expect(pixChanges.map((d) => d.subject.sequence)).toEqual(pixChanges.map((_, i) => i + 1));
  expect(pixChanges[pixChanges.length - 1]?.state.status).toBe('EFETIVADO');
  expect((await runner.control.deliveries()).filter((d) => d.outcome !== 'ENTREGUE')).toEqual([]);
  expect(runner.audit(since).problems).toEqual([]);
});

it('publishes once, from the sweep, a settlement the sandbox never delivered', async () => {
  const since = runner.checkpoint();
  await runner.control.setFaults({ loseDeliveries: true });
  const boleto = await runner.control.createBoleto({ valor: '77.70' });
  await runner.control.settleBoleto(boleto.nossoNumero);
  await runner.control.clearFaults();
  const report = await runner.sweep();
  expect(report).toMatchObject({ complete: true });
  await runner.settle(60_000);
  const recovered = runner.verifiedEvents(since);
  expect(recovered.map((e) => [e.detailType, (e.detail as { trigger: string }).trigger])).toEqual([
    [T.BOLETO_SETTLED, 'reconciliation'],
  ]);
  await runner.sweep();
  await runner.settle(30_000);
  expect(runner.verifiedEvents(since)).toHaveLength(1);
});

it('removes both registrations from the sandbox at destroy', async () => {
  await runner.unregister();
  const registrations = await runner.control.registrations();
  expect(registrations.every((r) => r.urlCallback === null)).toBe(true);
  const contracts = await runner.control.contracts();
  expect(contracts.every((c) => c.contratoStatus !== 'ATIVO' || c.urlStatus !== 'ATIVO')).toBe(true);
});
