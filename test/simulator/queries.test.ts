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
  bankCall(simulator, `/cobranca/boleto/v1/boletos?codigoBeneficiario=${beneficiario}&nossoNumero=${nossoNumero}`, { headers: collection });
const paymentQuery = (kind: string, id: string, headers = payments) => bankCall(simulator, `/pagamentos/v1/pagamentos/${kind}/${id}`, { headers });
const DATE_TIME = [expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number)];

describe('boleto query (GET /cobranca/boleto/v1/boletos)', () => {
  it('follows the boleto through settlement and reversal, with decimal strings and date arrays', async () => {
    const boleto = await simulator.control.createBoleto({ valor: 250.75, seuNumero: 'INV-1', dataVencimento: '2026-12-10' });
    const open = await boletoQuery(boleto.nossoNumero);
    expect(open.status).toBe(200);
    expect(open.json.resultado).toEqual(expect.objectContaining({
      nossoNumero: boleto.nossoNumero, codigoBeneficiario: '54321', valor: '250.75', dataVencimento: [2026, 12, 10], situacao: 'EM CARTEIRA', dadosLiquidacao: null,
    }));
    await simulator.control.settleBoleto(boleto.nossoNumero, { canal: 'REDE', valor: '250.70' });
    const settled = (await boletoQuery(boleto.nossoNumero)).json.resultado;
    expect(settled.situacao).toBe('LIQUIDADO');
    expect(settled.dadosLiquidacao).toEqual({ data: DATE_TIME, valor: '250.70' });
    await simulator.control.reverseBoleto(boleto.nossoNumero);
    expect((await boletoQuery(boleto.nossoNumero)).json.resultado).toEqual(expect.objectContaining({ situacao: 'EM CARTEIRA', dadosLiquidacao: null }));
  });

  it('shows cancelled and rejected boletos', async () => {
    const a = await simulator.control.createBoleto({ valor: '10' });
    const b = await simulator.control.createBoleto({ valor: '10' });
    await simulator.control.cancelBoleto(a.nossoNumero);
    await simulator.control.rejectBoleto(b.nossoNumero);
    expect((await boletoQuery(a.nossoNumero)).json.resultado.situacao).toBe('BAIXADO');
    expect((await boletoQuery(b.nossoNumero)).json.resultado.situacao).toBe('REJEITADO');
  });

  it('answers 404 for an unknown boleto or the wrong beneficiary, 403 for a boleto the token may not see, 400 without the parameters', async () => {
    const boleto = await simulator.control.createBoleto({ valor: '10' });
    expect((await boletoQuery('999')).json).toEqual({ mensagens: [{ codigo: 'BOLETO_NAO_ENCONTRADO', mensagem: 'Boleto não encontrado.' }] });
    expect((await boletoQuery(boleto.nossoNumero, '11111')).status).toBe(404);
    const othersBoleto = await simulator.control.createBoleto({ valor: '10', beneficiario: '11111' });
    const forbidden = await boletoQuery(othersBoleto.nossoNumero, '11111');
    expect(forbidden.status).toBe(403);
    expect(forbidden.json.mensagens[0].codigo).toBe('BENEFICIARIO_NAO_AUTORIZADO');
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
    expect(received.json).toEqual(expect.objectContaining({
      idPagamentoPix: expect.any(Number), idTransacao: created.payment.idTransacao, status: 'RECEBIDO', valorPagamento: '99.90',
      dataPagamento: null, chavePix: expect.any(String), nomeBeneficiario: expect.any(String), documentoBeneficiario: expect.any(String),
      ispbBeneficiario: expect.any(String), agenciaBeneficiario: expect.any(String), contaBeneficiario: expect.any(String),
      tipoContaBeneficiario: expect.any(String), endToEnd: expect.stringMatching(/^E/), motivoRejeicao: null,
    }));
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
    expect(answer.json).toEqual(expect.objectContaining({ [idField]: expect.any(Number), status: 'REJEITADO', valorPagamento: '1500.00', motivoRejeicao: 'Conta encerrada', ...fields }));
  });

  it('answers 404 for an unknown id and for another kind; 400 for a malformed id', async () => {
    const created = await simulator.control.createPayment({ tipo: 'pix', valor: '1' });
    expect((await paymentQuery('pix', 'does-not-exist')).json).toEqual({ erros: [{ codigo: 'PAGAMENTO_NAO_ENCONTRADO', mensagem: 'Pagamento does-not-exist não encontrado.' }] });
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
    expect(answer.json).toEqual({ message: 'Too Many Requests' });
  });

  it('answers slowly', async () => {
    await simulator.control.setFaults({ api: [{ scope: 'query', delayMs: 300 }] });
    const answer = await paymentQuery('pix', 'anything');
    expect(answer.status).toBe(404);
    expect(answer.durationMs).toBeGreaterThanOrEqual(290);
  });

  it('rate-limits like the bank, and only the part named', async () => {
    await simulator.control.setFaults({ rateLimitPerSecond: { query: 3 } });
    const statuses = (await Promise.all(Array.from({ length: 8 }, () => paymentQuery('pix', 'anything')))).map((answer) => answer.status);
    expect(statuses.filter((status) => status === 404).length).toBeGreaterThanOrEqual(3);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(2);
    expect((await bankCall(simulator, '/pagamentos/v1/associado/webhook', { headers: payments })).status).toBe(200);
  });

  it('refuses invalid faults with every problem named', async () => {
    await expect(simulator.control.setFaults({ api: [{ scope: 'queries' as never, status: 404 }], duplicateDeliveries: -1, bogus: 1 } as never))
      .rejects.toThrow(/unknown fault "bogus".*duplicateDeliveries must be a whole number >= 0.*api\[0\]\.scope must be one of.*api\[0\]\.status must be 429 or 5xx/);
    expect(await bankCall(simulator, '/control/faults')).toEqual(expect.objectContaining({ json: {} }));
  });
});

