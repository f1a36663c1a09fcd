/**
 * The registration bundle's boleto webhook contract lifecycle against the bank simulator, driven
 * with the properties the BoletoWebhookContract construct synthesizes. The bank keeps one
 * contract per cooperativa/posto/beneficiário and has no DELETE, so each test uses its own posto.
 */
import { BoletoContractStatus } from '../../../../lib';
import type { Contract } from '../../../../simulator/model';
import { ContractChange } from '../../../../simulator/behaviour';
import { captureOutput, jsonLogLines } from '../../../support/load-handler';
import { RegistrationHarness } from '../../../support/registration-harness';
import { waitFor } from '../../../support/wait';

const URL_A = 'https://receiver-a.example.com/prod/boleto';
const URL_B = 'https://receiver-b.example.com/prod/boleto';
const SOMEONE_ELSE = 'https://someone-else.example.net/hooks/boleto';

let h: RegistrationHarness;

beforeAll(async () => {
  h = await RegistrationHarness.start();
});
afterAll(() => h.stop());
afterEach(() => h.control.clearFaults());

async function contractsAt(posto: string): Promise<Contract[]> {
  return (await h.control.contracts()).filter((c) => c.posto === posto);
}

/** Someone else's call to the contract API, with the same account's credentials. */
async function callAs(method: string, path: string, body: unknown): Promise<unknown> {
  const answer = await h.bankClient().call({
    operation: `test ${method}`,
    api: 'collection',
    method,
    url: `${h.simulator.baseUrl}/cobranca/boleto/v1/webhook/${path}`,
    body,
    deadline: Date.now() + 10_000,
  });
  return answer.body;
}

const theirContract = (posto: string) => ({
  cooperativa: '0101',
  posto,
  codBeneficiario: '54321',
  eventos: ['LIQUIDACAO'],
  url: SOMEONE_ELSE,
  urlStatus: 'ATIVO',
  contratoStatus: 'ATIVO',
  header: 'X-Their-Header',
  token: 'their-own-token',
});

it('create POSTs a contract with every field and the token from its secret, and answers its id', async () => {
  const resource = h.contractResource();
  const { result: state, output } = await captureOutput(() =>
    resource.create(
      h.contractProperties({
        url: URL_A,
        posto: '11',
        header: 'X-Webhook-Token',
        nomeResponsavel: 'Finance Operations',
        email: 'finance@example.com',
        telefone: '+55 11 3003-0000',
        enviarIdTituloEmpresa: true,
      }),
    ),
  );

  const [contract] = await contractsAt('11');
  expect(contract).toEqual({
    idContrato: expect.any(Number),
    cooperativa: '0101',
    posto: '11',
    codBeneficiario: '54321',
    eventos: ['LIQUIDACAO'],
    url: URL_A,
    urlStatus: 'ATIVO',
    contratoStatus: 'ATIVO',
    nomeResponsavel: 'Finance Operations',
    email: 'finance@example.com',
    telefone: '+55 11 3003-0000',
    enviarIdTituloEmpresa: true,
    header: 'X-Webhook-Token',
    token: h.boletoToken,
  });
  expect(state.physicalResourceId).toBe(`boleto-contract/0101/11/54321/${contract.idContrato}`);
  expect(state.data).toEqual({ ContractId: String(contract.idContrato), Adopted: 'false', Url: URL_A });
  expect(output).toContain('Created the boleto webhook contract');
  h.expectNoSecret(output);
  h.expectNoSecret(JSON.stringify(state));
});

it('refuses to adopt an active contract of another URL, naming it, and changes nothing', async () => {
  const { idContrato } = (await callAs('POST', 'contrato/', theirContract('30'))) as { idContrato: number };
  const failure = await h
    .contractResource()
    .create(h.contractProperties({ url: URL_A, posto: '30' }))
    .then(
      () => undefined,
      (error: Error) => error,
    );
  expect(failure?.message).toMatch(
    new RegExp(
      `^The bank already holds an active boleto webhook contract \\(${idContrato}\\) for cooperativa 0101, posto 30, beneficiário 54321 pointing at https://someone-else\\.example\\.net/hooks/boleto, not this stack's ${URL_A}: .*set takeOverExisting: true`,
    ),
  );
  expect(await contractsAt('30')).toEqual([
    expect.objectContaining({ idContrato, url: SOMEONE_ELSE, token: 'their-own-token', contratoStatus: 'ATIVO' }),
  ]);
});

