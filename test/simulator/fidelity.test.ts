/**
 * Fidelity: the simulator driven as a real client of the bank's API drives the bank, and its
 * answers read as such a client reads them, field by field and type by type (the manual's
 * shapes, BANK-NOTES.md). Requests are built here by hand, not with this library's CooperativeClient, so
 * the simulator is held to the clients that exist, not to our own code.
 */
import { BankSimulator } from '../../simulator/simulator';
import { bankCall, type BankAnswer } from '../support/bank-session';

let simulator: BankSimulator;

beforeAll(async () => {
  simulator = await BankSimulator.start();
});

afterAll(async () => {
  await simulator.stop();
});

const FORM = 'application/x-www-form-urlencoded';
const pad = (value: string | number, width: number) => String(value).padStart(width, '0');

/** A client's model of an answer: each field read with the type the manual gives it; a wrong type fails the read. */
function read<T extends Record<string, 'string' | 'number' | 'boolean' | 'object' | 'array'>>(
  answer: unknown,
  fields: T,
  where: string,
): Record<keyof T, any> {
  expect(answer).toEqual(expect.any(Object));
  const problems = Object.entries(fields)
    .filter(([name, type]) => {
      const value = (answer as Record<string, unknown>)[name];
      return type === 'array' ? !Array.isArray(value) : typeof value !== type || value === null;
    })
    .map(
      ([name, type]) =>
        `${where}.${name} is not a ${type}: ${JSON.stringify((answer as Record<string, unknown>)[name])}`,
    );
  expect(problems).toEqual([]);
  return answer as Record<keyof T, any>;
}

/** The collection token as clients ask it: form-encoded, x-api-key and context headers, a zero-padded username. */
async function collectionSession() {
  const account = simulator.accounts[0];
  const c = simulator.credentials.collection;
  const answer = await bankCall(simulator, '/auth/openapi/token', {
    method: 'POST',
    headers: { 'content-type': FORM, 'x-api-key': c.apiKey, context: 'COBRANCA' },
    body: new URLSearchParams({
      grant_type: 'password',
      username: pad(account.beneficiario, 5) + pad(account.cooperativa, 4),
      password: c.password,
      scope: 'cobranca',
    }).toString(),
  });
  expect(answer.status).toBe(200);
  const token = read(
    answer.json,
    {
      access_token: 'string',
      token_type: 'string',
      expires_in: 'number',
      refresh_token: 'string',
      refresh_expires_in: 'number',
      scope: 'string',
    },
    'token',
  );
  return {
    token,
    headers: {
      'x-api-key': c.apiKey,
      authorization: `Bearer ${token.access_token}`,
      cooperativa: account.cooperativa,
      posto: account.posto,
    },
  };
}