describe('control API errors', () => {
  it('refuses impossible transitions and bad input, saying what was wrong', async () => {
    const boleto = await simulator.control.createBoleto({ valor: '10' });
    await expect(simulator.control.reverseBoleto(boleto.nossoNumero)).rejects.toThrow(/Cannot reverse boleto \d+: its situacao is EM CARTEIRA, not LIQUIDADO/);
    await expect(simulator.control.settleBoleto(boleto.nossoNumero, { canal: 'BITCOIN' as never })).rejects.toThrow(/canal must be one of PIX, REDE/);
    await expect(simulator.control.createBoleto({ valor: '-5' })).rejects.toThrow(/valor must be a positive amount/);
    await expect(simulator.control.createBoleto({ valor: '5', seuNumero: 42 as never, posto: {} as never })).rejects.toThrow('posto, seuNumero must be text.');
    await expect(simulator.control.createPayment({ tipo: 'ted' as never, valor: '1' })).rejects.toThrow(/tipo must be one of pix, boleto, tributos/);
    await expect(simulator.control.getBoleto('nope')).rejects.toMatchObject({ status: 404 });
    const payment = await simulator.control.createPayment({ tipo: 'pix', valor: '1' });
    await simulator.control.settlePayment('pix', payment.payment.idTransacao);
    await expect(simulator.control.rejectPayment('pix', payment.payment.idTransacao)).rejects.toMatchObject({ status: 409 });
    expect((await simulator.control.getBoleto(boleto.nossoNumero)).situacao).toBe('EM CARTEIRA');
  });
});

