import { BoletoQueryShape, EmptyListing, HasNextType, SettlementTimestamp } from '../../simulator/behaviour';
import { BankSimulator } from '../../simulator/simulator';
import { bankCall, collectionHeaders, paymentsHeaders } from '../support/bank-session';

let simulator: BankSimulator;
let collection: Record<string, string>;
let payments: Record<string, string>;

beforeAll(async () => {
  simulator = await BankSimulator.start();
  collection = await collectionHeaders(simulator);
  payments = await paymentsHeaders(simulator);
});

afterEach(async () => {
  await simulator.control.clearFaults();
});

afterAll(async () => {
  await simulator.stop();
});

const boletoQuery = (nossoNumero: string, beneficiario = simulator.accounts[0].beneficiario) =>
  bankCall(simulator, `/cobranca/boleto/v1/boletos?codigoBeneficiario=${beneficiario}&nossoNumero=${nossoNumero}`, {
    headers: collection,
  });
const paymentQuery = (kind: string, id: string, headers = payments) =>
  bankCall(simulator, `/pagamentos/v1/pagamentos/${kind}/${id}`, { headers });
const DATE_TIME = [
  expect.any(Number),
  expect.any(Number),
  expect.any(Number),
  expect.any(Number),
  expect.any(Number),
  expect.any(Number),
  expect.any(Number),
];

