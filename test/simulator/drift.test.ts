/**
 * The bank changing registrations on its own (BANK-NOTES.md: a webhook deactivated after failed
 * deliveries, blocked, pointed elsewhere), through the simulator's control API, as the
 * registration watch will meet it.
 */
import { BankSimulator } from '../../simulator/simulator';
import { bankCall, collectionHeaders, contractBody, paymentsHeaders } from '../support/bank-session';

let simulator: BankSimulator;

beforeAll(async () => {
  simulator = await BankSimulator.start();
});

afterAll(async () => {
  await simulator.stop();
});

it('deactivates, blocks and re-points a boleto contract, and notifications stop while it is not ATIVO', async () => {
  const headers = await collectionHeaders(simulator);
  const created = await bankCall(simulator, '/cobranca/boleto/v1/webhook/contrato/', {
    method: 'POST',
    headers,
    body: contractBody(simulator, { url: 'https://hooks.example.com/boleto' }),
  });
  expect(created.status).toBe(201);
  const [contract] = await simulator.control.contracts();

  await simulator.control.changeContract(contract.idContrato, { urlStatus: 'INATIVO' });
  const boleto = await simulator.control.createBoleto({ valor: '10' });
  const settled = await simulator.control.settleBoleto(boleto.nossoNumero);
  expect(settled.skipped).toMatch(/is not active \(contratoStatus ATIVO, urlStatus INATIVO\)/);

  await simulator.control.changeContract(contract.idContrato, {
    contratoStatus: 'BLOQUEADO',
    url: 'https://elsewhere.example.com/hook',
  });
  const [after] = await simulator.control.contracts();
  expect(after).toMatchObject({
    idContrato: contract.idContrato,
    urlStatus: 'INATIVO',
    contratoStatus: 'BLOQUEADO',
    url: 'https://elsewhere.example.com/hook',
  });
});

it('re-points or clears a payment callback', async () => {
  const headers = await paymentsHeaders(simulator);
  await bankCall(simulator, '/pagamentos/v1/associado/webhook', {
    method: 'PATCH',
    headers,
    body: { urlCallback: 'https://hooks.example.com/payments', authorizationCallback: 'ours' },
  });
  const { cooperativa, conta } = simulator.accounts[0];
  await simulator.control.changeRegistration(cooperativa, conta, {
    urlCallback: 'https://other.example.com/cb',
    authorizationCallback: 'theirs',
  });
  expect((await bankCall(simulator, '/pagamentos/v1/associado/webhook', { headers })).json).toMatchObject({
    urlCallback: 'https://other.example.com/cb',
    authorizationCallback: 'theirs',
  });
  await simulator.control.changeRegistration(cooperativa, conta, { urlCallback: null });
  expect((await simulator.control.registrations())[0]).toMatchObject({
    urlCallback: null,
    authorizationCallback: 'theirs',
  });
});

it('refuses an unknown contract or registration, and changes it does not know, naming them', async () => {
  await expect(simulator.control.changeContract(999_999, { urlStatus: 'INATIVO' })).rejects.toThrow(
    'No contract with idContrato 999999.',
  );
  const [contract] = await simulator.control.contracts();
  await expect(simulator.control.changeContract(contract.idContrato, { urlStatus: 'DESLIGADO' })).rejects.toThrow(
    'Not accepted: urlStatus',
  );
  await expect(simulator.control.changeContract(contract.idContrato, { eventos: [] } as never)).rejects.toThrow(
    'Not accepted: eventos (known: urlStatus, contratoStatus, url, token;',
  );
  await expect(simulator.control.changeContract(contract.idContrato, {})).rejects.toThrow('Nothing to change');
  await expect(simulator.control.changeRegistration('0000', '1', { urlCallback: null })).rejects.toThrow(
    'No payment callback registration for cooperativa 0000, conta 1.',
  );
  // Nothing was changed by the refused calls.
  expect((await simulator.control.contracts())[0]).toMatchObject({
    urlStatus: contract.urlStatus,
    contratoStatus: contract.contratoStatus,
  });
});