describe('settled boletos by day (GET /cobranca/boleto/v1/boletos/liquidados/dia)', () => {
  /** The bank's day (America/Sao_Paulo, UTC−3) of an instant, as DD/MM/YYYY. */
  const bankDay = (epochMs: number) => {
    const local = new Date(epochMs - 3 * 3600_000);
    return `${String(local.getUTCDate()).padStart(2, '0')}/${String(local.getUTCMonth() + 1).padStart(2, '0')}/${local.getUTCFullYear()}`;
  };
  const listing = (sim: BankSimulator, headers: Record<string, string>, dia: string, pagina?: number, beneficiario = sim.accounts[0].beneficiario) =>
    bankCall(sim, `/cobranca/boleto/v1/boletos/liquidados/dia?codigoBeneficiario=${beneficiario}&dia=${encodeURIComponent(dia)}${pagina ? `&pagina=${pagina}` : ''}`, { headers });

  it('lists the day\'s settlements in the order they happened, 50 a page, in the listing\'s own formats; a reversed one drops out', async () => {
    const sim = await BankSimulator.start();
    try {
      const headers = await collectionHeaders(sim);
      const settled: string[] = [];
      for (let i = 0; i < 55; i++) {
        const boleto = await sim.control.createBoleto({ valor: `${100 + i}.50`, seuNumero: `INV-${i}` });
        await sim.control.settleBoleto(boleto.nossoNumero, { canal: 'PIX' });
        settled.push(boleto.nossoNumero);
      }
      await sim.control.createBoleto({ valor: '10' }); // open: not listed
      const today = bankDay(Date.now());
      const first = await listing(sim, headers, today);
      expect(first.status).toBe(200);
      expect(first.json.hasNext).toBe(true);
      expect(first.json.items).toHaveLength(50);
      const [yyyy, mm, dd] = [today.slice(6), today.slice(3, 5), today.slice(0, 2)];
      expect(first.json.items[0]).toEqual({
        cooperativa: sim.accounts[0].cooperativa, codigoBeneficiario: sim.accounts[0].beneficiario, cooperativaPostoBeneficiario: sim.accounts[0].cooperativa + sim.accounts[0].posto,
        nossoNumero: settled[0], seuNumero: 'INV-0', tipoCarteira: 'SIMPLES', dataPagamento: `${yyyy}-${mm}-${dd} 00:00:00.0`,
        valor: 100.5, valorLiquidado: 100.5, jurosLiquido: 0, descontoLiquido: 0, multaLiquida: 0, abatimentoLiquido: 0, tipoLiquidacao: 'PIX',
      });
      const second = await listing(sim, headers, today, 2);
      expect(second.json.hasNext).toBe(false);
      expect([...first.json.items, ...second.json.items].map((item: { nossoNumero: string }) => item.nossoNumero)).toEqual(settled);

      await sim.control.reverseBoleto(settled[3]);
      const again = await listing(sim, headers, today);
      expect(again.json.items.map((item: { nossoNumero: string }) => item.nossoNumero)).not.toContain(settled[3]);
      expect((await listing(sim, headers, '01/01/2020')).json).toEqual({ items: [], hasNext: false });
    } finally {
      await sim.stop();
    }
  });

  it('puts a settlement at 22:30 in São Paulo (01:30 UTC the next day) on the bank\'s day', async () => {
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
      expect((await listing(sim, headers, bankDay(target.getTime()))).json.items.map((item: { nossoNumero: string }) => item.nossoNumero)).toEqual([boleto.nossoNumero]);
      expect((await listing(sim, headers, utcDay)).json.items).toEqual([]);
    } finally {
      await sim.stop();
    }
  });

  it('answers 400 for a missing or malformed day or page, and 403 for another beneficiary', async () => {
    const today = bankDay(Date.now());
    const missing = await bankCall(simulator, '/cobranca/boleto/v1/boletos/liquidados/dia?codigoBeneficiario=54321', { headers: collection });
    expect(missing.status).toBe(400);
    expect(missing.json.mensagens[0].mensagem).toBe('Parâmetro(s) obrigatório(s): dia.');
    expect((await listing(simulator, collection, '2026-11-23')).json.mensagens[0]).toEqual({ codigo: 'PARAMETRO_INVALIDO', mensagem: 'dia deve estar no formato DD/MM/AAAA.' });
    expect((await bankCall(simulator, `/cobranca/boleto/v1/boletos/liquidados/dia?codigoBeneficiario=54321&dia=${encodeURIComponent(today)}&pagina=-1`, { headers: collection })).status).toBe(400);
    const forbidden = await listing(simulator, collection, today, undefined, '11111');
    expect(forbidden.status).toBe(403);
  });
});