it('create adopts the contract the bank already holds with PUT instead of failing with "Contrato já existente." when told to take it over', async () => {
  const { idContrato } = (await callAs('POST', 'contrato/', theirContract('12'))) as { idContrato: number };
  const resource = h.contractResource();
  const { result: state, output } = await captureOutput(() =>
    resource.create(h.contractProperties({ url: URL_A, posto: '12', takeOverExisting: true })),
  );

  expect(state.data).toEqual({ ContractId: String(idContrato), Adopted: 'true', Url: URL_A });
  const contracts = await contractsAt('12');
  expect(contracts).toHaveLength(1);
  expect(contracts[0]).toMatchObject({
    idContrato,
    url: URL_A,
    header: 'Authorization',
    token: h.boletoToken,
    urlStatus: 'ATIVO',
    contratoStatus: 'ATIVO',
  });
  expect(output).toContain('Adopting the contract the bank already holds');
  expect(output).toContain('Taking over the boleto webhook contract another party made');
  expect(output).not.toContain('their-own-token');
});

it('update PUTs the whole contract under the same id; a rollback (update to the old properties) restores it', async () => {
  const resource = h.contractResource();
  const created = await resource.create(
    h.contractProperties({ url: URL_A, posto: '13', email: 'finance@example.com' }),
  );
  const { state, replaced } = await resource.update(
    h.contractProperties({ url: URL_B, posto: '13', eventos: ['LIQUIDACAO', 'BAIXA'] }),
  );
  expect(replaced).toBeUndefined();
  expect(state.physicalResourceId).toBe(created.physicalResourceId);
  const [updated] = await contractsAt('13');
  expect(updated).toMatchObject({ url: URL_B, eventos: ['LIQUIDACAO', 'BAIXA'] });
  expect(updated.email).toBeUndefined();

  await resource.update(h.contractProperties({ url: URL_A, posto: '13', email: 'finance@example.com' }));
  const [restored] = await contractsAt('13');
  expect(restored).toMatchObject({
    idContrato: updated.idContrato,
    url: URL_A,
    eventos: ['LIQUIDACAO'],
    email: 'finance@example.com',
  });
  expect(await contractsAt('13')).toHaveLength(1);
});

it('changes a contract with PATCH when the bank answers PUT with 405, and with PUT again when it answers PATCH with 405', async () => {
  const resource = h.contractResource();
  await resource.create(h.contractProperties({ url: URL_A, posto: '19' }));
  try {
    await h.control.setBehaviour({ contractChange: ContractChange.PATCH });
    const { output } = await captureOutput(() => resource.update(h.contractProperties({ url: URL_B, posto: '19' })));
    expect((await contractsAt('19'))[0]).toMatchObject({ url: URL_B, contratoStatus: 'ATIVO' });
    expect(output).toContain('The bank does not take PUT to change a contract (405); trying PATCH');
    await h.control.setBehaviour({ contractChange: ContractChange.PUT });
    const back = await captureOutput(() => resource.delete());
    expect((await contractsAt('19'))[0]).toMatchObject({ url: URL_B, contratoStatus: 'INATIVO', urlStatus: 'INATIVO' });
    expect(back.output).toContain('The bank does not take PATCH to change a contract (405); trying PUT');
  } finally {
    await h.control.resetBehaviour();
  }
});

it('a change of posto replaces the contract: the new one is made, then the old one switched off', async () => {
  const resource = h.contractResource();
  const created = await resource.create(h.contractProperties({ url: URL_A, posto: '14' }));
  const { state, replaced } = await resource.update(h.contractProperties({ url: URL_A, posto: '15' }));
  expect(replaced?.physicalResourceId).toBe(created.physicalResourceId);
  expect(state.physicalResourceId).toMatch(/^boleto-contract\/0101\/15\/54321\/\d+$/);

  await resource.delete(replaced);
  expect((await contractsAt('14'))[0]).toMatchObject({ contratoStatus: 'INATIVO', urlStatus: 'INATIVO', url: URL_A });
  expect((await contractsAt('15'))[0]).toMatchObject({ contratoStatus: 'ATIVO', urlStatus: 'ATIVO', url: URL_A });
});

it('delete switches the contract off (contratoStatus and urlStatus INATIVO) while its URL is ours', async () => {
  const resource = h.contractResource();
  await resource.create(h.contractProperties({ url: URL_A, posto: '16', nomeResponsavel: 'Finance Operations' }));
  const { output } = await captureOutput(() => resource.delete());
  const [contract] = await contractsAt('16');
  expect(contract).toMatchObject({
    url: URL_A,
    contratoStatus: 'INATIVO',
    urlStatus: 'INATIVO',
    nomeResponsavel: 'Finance Operations',
  });
  expect(output).toContain('Boleto webhook contract: deactivated');
  h.expectNoSecret(output);
});