describe('boleto query (GET /cobranca/boleto/v1/boletos)', () => {
  const ZULU = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

  it("answers the manual's flat object through settlement and reversal: valorNominal a number, dates YYYY-MM-DD, dadosLiquidacao only once settled", async () => {
    const boleto = await simulator.control.createBoleto({
      valor: 250.75,
      seuNumero: 'INV-1',
      dataVencimento: '2026-12-10',
    });
    expect(boleto.nossoNumero).toMatch(/^\d{9}$/);
    const open = await boletoQuery(boleto.nossoNumero);
    expect(open.status).toBe(200);
    expect(open.json).toEqual(
      expect.objectContaining({
        nossoNumero: boleto.nossoNumero,
        seuNumero: 'INV-1',
        valorNominal: 250.75,
        dataVencimento: '2026-12-10',
        dataEmissao: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        situacao: 'EM CARTEIRA',
        carteira: 'SIMPLES',
        linhaDigitavel: expect.any(String),
        codigoBarras: expect.any(String),
        txId: expect.any(String),
        pagador: expect.objectContaining({ documento: expect.any(String), nome: expect.any(String) }),
        multa: 0,
        juros: 0,
        abatimento: 0,
        descontos: [],
      }),
    );
    expect(open.json).not.toHaveProperty('resultado');
    expect(open.json).not.toHaveProperty('dadosLiquidacao');
    await simulator.control.settleBoleto(boleto.nossoNumero, { canal: 'REDE', valor: '250.70' });
    const settled = (await boletoQuery(boleto.nossoNumero)).json;
    expect(settled.situacao).toBe('LIQUIDADO REDE');
    expect(settled.dadosLiquidacao).toEqual({
      data: expect.stringMatching(ZULU),
      valor: 250.7,
      multa: 0,
      abatimento: 0,
      juros: 0,
      desconto: 0,
    });
    await simulator.control.reverseBoleto(boleto.nossoNumero);
    const reversed = (await boletoQuery(boleto.nossoNumero)).json;
    expect(reversed.situacao).toBe('EM CARTEIRA');
    expect(reversed).not.toHaveProperty('dadosLiquidacao');
  });

  it('names the channel in a settled situacao as the manual lists them', async () => {
    for (const [canal, situacao] of [
      ['PIX', 'LIQUIDADO PIX'],
      ['COMPE_H5', 'LIQUIDADO COMPE'],
      ['CARTORIO', 'LIQUIDADO CARTORIO'],
    ] as const) {
      const boleto = await simulator.control.createBoleto({ valor: '10' });
      await simulator.control.settleBoleto(boleto.nossoNumero, { canal });
      expect((await boletoQuery(boleto.nossoNumero)).json.situacao).toBe(situacao);
    }
  });

  it('answers the earlier wrapped shape (resultado, valor a string, date arrays) when the behaviour asks', async () => {
    const boleto = await simulator.control.createBoleto({ valor: 250.75, dataVencimento: '2026-12-10' });
    await simulator.control.settleBoleto(boleto.nossoNumero, { valor: '250.70' });
    await simulator.control.setBehaviour({ boletoQueryShape: BoletoQueryShape.WRAPPED });
    try {
      const answer = (await boletoQuery(boleto.nossoNumero)).json;
      expect(answer.resultado).toEqual(
        expect.objectContaining({
          nossoNumero: boleto.nossoNumero,
          codigoBeneficiario: '54321',
          valor: '250.75',
          dataVencimento: [2026, 12, 10],
          situacao: 'LIQUIDADO',
          dadosLiquidacao: { data: DATE_TIME, valor: '250.70' },
        }),
      );
    } finally {
      await simulator.control.resetBehaviour();
    }
  });

  it("writes a settlement at 22:30 and at 01:30 in São Paulo as a true UTC instant, or as the bank's local time with a Z", async () => {
    const sim = await BankSimulator.start();
    try {
      // A fresh token each time: the bank's clock moves by hours.
      const query = async (nossoNumero: string) =>
        (
          await bankCall(sim, `/cobranca/boleto/v1/boletos?codigoBeneficiario=54321&nossoNumero=${nossoNumero}`, {
            headers: await collectionHeaders(sim),
          })
        ).json.dadosLiquidacao.data as string;
      const settleAt = async (utcHour: number) => {
        const now = Date.now() + (await sim.control.advanceClock(0)).offsetSeconds * 1000;
        const target = new Date(now);
        target.setUTCHours(utcHour, 30, 0, 0);
        if (target.getTime() <= now) target.setUTCDate(target.getUTCDate() + 1);
        await sim.control.advanceClock((target.getTime() - now) / 1000);
        const boleto = await sim.control.createBoleto({ valor: '10' });
        await sim.control.settleBoleto(boleto.nossoNumero);
        return { nossoNumero: boleto.nossoNumero, target };
      };
      const late = await settleAt(1); // 22:30 at the bank, 01:30 UTC of the next day
      const early = await settleAt(4); // 01:30 at the bank, 04:30 UTC
      expect((await query(late.nossoNumero)).slice(11, 16)).toBe('01:30');
      expect((await query(late.nossoNumero)).slice(0, 10)).toBe(late.target.toISOString().slice(0, 10));
      expect((await query(early.nossoNumero)).slice(11, 16)).toBe('04:30');
      await sim.control.setBehaviour({ settlementTimestamp: SettlementTimestamp.BANK_LOCAL });
      expect((await query(late.nossoNumero)).slice(11, 16)).toBe('22:30');
      expect((await query(late.nossoNumero)).slice(0, 10)).toBe(
        new Date(late.target.getTime() - 86_400_000).toISOString().slice(0, 10),
      );
      expect((await query(early.nossoNumero)).slice(11, 16)).toBe('01:30');
    } finally {
      await sim.stop();
    }
  });

  it('shows cancelled and rejected boletos', async () => {
    const a = await simulator.control.createBoleto({ valor: '10' });
    const b = await simulator.control.createBoleto({ valor: '10' });
    await simulator.control.cancelBoleto(a.nossoNumero);
    await simulator.control.rejectBoleto(b.nossoNumero);
    expect((await boletoQuery(a.nossoNumero)).json.situacao).toBe('BAIXADO POR SOLICITACAO');
    expect((await boletoQuery(b.nossoNumero)).json.situacao).toBe('REJEITADO');
  });

  it("answers the manual's 400 for a nossoNumero that is not nine digits, 404 for an unknown one, 401 for another beneficiary, 400 without the parameters", async () => {
    const boleto = await simulator.control.createBoleto({ valor: '10' });
    const short = await boletoQuery(boleto.nossoNumero.replace(/^0+/, ''));
    expect(short.status).toBe(400);
    expect(short.json.mensagens[0].mensagem).toBe(
      'O campo nosso numero deve ter apenas 9 (nove) caracteres numéricos.',
    );
    expect((await boletoQuery('ABC123456')).status).toBe(400);
    const unknown = await boletoQuery('999999999');
    expect(unknown.status).toBe(404);
    expect(unknown.json.mensagens[0].mensagem).toBe('Titulo não encontrado');
    const othersBoleto = await simulator.control.createBoleto({ valor: '10', beneficiario: '11111' });
    const other = await boletoQuery(othersBoleto.nossoNumero, '11111');
    expect(other.status).toBe(401);
    expect(other.json.mensagens[0].mensagem).toBe('Código de beneficiário diferente do beneficiário do usuário');
    const missing = await bankCall(simulator, '/cobranca/boleto/v1/boletos', { headers: collection });
    expect(missing.status).toBe(400);
    expect(missing.json.mensagens[0].mensagem).toMatch(/codigoBeneficiario, nossoNumero/);
  });
});