describe('a collection client', () => {
  it("reads the boleto query's answer field by field, zero-padding the nossoNumero it asks", async () => {
    const { headers } = await collectionSession();
    const created = await simulator.control.createBoleto({
      valor: '88.40',
      seuNumero: 'NF-31',
      dataVencimento: '2026-12-20',
    });
    const asked = pad(Number(created.nossoNumero), 9);
    const query = async (): Promise<BankAnswer> =>
      bankCall(
        simulator,
        `/cobranca/boleto/v1/boletos?codigoBeneficiario=${pad(simulator.accounts[0].beneficiario, 5)}&nossoNumero=${asked}`,
        { headers },
      );
    const open = read(
      (await query()).json,
      {
        linhaDigitavel: 'string',
        codigoBarras: 'string',
        carteira: 'string',
        seuNumero: 'string',
        nossoNumero: 'string',
        pagador: 'object',
        dataEmissao: 'string',
        dataVencimento: 'string',
        valorNominal: 'number',
        situacao: 'string',
        txId: 'string',
        codigoQrCode: 'string',
        multa: 'number',
        abatimento: 'number',
        tipoJuros: 'string',
        juros: 'number',
        diasProtesto: 'number',
        validadeAposVencimento: 'number',
        diasNegativacao: 'number',
        tipoDesconto: 'string',
        descontoAntecipacao: 'number',
        descontos: 'array',
      },
      'boleto',
    );
    expect(open.nossoNumero).toBe(asked);
    expect([open.valorNominal, open.dataVencimento, open.situacao]).toEqual([88.4, '2026-12-20', 'EM CARTEIRA']);
    expect(open.dataEmissao).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    read(open.pagador, { documento: 'string', nome: 'string' }, 'boleto.pagador');
    expect(open).not.toHaveProperty('dadosLiquidacao');

    await simulator.control.settleBoleto(created.nossoNumero, { canal: 'COMPE_H8', valor: '88.00' });
    const settled = (await query()).json;
    expect(settled.situacao.startsWith('LIQUIDADO')).toBe(true);
    const liquidacao = read(
      settled.dadosLiquidacao,
      { data: 'string', valor: 'number', multa: 'number', abatimento: 'number', juros: 'number', desconto: 'number' },
      'boleto.dadosLiquidacao',
    );
    expect(liquidacao.data).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(liquidacao.valor).toBe(88);
  });

  it('pages the settled-by-day listing from 1 until hasNext is false, reading each item', async () => {
    const { headers } = await collectionSession();
    await simulator.control.setBehaviour({ listingPageSize: 2 });
    try {
      for (let i = 0; i < 3; i++)
        await simulator.control.settleBoleto(
          (await simulator.control.createBoleto({ valor: `${10 + i}` })).nossoNumero,
          { canal: 'PIX' },
        );
      const local = new Date(Date.now() - 3 * 3600_000).toISOString();
      const dia = `${local.slice(8, 10)}/${local.slice(5, 7)}/${local.slice(0, 4)}`;
      const items: Record<string, unknown>[] = [];
      for (let pagina = 1; pagina < 100; pagina++) {
        const page = read(
          (
            await bankCall(
              simulator,
              `/cobranca/boleto/v1/boletos/liquidados/dia?codigoBeneficiario=54321&dia=${encodeURIComponent(dia)}&pagina=${pagina}`,
              { headers },
            )
          ).json,
          { items: 'array', hasNext: 'boolean' },
          'page',
        );
        items.push(...page.items);
        if (!page.hasNext) break;
      }
      expect(items.length).toBeGreaterThanOrEqual(3);
      for (const item of items) {
        const i = read(
          item,
          {
            cooperativa: 'string',
            codigoBeneficiario: 'string',
            cooperativaPostoBeneficiario: 'string',
            nossoNumero: 'string',
            tipoCarteira: 'string',
            dataPagamento: 'string',
            valor: 'number',
            valorLiquidado: 'number',
            jurosLiquido: 'number',
            descontoLiquido: 'number',
            multaLiquida: 'number',
            abatimentoLiquido: 'number',
            tipoLiquidacao: 'string',
          },
          'item',
        );
        expect(i.nossoNumero).toMatch(/^\d{9}$/);
        expect(i.dataPagamento).toBe(`${local.slice(0, 10)} 00:00:00.0`);
        expect(['CARTEIRA_SIMPLES', 'CARTEIRA_CAUCIONADA', 'CARTEIRA_DESCONTADA', 'CARTEIRA_VINCULADA']).toContain(
          i.tipoCarteira,
        );
        expect(['REDE', 'COMPE', 'PIX', 'AVISO DE PAGAMENTO REDE', 'AVISO DE PAGAMENTO COMPE']).toContain(
          i.tipoLiquidacao,
        );
      }
    } finally {
      await simulator.control.resetBehaviour();
    }
  });

  it('makes a webhook contract with POST, finds it with GET, changes it with PUT (the spec) and with PATCH and a partial body (a later manual)', async () => {
    const { headers } = await collectionSession();
    const account = simulator.accounts[0];
    const identity = { cooperativa: account.cooperativa, posto: account.posto, codBeneficiario: account.beneficiario };
    const whole = {
      ...identity,
      eventos: ['LIQUIDACAO'],
      url: 'https://client.example.com/hook',
      urlStatus: 'ATIVO',
      contratoStatus: 'ATIVO',
      header: 'x-token',
      token: 'client-token',
    };
    const created = await bankCall(simulator, '/cobranca/boleto/v1/webhook/contrato/', {
      method: 'POST',
      headers,
      body: whole,
    });
    expect([201, 200]).toContain(created.status);
    const { idContrato } = read(created.json, { idContrato: 'number' }, 'created');
    const find = async () =>
      bankCall(
        simulator,
        `/cobranca/boleto/v1/webhook/contratos/?cooperativa=${account.cooperativa}&posto=${account.posto}&beneficiario=${account.beneficiario}`,
        { headers },
      );
    const found = (await find()).json;
    const contract = Array.isArray(found) ? found[0] : found;
    read(
      contract,
      { idContrato: 'number', url: 'string', urlStatus: 'string', contratoStatus: 'string', eventos: 'array' },
      'contract',
    );
    const put = await bankCall(simulator, `/cobranca/boleto/v1/webhook/contrato/${idContrato}`, {
      method: 'PUT',
      headers,
      body: { ...whole, url: 'https://client.example.com/hook2' },
    });
    expect([200, 202]).toContain(put.status);
    const patch = await bankCall(simulator, `/cobranca/boleto/v1/webhook/contrato/${idContrato}`, {
      method: 'PATCH',
      headers,
      body: { urlStatus: 'INATIVO', contratoStatus: 'INATIVO' },
    });
    expect([200, 202]).toContain(patch.status);
    expect((await find()).json).toEqual(
      expect.objectContaining({
        url: 'https://client.example.com/hook2',
        urlStatus: 'INATIVO',
        contratoStatus: 'INATIVO',
      }),
    );
  });
});

describe('a payments client', () => {
  it("asks one consultar scope per token, as one public client does, and reads each kind's payment", async () => {
    const p = simulator.credentials.payments;
    const account = simulator.accounts[0];
    for (const kind of ['pix', 'boleto', 'tributos'] as const) {
      const token = await bankCall(simulator, '/thirdparty/auth/token', {
        method: 'POST',
        headers: {
          'content-type': FORM,
          authorization: `Basic ${Buffer.from(`${p.clientId}:${p.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: `payments.${kind}.consultar` }).toString(),
        clientCertificate: true,
      });
      const { access_token, scope } = read(
        token.json,
        { access_token: 'string', expires_in: 'number', token_type: 'string', scope: 'string' },
        'token',
      );
      expect(scope).toBe(`payments.${kind}.consultar`);
      const { payment } = await simulator.control.createPayment({ tipo: kind, valor: '12.34' });
      const answer = await bankCall(simulator, `/pagamentos/v1/pagamentos/${kind}/${payment.idTransacao}`, {
        headers: {
          authorization: `Bearer ${access_token}`,
          'x-conta': account.conta,
          'x-cooperativa': account.cooperativa,
          'x-documento': account.documento,
        },
      });
      expect(answer.status).toBe(200);
      const read_ = read(answer.json, { idTransacao: 'string', status: 'string', valorPagamento: 'string' }, kind);
      expect([read_.idTransacao, read_.status, read_.valorPagamento]).toEqual([
        payment.idTransacao,
        'RECEBIDO',
        '12.34',
      ]);
    }
  });
});