it('an HTML page answered 200 is an error, never "no contract": delete fails and the contract stays active', async () => {
  const resource = h.contractResource();
  await resource.create(h.contractProperties({ url: URL_A, posto: '17' }));
  await h.control.setFaults({ api: [{ scope: 'contract', htmlPage: true }] });
  const failure = await resource.delete().then(
    () => undefined,
    (error: Error) => error,
  );
  expect(failure?.message).toMatch(
    /^GET \/cobranca\/boleto\/v1\/webhook\/contratos\/ \(list the boleto webhook contracts\) failed with HTTP 200: the answer is not JSON \(text\/html; charset=utf-8\): <!DOCTYPE html>/,
  );
  await h.control.clearFaults();
  expect(await contractsAt('17')).toEqual([expect.objectContaining({ url: URL_A, contratoStatus: 'ATIVO' })]);
});

it('delete leaves a contract someone else pointed elsewhere, and succeeds when the bank has none', async () => {
  const resource = h.contractResource();
  const { data } = await resource.create(h.contractProperties({ url: URL_A, posto: '17' }));
  await callAs('PUT', `contrato/${data.ContractId}`, theirContract('17'));
  const { output } = await captureOutput(() => resource.delete());
  expect((await contractsAt('17'))[0]).toMatchObject({
    url: SOMEONE_ELSE,
    contratoStatus: 'ATIVO',
    urlStatus: 'ATIVO',
  });
  expect(output).toContain('left alone');

  // A physical id whose contract the bank does not know (422 "Nenhum contrato encontrado").
  const gone = h.contractResource();
  gone.state = {
    physicalResourceId: 'boleto-contract/0101/18/54321/999999',
    properties: h.contractProperties({ url: URL_A, posto: '18' }),
    data: {},
  };
  await expect(gone.delete()).resolves.toBeUndefined();
});

it('a contract made with status INATIVO stays inactive, and no token means no header is sent', async () => {
  const resource = h.contractResource();
  await resource.create(
    h.contractProperties({ url: URL_A, posto: '19', withToken: false, contratoStatus: BoletoContractStatus.INATIVO }),
  );
  const [contract] = await contractsAt('19');
  expect(contract).toMatchObject({ contratoStatus: 'INATIVO', urlStatus: 'ATIVO' });
  expect(contract.header).toBeUndefined();
  expect(contract.token).toBeUndefined();
});

it("bank down: fails well within the timeout with the operation, the status and the bank's message", async () => {
  await h.control.setFaults({ api: [{ scope: 'contract', status: 502 }] });
  const resource = h.contractResource();
  const { result: failure, output } = await captureOutput(() =>
    resource.create(h.contractProperties({ url: URL_A, posto: '20' })).then(
      () => undefined,
      (error: Error) => error,
    ),
  );
  expect(failure?.message).toBe(
    'GET /cobranca/boleto/v1/webhook/contratos/ (list the boleto webhook contracts) failed with HTTP 502: Serviço temporariamente indisponível. Tente novamente mais tarde. (after 5 attempts)',
  );
  // The retries' waits as the handler planned them (not this machine's clock): nowhere near the function's timeout.
  const waits = jsonLogLines(output)
    .filter((line) => line.message === 'Retrying a bank call')
    .map((line) => Number(line.delayMs));
  expect(waits).toHaveLength(4);
  expect(waits.reduce((sum, ms) => sum + ms, 0)).toBeLessThan(30_000);
  h.expectNoSecret(`${failure?.message}\n${failure?.stack}`);
  expect(await contractsAt('20')).toEqual([]);
});

it('a refusal names what the bank said, in its own error shape', async () => {
  const resource = h.contractResource();
  // The collection token acts for beneficiário 54321 of cooperativa 0101: another cooperativa is the manual's 401.
  await expect(resource.create(h.contractProperties({ url: URL_A, posto: '21', cooperativa: '0202' }))).rejects.toThrow(
    /^GET \/cobranca\/boleto\/v1\/webhook\/contratos\/ \(list the boleto webhook contracts\) failed with HTTP 401: COOPERATIVA_DIFERENTE: Cooperativa diferente da cooperativa do usuário$/,
  );
});