describe('payment queries (GET {registration_base_url}/v1/pagamentos/{pix|boleto|tributos}/{id})', () => {
  it('answers a Pix payment with the fields of BANK-NOTES.md, RECEBIDO first, then EFETIVADO', async () => {
    const created = await simulator.control.createPayment({ tipo: 'pix', valor: '99.90' });
    const received = await paymentQuery('pix', created.payment.idTransacao);
    expect(received.status).toBe(200);
    expect(received.json).toEqual(
      expect.objectContaining({
        idPagamentoPix: expect.any(Number),
        idTransacao: created.payment.idTransacao,
        status: 'RECEBIDO',
        valorPagamento: '99.90',
        dataPagamento: null,
        chavePix: expect.any(String),
        nomeBeneficiario: expect.any(String),
        documentoBeneficiario: expect.any(String),
        ispbBeneficiario: expect.any(String),
        agenciaBeneficiario: expect.any(String),
        contaBeneficiario: expect.any(String),
        tipoContaBeneficiario: expect.any(String),
        endToEnd: expect.stringMatching(/^E/),
        motivoRejeicao: null,
      }),
    );
    await simulator.control.settlePayment('pix', created.payment.idTransacao);
    const settled = (await paymentQuery('pix', created.payment.idTransacao)).json;
    expect(settled).toEqual(expect.objectContaining({ status: 'EFETIVADO', dataPagamento: DATE_TIME }));
    // The notification carries the same body as the query (specification, section 1).
    expect(settled).toEqual((await simulator.control.getPayment('pix', created.payment.idTransacao)).payment);
  });

  it.each([
    ['boleto', 'idPagamentoBoleto', { codigoBarras: expect.any(String), linhaDigitavel: expect.any(String) }],
    ['tributos', 'idPagamentoTributo', { codigoBarras: expect.any(String), tipoTributo: 'DARF' }],
  ] as const)('answers a %s payment, with rejection reason when rejected', async (kind, idField, fields) => {
    const created = await simulator.control.createPayment({ tipo: kind, valor: '1500' });
    await simulator.control.rejectPayment(kind, created.payment.idTransacao, { motivo: 'Conta encerrada' });
    const answer = await paymentQuery(kind, created.payment.idTransacao);
    expect(answer.json).toEqual(
      expect.objectContaining({
        [idField]: expect.any(Number),
        status: 'REJEITADO',
        valorPagamento: '1500.00',
        motivoRejeicao: 'Conta encerrada',
        ...fields,
      }),
    );
  });

  it('answers 404 for an unknown id and for another kind; 400 for a malformed id', async () => {
    const created = await simulator.control.createPayment({ tipo: 'pix', valor: '1' });
    expect((await paymentQuery('pix', 'does-not-exist')).json).toEqual({
      erros: [{ codigo: 'PAGAMENTO_NAO_ENCONTRADO', mensagem: 'Pagamento does-not-exist não encontrado.' }],
    });
    expect((await paymentQuery('boleto', created.payment.idTransacao)).status).toBe(404);
    const malformed = await paymentQuery('pix', 'bad%20id!');
    expect(malformed.status).toBe(400);
    expect(malformed.json.erros[0].codigo).toBe('ID_INVALIDO');
  });
});

