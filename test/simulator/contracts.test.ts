import { ContractChange } from '../../simulator/behaviour';
import { BankSimulator } from '../../simulator/simulator';
import { bankCall, collectionHeaders, contractBody } from '../support/bank-session';

const BASE = '/cobranca/boleto/v1/webhook';
let simulator: BankSimulator;
let headers: Record<string, string>;

beforeAll(async () => {
  simulator = await BankSimulator.start();
  headers = await collectionHeaders(simulator);
});

afterAll(async () => {
  await simulator.stop();
});

const post = (body: unknown) => bankCall(simulator, `${BASE}/contrato/`, { method: 'POST', headers, body });
const list = (query: string, with_ = headers) => bankCall(simulator, `${BASE}/contratos/${query}`, { headers: with_ });
const account = () => simulator.accounts[0];
const query = () =>
  `?cooperativa=${account().cooperativa}&posto=${account().posto}&beneficiario=${account().beneficiario}`;

describe('boleto webhook contract (4.1)', () => {
  it('GET contratos/ with no contract answers 422 "Nenhum contrato encontrado"', async () => {
    const answer = await list(query());
    expect(answer.status).toBe(422);
    expect(answer.json).toEqual({
      mensagens: [{ codigo: 'CONTRATO_NAO_ENCONTRADO', mensagem: 'Nenhum contrato encontrado' }],
    });
  });

  it('refuses a contract with every problem named, and stores nothing', async () => {
    const answer = await post(
      contractBody(simulator, {
        posto: undefined,
        eventos: [],
        url: 'http://receiver.example.com/boleto',
        urlStatus: 'LIGADO',
        email: 'not-an-email',
        enviarIdTituloEmpresa: 'sim',
      }),
    );
    expect(answer.status).toBe(400);
    const message = answer.json.mensagens[0].mensagem as string;
    for (const problem of [
      'posto é obrigatório',
      'eventos é obrigatório',
      'url deve usar HTTPS',
      'urlStatus deve ser ATIVO, INATIVO ou BLOQUEADO',
      'email inválido',
      'enviarIdTituloEmpresa deve ser true ou false',
    ]) {
      expect(message).toContain(problem);
    }
    expect((await list(query())).status).toBe(422);
  });

  it("refuses a contract for a beneficiary or cooperative the token does not belong to with the manual's 401s", async () => {
    const answer = await post(contractBody(simulator, { codBeneficiario: '99999' }));
    expect(answer.status).toBe(401);
    expect(answer.json.mensagens[0].mensagem).toBe('Código de beneficiário diferente do beneficiário do usuário');
    const cooperativa = await post(contractBody(simulator, { cooperativa: '9999' }));
    expect(cooperativa.status).toBe(401);
    expect(cooperativa.json.mensagens[0].mensagem).toBe('Cooperativa diferente da cooperativa do usuário');
  });

  it('POST contrato/ creates it (201 with idContrato); GET contratos/ returns it', async () => {
    const created = await post(contractBody(simulator));
    expect(created.status).toBe(201);
    expect(created.json).toEqual({ idContrato: expect.any(Number) });
    const listed = await list(query());
    expect(listed.status).toBe(200);
    expect(listed.json).toEqual(
      expect.objectContaining({ idContrato: created.json.idContrato, ...contractBody(simulator) }),
    );
  });

  it('refuses a second contract for the same cooperativa/posto/beneficiário: 422 "Contrato já existente."', async () => {
    const answer = await post(contractBody(simulator, { url: 'https://other.example.com/boleto' }));
    expect(answer.status).toBe(422);
    expect(answer.json).toEqual({ mensagens: [{ codigo: 'CONTRATO_EXISTENTE', mensagem: 'Contrato já existente.' }] });
    expect((await list(query())).json.url).toBe('https://receiver.example.com/boleto');
  });

  it('PUT contrato/{id} replaces the contract (200); INATIVO switches it off', async () => {
    const { idContrato } = (await list(query())).json;
    const answer = await bankCall(simulator, `${BASE}/contrato/${idContrato}`, {
      method: 'PUT',
      headers,
      body: contractBody(simulator, {
        contratoStatus: 'INATIVO',
        urlStatus: 'INATIVO',
        url: 'https://new.example.com/boleto',
      }),
    });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ idContrato });
    expect((await list(query())).json).toEqual(
      expect.objectContaining({
        idContrato,
        contratoStatus: 'INATIVO',
        urlStatus: 'INATIVO',
        url: 'https://new.example.com/boleto',
      }),
    );
  });

  it('PUT validates like POST and refuses an unknown id (404)', async () => {
    const { idContrato } = (await list(query())).json;
    const invalid = await bankCall(simulator, `${BASE}/contrato/${idContrato}`, {
      method: 'PUT',
      headers,
      body: contractBody(simulator, { contratoStatus: 'DESLIGADO' }),
    });
    expect(invalid.status).toBe(400);
    expect((await list(query())).json.contratoStatus).toBe('INATIVO');
    const unknown = await bankCall(simulator, `${BASE}/contrato/424242`, {
      method: 'PUT',
      headers,
      body: contractBody(simulator),
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json.mensagens[0].mensagem).toBe('Contrato 424242 não encontrado.');
  });

  it('PATCH contrato/{id} changes only the fields sent (a later manual); the rest of the contract stays, and is still checked', async () => {
    const { idContrato, url } = (await list(query())).json;
    const patched = await bankCall(simulator, `${BASE}/contrato/${idContrato}`, {
      method: 'PATCH',
      headers,
      body: { contratoStatus: 'ATIVO', urlStatus: 'ATIVO' },
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toEqual({ idContrato });
    expect((await list(query())).json).toEqual(
      expect.objectContaining({
        idContrato,
        contratoStatus: 'ATIVO',
        urlStatus: 'ATIVO',
        url,
        eventos: ['LIQUIDACAO'],
      }),
    );
    const invalid = await bankCall(simulator, `${BASE}/contrato/${idContrato}`, {
      method: 'PATCH',
      headers,
      body: { url: 'http://plain.example.com' },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.json.mensagens[0].mensagem).toContain('url deve usar HTTPS');
    expect(
      (await bankCall(simulator, `${BASE}/contrato/${idContrato}`, { method: 'PATCH', headers, body: [1] })).status,
    ).toBe(400);
  });

  it('answers 405 (with Allow) to the method the behaviour does not take: PUT only, or PATCH only', async () => {
    const { idContrato } = (await list(query())).json;
    const change = (method: string) =>
      bankCall(simulator, `${BASE}/contrato/${idContrato}`, { method, headers, body: contractBody(simulator) });
    try {
      await simulator.control.setBehaviour({ contractChange: ContractChange.PUT });
      const patch = await change('PATCH');
      expect([patch.status, patch.headers.allow]).toEqual([405, 'PUT']);
      expect((await change('PUT')).status).toBe(200);
      await simulator.control.setBehaviour({ contractChange: ContractChange.PATCH });
      const put = await change('PUT');
      expect([put.status, put.headers.allow]).toEqual([405, 'PATCH']);
      expect((await change('PATCH')).status).toBe(200);
    } finally {
      await simulator.control.resetBehaviour();
    }
  });

  it('has no DELETE', async () => {
    const { idContrato } = (await list(query())).json;
    const answer = await bankCall(simulator, `${BASE}/contrato/${idContrato}`, { method: 'DELETE', headers });
    expect(answer.status).toBe(405);
    expect((await list(query())).status).toBe(200);
  });

  it('GET contratos/ requires the three query parameters', async () => {
    const answer = await list(`?cooperativa=${account().cooperativa}`);
    expect(answer.status).toBe(400);
    expect(answer.json.mensagens[0].mensagem).toBe('Parâmetro(s) obrigatório(s): posto, beneficiario.');
  });

  it('requires the x-api-key and a collection token', async () => {
    const noKey = await list(query(), { ...headers, 'x-api-key': '' });
    expect(noKey.status).toBe(401);
    expect(noKey.json).toEqual({
      message: 'Could not find a required Access Token in the request, identified by HEADER x-api-key',
    });
    const noToken = await list(query(), { ...headers, authorization: '' });
    expect(noToken.status).toBe(401);
  });

  it("requires the cooperativa and posto headers, and a cooperativa that is the user's", async () => {
    const missing = await list(query(), { ...headers, posto: '' });
    expect(missing.status).toBe(400);
    expect(missing.json).toEqual({
      mensagens: [{ codigo: 'CABECALHO_OBRIGATORIO', mensagem: 'Cabeçalho(s) obrigatório(s) ausente(s): posto.' }],
    });
    const other = await list(query(), { ...headers, cooperativa: '9999' });
    expect(other.status).toBe(401);
    expect(other.json.mensagens[0].mensagem).toBe('Cooperativa diferente da cooperativa do usuário');
  });

  it('refuses a body that is not JSON', async () => {
    const answer = await bankCall(simulator, `${BASE}/contrato/`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{"cooperativa":',
    });
    expect(answer.status).toBe(400);
    expect(answer.json.mensagens[0].mensagem).toBe('The body is not valid JSON.');
  });
});

describe('contract list shape', () => {
  it('can answer GET contratos/ with an array, as the bank sometimes does', async () => {
    const arrays = await BankSimulator.start({ contractListShape: 'array' });
    try {
      const arrayHeaders = await collectionHeaders(arrays);
      await bankCall(arrays, `${BASE}/contrato/`, {
        method: 'POST',
        headers: arrayHeaders,
        body: contractBody(arrays),
      });
      const listed = await bankCall(arrays, `${BASE}/contratos/${query()}`, { headers: arrayHeaders });
      expect(Array.isArray(listed.json)).toBe(true);
      expect(listed.json).toHaveLength(1);
    } finally {
      await arrays.stop();
    }
  });
});

describe('a fault after applying', () => {
  it('carries a POST out and answers the fault instead, once; invalid combinations are refused by name', async () => {
    const bank = await BankSimulator.start();
    try {
      const bankHeaders = await collectionHeaders(bank);
      await expect(bank.control.setFaults({ api: [{ scope: 'contract', afterApplying: true }] })).rejects.toThrow(
        'api[0]: afterApplying needs a status or htmlPage to answer instead',
      );
      await bank.control.setFaults({ api: [{ scope: 'contract', status: 502, afterApplying: true, times: 1 }] });
      const lost = await bankCall(bank, `${BASE}/contrato/`, {
        method: 'POST',
        headers: bankHeaders,
        body: contractBody(bank),
      });
      expect(lost.status).toBe(502);
      // The bank made the contract all the same: a second POST finds it.
      expect(await bank.control.contracts()).toEqual([
        expect.objectContaining({ url: 'https://receiver.example.com/boleto', contratoStatus: 'ATIVO' }),
      ]);
      const again = await bankCall(bank, `${BASE}/contrato/`, {
        method: 'POST',
        headers: bankHeaders,
        body: contractBody(bank),
      });
      expect(again.status).toBe(422);
      expect(again.json.mensagens[0].mensagem).toBe('Contrato já existente.');
    } finally {
      await bank.stop();
    }
  });
});
