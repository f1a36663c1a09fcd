import { PaymentScopeRule } from '../../simulator/behaviour';
import { BankSimulator, SAMPLE_ACCOUNT } from '../../simulator/simulator';
import { bankCall, paymentsHeaders } from '../support/bank-session';

const PATH = '/pagamentos/v1/associado/webhook';
const SECOND_ACCOUNT = {
  cooperativa: '0202',
  posto: '01',
  conta: '777777',
  documento: '98765432000111',
  beneficiario: '11111',
};
let simulator: BankSimulator;
let headers: Record<string, string>;

beforeAll(async () => {
  simulator = await BankSimulator.start({ accounts: [SAMPLE_ACCOUNT, SECOND_ACCOUNT] });
  headers = await paymentsHeaders(simulator);
});

afterAll(async () => {
  await simulator.stop();
});

const patch = (body: unknown, with_ = headers) => bankCall(simulator, PATH, { method: 'PATCH', headers: with_, body });
const read = (with_ = headers) => bankCall(simulator, PATH, { headers: with_ });

describe('callback registration (GET/PATCH {registration_base_url}/v1/associado/webhook)', () => {
  it('starts with nothing registered', async () => {
    const answer = await read();
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ urlCallback: null, authorizationCallback: null });
  });

  it('PATCH sets both fields, GET reads them back', async () => {
    const answer = await patch({
      urlCallback: 'https://receiver.example.com/payments',
      authorizationCallback: 'token-1',
    });
    expect(answer.status).toBe(204);
    expect((await read()).json).toEqual({
      urlCallback: 'https://receiver.example.com/payments',
      authorizationCallback: 'token-1',
    });
  });

  it('"" clears one value and leaves the other', async () => {
    await patch({ urlCallback: 'https://receiver.example.com/payments', authorizationCallback: '' });
    expect((await read()).json).toEqual({
      urlCallback: 'https://receiver.example.com/payments',
      authorizationCallback: null,
    });
  });

  it('refuses a PATCH missing either field, naming it, and changes nothing', async () => {
    await patch({ urlCallback: 'https://a.example.com/p', authorizationCallback: 'kept' });
    const missing = await patch({ urlCallback: 'https://b.example.com/p' });
    expect(missing.status).toBe(400);
    expect(missing.json).toEqual({
      errors: [{ field: 'authorizationCallback', message: 'authorizationCallback is required; send "" to clear it.' }],
    });
    const both = await patch({});
    expect(both.json.errors.map((e: { field: string }) => e.field)).toEqual(['urlCallback', 'authorizationCallback']);
    expect((await read()).json).toEqual({ urlCallback: 'https://a.example.com/p', authorizationCallback: 'kept' });
  });

  it.each([
    ['a non-string value', { urlCallback: 42, authorizationCallback: 'x' }, /urlCallback must be a string/],
    ['a relative URL', { urlCallback: '/payments', authorizationCallback: 'x' }, /absolute URL/],
    ['an array body', [], /JSON object/],
    ['a body that is not JSON', 'not json', /not valid JSON/],
  ])('refuses %s', async (_case, body, message) => {
    const answer = await bankCall(simulator, PATH, {
      method: 'PATCH',
      headers: { ...headers, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.json.errors)).toMatch(message);
  });

  it('keeps registrations per account', async () => {
    const second = await paymentsHeaders(simulator, SECOND_ACCOUNT);
    await patch({ urlCallback: 'https://second.example.com/p', authorizationCallback: 'second' }, second);
    await patch({ urlCallback: 'https://first.example.com/p', authorizationCallback: 'first' });
    expect((await read(second)).json).toEqual({
      urlCallback: 'https://second.example.com/p',
      authorizationCallback: 'second',
    });
    expect((await read()).json.urlCallback).toBe('https://first.example.com/p');
  });

  it('requires x-conta, x-cooperativa and x-documento, and names the missing ones', async () => {
    const { authorization } = headers;
    const answer = await read({ authorization, 'x-conta': SAMPLE_ACCOUNT.conta });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({
      erros: [
        {
          codigo: 'CABECALHO_OBRIGATORIO',
          mensagem: 'Cabeçalho(s) obrigatório(s) ausente(s): x-cooperativa, x-documento.',
        },
      ],
    });
  });

  it("refuses an unknown account (404) and a documento that is not the holder's (403)", async () => {
    const unknown = await read({ ...headers, 'x-conta': '000000' });
    expect(unknown.status).toBe(404);
    expect(unknown.json.erros[0].codigo).toBe('CONTA_NAO_ENCONTRADA');
    const wrongDocument = await patch(
      { urlCallback: '', authorizationCallback: '' },
      { ...headers, 'x-documento': SECOND_ACCOUNT.documento },
    );
    expect(wrongDocument.status).toBe(403);
    expect((await read()).json.urlCallback).toBe('https://first.example.com/p');
  });

  it('accepts a token holding any one of the three scopes', async () => {
    for (const scope of ['payments.pix.pagar', 'payments.boleto.pagar', 'payments.tributos.pagar']) {
      const token = await bankCall(simulator, '/thirdparty/auth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: simulator.credentials.payments.clientId,
          client_secret: simulator.credentials.payments.clientSecret,
          scope,
        }).toString(),
        clientCertificate: true,
      });
      expect((await read({ ...headers, authorization: `Bearer ${token.json.access_token}` })).status).toBe(200);
    }
  });

  it("takes scopes per operation: a query its kind's consultar scope, the registration a pagar scope; any scope in the looser reading", async () => {
    const tokenOf = async (scope: string) =>
      `Bearer ${
        (
          await bankCall(simulator, '/thirdparty/auth/token', {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({
              grant_type: 'client_credentials',
              client_id: simulator.credentials.payments.clientId,
              client_secret: simulator.credentials.payments.clientSecret,
              scope,
            }).toString(),
            clientCertificate: true,
          })
        ).json.access_token
      }`;
    const { payment } = await simulator.control.createPayment({ tipo: 'boleto', valor: '5' });
    const query = (authorization: string, kind = 'boleto') =>
      bankCall(simulator, `/pagamentos/v1/pagamentos/${kind}/${payment.idTransacao}`, {
        headers: { ...headers, authorization },
      });
    const consultar = await tokenOf('payments.boleto.consultar');
    const pagar = await tokenOf('payments.boleto.pagar');
    expect((await query(consultar)).status).toBe(200);
    const refused = await query(pagar);
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe(
      'Insufficient scope: this operation requires one of payments.boleto.consultar (the token has payments.boleto.pagar).',
    );
    expect((await query(await tokenOf('payments.pix.consultar'))).status).toBe(403);
    expect((await read({ ...headers, authorization: consultar })).status).toBe(403);
    await simulator.control.setBehaviour({ paymentScopes: PaymentScopeRule.ANY });
    try {
      expect((await query(pagar)).status).toBe(200);
      expect((await read({ ...headers, authorization: consultar })).status).toBe(200);
    } finally {
      await simulator.control.resetBehaviour();
    }
  });

  it('answers a payment query only for the account that made the payment', async () => {
    const second = await paymentsHeaders(simulator, SECOND_ACCOUNT);
    const { payment } = await simulator.control.createPayment({
      tipo: 'pix',
      valor: '5',
      conta: SECOND_ACCOUNT.conta,
      cooperativa: SECOND_ACCOUNT.cooperativa,
    });
    const path = `/pagamentos/v1/pagamentos/pix/${payment.idTransacao}`;
    expect((await bankCall(simulator, path, { headers: second })).status).toBe(200);
    const fromFirst = await bankCall(simulator, path, { headers });
    expect(fromFirst.status).toBe(404);
    expect(fromFirst.json.erros[0].codigo).toBe('PAGAMENTO_NAO_ENCONTRADO');
  });

  it('answers 405 to other methods and 404 to unknown paths', async () => {
    const deleted = await bankCall(simulator, PATH, { method: 'DELETE', headers });
    expect(deleted.status).toBe(405);
    expect(deleted.headers.allow).toBe('GET, PATCH');
    expect((await bankCall(simulator, '/pagamentos/v2/associado/webhook', { headers })).status).toBe(404);
  });
});