describe('query faults', () => {
  it('answers 5xx for the next N calls, then the real answer', async () => {
    const boleto = await simulator.control.createBoleto({ valor: '10' });
    await simulator.control.setFaults({ api: [{ scope: 'query', status: 503, times: 2 }] });
    const first = await boletoQuery(boleto.nossoNumero);
    expect(first.status).toBe(503);
    expect(first.json).toEqual({ mensagem: 'Serviço temporariamente indisponível. Tente novamente mais tarde.' });
    expect((await boletoQuery(boleto.nossoNumero)).status).toBe(503);
    expect((await boletoQuery(boleto.nossoNumero)).status).toBe(200);
  });

  it('answers 429 with Retry-After', async () => {
    await simulator.control.setFaults({ api: [{ scope: 'query', status: 429, retryAfterSeconds: 2, times: 1 }] });
    const answer = await paymentQuery('pix', 'anything');
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toBe('2');
    expect(answer.json).toEqual({ message: 'Too many requests' });
  });

  it('answers slowly', async () => {
    await simulator.control.setFaults({ api: [{ scope: 'query', delayMs: 300 }] });
    const answer = await paymentQuery('pix', 'anything');
    expect(answer.status).toBe(404);
    expect(answer.durationMs).toBeGreaterThanOrEqual(290);
  });

  it('rate-limits like the bank, and only the part named', async () => {
    await simulator.control.setFaults({ rateLimitPerSecond: { query: 3 } });
    const statuses = (await Promise.all(Array.from({ length: 8 }, () => paymentQuery('pix', 'anything')))).map(
      (answer) => answer.status,
    );
    expect(statuses.filter((status) => status === 404).length).toBeGreaterThanOrEqual(3);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(2);
    expect((await bankCall(simulator, '/pagamentos/v1/associado/webhook', { headers: payments })).status).toBe(200);
  });

  it("checks credentials before faults and the rate limit, as the bank's gateway does: a refused call spends no fault and no slot", async () => {
    const boleto = await simulator.control.createBoleto({ valor: '10' });
    await simulator.control.setFaults({
      api: [{ scope: 'query', status: 503, times: 1 }],
      rateLimitPerSecond: { query: 2 },
    });
    const anonymous = await Promise.all(
      Array.from({ length: 10 }, () =>
        bankCall(
          simulator,
          `/cobranca/boleto/v1/boletos?codigoBeneficiario=${simulator.accounts[0].beneficiario}&nossoNumero=${boleto.nossoNumero}`,
        ),
      ),
    );
    expect(new Set(anonymous.map((answer) => answer.status))).toEqual(new Set([401]));
    expect((await boletoQuery(boleto.nossoNumero)).status).toBe(503);
    expect((await boletoQuery(boleto.nossoNumero)).status).toBe(200);
  });

  it('refuses invalid faults with every problem named', async () => {
    await expect(
      simulator.control.setFaults({
        api: [{ scope: 'queries' as never, status: 404 }],
        duplicateDeliveries: -1,
        bogus: 1,
      } as never),
    ).rejects.toThrow(
      /unknown fault "bogus".*duplicateDeliveries must be a whole number >= 0.*api\[0\]\.scope must be one of.*api\[0\]\.status must be 429 or 5xx/,
    );
    expect(await bankCall(simulator, '/control/faults')).toEqual(expect.objectContaining({ json: {} }));
  });
});

describe('control API errors', () => {
  it('refuses impossible transitions and bad input, saying what was wrong', async () => {
    const boleto = await simulator.control.createBoleto({ valor: '10' });
    await expect(simulator.control.reverseBoleto(boleto.nossoNumero)).rejects.toThrow(
      /Cannot reverse boleto \d+: its situacao is EM CARTEIRA, not LIQUIDADO/,
    );
    await expect(simulator.control.settleBoleto(boleto.nossoNumero, { canal: 'BITCOIN' as never })).rejects.toThrow(
      /canal must be one of PIX, REDE/,
    );
    await expect(simulator.control.createBoleto({ valor: '-5' })).rejects.toThrow(/valor must be a positive amount/);
    await expect(
      simulator.control.createBoleto({ valor: '5', seuNumero: 42 as never, posto: {} as never }),
    ).rejects.toThrow('posto, seuNumero must be text.');
    await expect(simulator.control.createPayment({ tipo: 'ted' as never, valor: '1' })).rejects.toThrow(
      /tipo must be one of pix, boleto, tributos/,
    );
    await expect(simulator.control.getBoleto('nope')).rejects.toMatchObject({ status: 404 });
    const payment = await simulator.control.createPayment({ tipo: 'pix', valor: '1' });
    await simulator.control.settlePayment('pix', payment.payment.idTransacao);
    await expect(simulator.control.rejectPayment('pix', payment.payment.idTransacao)).rejects.toMatchObject({
      status: 409,
    });
    expect((await simulator.control.getBoleto(boleto.nossoNumero)).situacao).toBe('EM CARTEIRA');
  });
});