describe('a create the bank carried out but never answered', () => {
  // The bank's answer to the change is lost (a gateway's 502), and every try after it fails.
  const lostAnswer = {
    api: [
      { scope: 'contract' as const, skip: 1, times: 1, status: 502, afterApplying: true },
      { scope: 'contract' as const, status: 503, times: 4 },
    ],
  };

  it('switches off the contract its POST made, in the same invocation, and fails saying so', async () => {
    await h.control.setFaults(lostAnswer);
    const { result: failure, output } = await captureOutput(() =>
      h
        .contractResource()
        .create(h.contractProperties({ url: URL_A, posto: '40' }))
        .then(
          () => undefined,
          (error: Error) => error,
        ),
    );
    expect(failure?.message).toMatch(
      /^POST \/cobranca\/boleto\/v1\/webhook\/contrato\/ \(create the boleto webhook contract\) failed with HTTP 503: .*; the contract it made \(\d+\) was switched off$/,
    );
    // CloudFormation never deletes a resource whose create failed: nothing may point at this stack's URL.
    expect(await contractsAt('40')).toEqual([
      expect.objectContaining({ url: URL_A, contratoStatus: 'INATIVO', urlStatus: 'INATIVO' }),
    ]);
    h.expectNoSecret(`${output}\n${failure?.message}`);
  });

  it('puts back the contract it was taking over, token and all, and fails saying so', async () => {
    const { idContrato } = (await callAs('POST', 'contrato/', theirContract('41'))) as { idContrato: number };
    await h.control.setFaults(lostAnswer);
    const { result: failure, output } = await captureOutput(() =>
      h
        .contractResource()
        .create(h.contractProperties({ url: URL_A, posto: '41', takeOverExisting: true }))
        .then(
          () => undefined,
          (error: Error) => error,
        ),
    );
    expect(failure?.message).toMatch(
      new RegExp(
        `^PUT /cobranca/boleto/v1/webhook/contrato/${idContrato} \\(adopt the existing boleto webhook contract\\) failed with HTTP 503: .*; what the bank held before \\(https://someone-else\\.example\\.net/hooks/boleto\\) was put back$`,
      ),
    );
    expect(await contractsAt('41')).toEqual([expect.objectContaining({ ...theirContract('41'), idContrato })]);
    expect(output).not.toContain('their-own-token');
    h.expectNoSecret(`${output}\n${failure?.message}`);
  });
});

it('never adopts a contract another party made between its look and its POST, unless told to take it over', async () => {
  // Our POST is held at the bank while someone else's contract for the same beneficiary lands
  // (long enough for their client's token request and POST on a busy machine).
  await h.control.setFaults({ api: [{ scope: 'contract', skip: 1, times: 1, delayMs: 3_000 }] });
  const creating = h
    .contractResource()
    .create(h.contractProperties({ url: URL_A, posto: '42' }))
    .then(
      () => undefined,
      (error: Error) => error,
    );
  await waitFor(async () => (await h.control.apiCallCounts()).contract.calls >= 2, 'our POST to reach the bank');
  const { idContrato } = (await callAs('POST', 'contrato/', theirContract('42'))) as { idContrato: number };
  const failure = await creating;
  expect(failure?.message).toMatch(
    new RegExp(
      `^The bank already holds an active boleto webhook contract \\(${idContrato}\\) .* pointing at https://someone-else\\.example\\.net/hooks/boleto, not this stack's ${URL_A}: .*set takeOverExisting: true`,
    ),
  );
  expect(await contractsAt('42')).toEqual([
    expect.objectContaining({ idContrato, url: SOMEONE_ELSE, token: 'their-own-token', contratoStatus: 'ATIVO' }),
  ]);
});

describe('a bank that lists contracts as an array', () => {
  let arrays: RegistrationHarness;
  beforeAll(async () => {
    arrays = await RegistrationHarness.start({ contractListShape: 'array' });
  });
  afterAll(() => arrays.stop());

  it('adopts, updates and deactivates the same way', async () => {
    const resource = arrays.contractResource();
    const first = await resource.create(arrays.contractProperties({ url: URL_A }));
    const other = arrays.contractResource();
    const adopted = await other.create(arrays.contractProperties({ url: URL_B, takeOverExisting: true }));
    expect(adopted.data).toMatchObject({ ContractId: first.data.ContractId, Adopted: 'true' });
    await other.delete();
    const [contract] = await arrays.control.contracts();
    expect(contract).toMatchObject({ url: URL_B, contratoStatus: 'INATIVO', urlStatus: 'INATIVO' });
  });
});