describe('settled boletos by day (GET /cobranca/boleto/v1/boletos/liquidados/dia)', () => {
  /** The bank's day (America/Sao_Paulo, UTC−3) of an instant, as DD/MM/YYYY. */
  const bankDay = (epochMs: number) => {
    const local = new Date(epochMs - 3 * 3600_000);
    return `${String(local.getUTCDate()).padStart(2, '0')}/${String(local.getUTCMonth() + 1).padStart(2, '0')}/${local.getUTCFullYear()}`;
  };
  const listing = (
    sim: BankSimulator,
    headers: Record<string, string>,
    dia: string,
    pagina?: number,
    beneficiario = sim.accounts[0].beneficiario,
  ) =>
    bankCall(
      sim,
      `/cobranca/boleto/v1/boletos/liquidados/dia?codigoBeneficiario=${beneficiario}&dia=${encodeURIComponent(dia)}${pagina ? `&pagina=${pagina}` : ''}`,
      { headers },
    );

  it("lists the day's settlements in the order they happened, 500 a page by default, in the manual's domains; a reversed one drops out", async () => {
    const sim = await BankSimulator.start();
    try {
      expect(sim.behaviour.listingPageSize).toBe(500);
      const headers = await collectionHeaders(sim);
      const settled: string[] = [];
      const channels = ['PIX', 'REDE', 'COMPE_H6', 'CARTORIO'] as const;
      for (let i = 0; i < 55; i++) {
        const boleto = await sim.control.createBoleto({ valor: `${100 + i}.50`, seuNumero: `INV-${i}` });
        await sim.control.settleBoleto(boleto.nossoNumero, { canal: channels[i % 4] });
        settled.push(boleto.nossoNumero);
      }
      await sim.control.createBoleto({ valor: '10' }); // open: not listed
      const today = bankDay(Date.now());
      const all = await listing(sim, headers, today);
      expect(all.status).toBe(200);
      expect(all.json.hasNext).toBe(false);
      expect(all.json.items.map((item: { nossoNumero: string }) => item.nossoNumero)).toEqual(settled);
      const [yyyy, mm, dd] = [today.slice(6), today.slice(3, 5), today.slice(0, 2)];
      expect(all.json.items[0]).toEqual({
        cooperativa: sim.accounts[0].cooperativa,
        codigoBeneficiario: sim.accounts[0].beneficiario,
        cooperativaPostoBeneficiario: sim.accounts[0].cooperativa + sim.accounts[0].posto,
        nossoNumero: settled[0],
        seuNumero: 'INV-0',
        tipoCarteira: 'CARTEIRA_SIMPLES',
        dataPagamento: `${yyyy}-${mm}-${dd} 00:00:00.0`,
        valor: 100.5,
        valorLiquidado: 100.5,
        jurosLiquido: 0,
        descontoLiquido: 0,
        multaLiquida: 0,
        abatimentoLiquido: 0,
        tipoLiquidacao: 'PIX',
      });
      expect(all.json.items.slice(0, 4).map((item: { tipoLiquidacao: string }) => item.tipoLiquidacao)).toEqual([
        'PIX',
        'REDE',
        'COMPE',
        'REDE',
      ]);

      await sim.control.setBehaviour({ listingPageSize: 50 });
      const first = await listing(sim, headers, today);
      expect([first.json.items.length, first.json.hasNext]).toEqual([50, true]);
      const second = await listing(sim, headers, today, 2);
      expect([second.json.items.length, second.json.hasNext]).toEqual([5, false]);

      await sim.control.reverseBoleto(settled[3]);
      const again = await listing(sim, headers, today);
      expect(again.json.items.map((item: { nossoNumero: string }) => item.nossoNumero)).not.toContain(settled[3]);
      expect((await listing(sim, headers, '01/01/2020')).json).toEqual({ items: [], hasNext: false });
    } finally {
      await sim.stop();
    }
  });

  it('plays the other readings: hasNext as a string, pages from 0, a 404 for an empty day', async () => {
    const sim = await BankSimulator.start({
      behaviour: {
        listingPageSize: 2,
        listingHasNext: HasNextType.STRING,
        listingFirstPage: 0,
        emptyListing: EmptyListing.NOT_FOUND,
      },
    });
    try {
      const headers = await collectionHeaders(sim);
      for (let i = 0; i < 3; i++)
        await sim.control.settleBoleto((await sim.control.createBoleto({ valor: '10' })).nossoNumero);
      const today = bankDay(Date.now());
      const page0 = await bankCall(
        sim,
        `/cobranca/boleto/v1/boletos/liquidados/dia?codigoBeneficiario=54321&dia=${encodeURIComponent(today)}&pagina=0`,
        { headers },
      );
      expect([page0.json.items.length, page0.json.hasNext]).toEqual([2, 'true']);
      expect((await listing(sim, headers, today, 1)).json.hasNext).toBe('false');
      const empty = await listing(sim, headers, '01/01/2020');
      expect(empty.status).toBe(404);
      expect((await listing(sim, headers, today, 2)).status).toBe(404);
      await sim.control.resetBehaviour();
      const refused = await bankCall(
        sim,
        `/cobranca/boleto/v1/boletos/liquidados/dia?codigoBeneficiario=54321&dia=${encodeURIComponent(today)}&pagina=0`,
        { headers },
      );
      expect(refused.status).toBe(400);
      expect(refused.json.mensagens[0].mensagem).toBe('pagina deve ser um número a partir de 1.');
    } finally {
      await sim.stop();
    }
  });

  it('refuses a behaviour it does not know, naming every problem', async () => {
    await expect(
      simulator.control.setBehaviour({ listingPageSize: 0, bogus: 1, listingHasNext: 'yes' } as never),
    ).rejects.toThrow(
      /listingPageSize must be a whole number from 1 to 10000.*unknown setting bogus.*listingHasNext takes "boolean" or "string"/,
    );
    expect((await simulator.control.behaviour()).listingPageSize).toBe(500);
  });

  it("puts a settlement at 22:30 in São Paulo (01:30 UTC the next day) on the bank's day", async () => {
    const sim = await BankSimulator.start();
    try {
      const now = Date.now();
      const target = new Date(now);
      target.setUTCHours(1, 30, 0, 0);
      if (target.getTime() <= now) target.setUTCDate(target.getUTCDate() + 1);
      await sim.control.advanceClock((target.getTime() - now) / 1000);
      const headers = await collectionHeaders(sim);
      const boleto = await sim.control.createBoleto({ valor: '10' });
      await sim.control.settleBoleto(boleto.nossoNumero);
      const utcDay = `${String(target.getUTCDate()).padStart(2, '0')}/${String(target.getUTCMonth() + 1).padStart(2, '0')}/${target.getUTCFullYear()}`;
      expect(
        (await listing(sim, headers, bankDay(target.getTime()))).json.items.map(
          (item: { nossoNumero: string }) => item.nossoNumero,
        ),
      ).toEqual([boleto.nossoNumero]);
      expect((await listing(sim, headers, utcDay)).json.items).toEqual([]);
    } finally {
      await sim.stop();
    }
  });

  it("answers 400 for a missing or malformed day or page, and the manual's 401 for another beneficiary", async () => {
    const today = bankDay(Date.now());
    const missing = await bankCall(simulator, '/cobranca/boleto/v1/boletos/liquidados/dia?codigoBeneficiario=54321', {
      headers: collection,
    });
    expect(missing.status).toBe(400);
    expect(missing.json.mensagens[0].mensagem).toBe('Parâmetro(s) obrigatório(s): dia.');
    expect((await listing(simulator, collection, '2026-11-23')).json.mensagens[0]).toEqual({
      codigo: 'PARAMETRO_INVALIDO',
      mensagem: 'dia deve estar no formato DD/MM/AAAA.',
    });
    expect(
      (
        await bankCall(
          simulator,
          `/cobranca/boleto/v1/boletos/liquidados/dia?codigoBeneficiario=54321&dia=${encodeURIComponent(today)}&pagina=-1`,
          { headers: collection },
        )
      ).status,
    ).toBe(400);
    const other = await listing(simulator, collection, today, undefined, '11111');
    expect(other.status).toBe(401);
    expect(other.json.mensagens[0].mensagem).toBe('Código de beneficiário diferente do beneficiário do usuário');
  });
});
