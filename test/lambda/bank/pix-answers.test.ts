/**
 * The Pix family's reading of the provider's answers, held to the same schemas the simulator is
 * (test/fixtures/pix-api/pix-api.schema.json): what the schema accepts, the reader reads into one
 * shape; what the standard requires and is missing or malformed, it refuses with the provider's
 * error, never a guess.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { BankApiError } from '../../../lambda/bank/errors';
import { RefundNature, RefundStatus } from '../../../contracts/pix';
import { ChargeState, readCharge, readChargePage, readPix, readPixPage } from '../../../lambda/bank/pix/answers';

const schema = JSON.parse(
  readFileSync(join(__dirname, '..', '..', 'fixtures', 'pix-api', 'pix-api.schema.json'), 'utf8'),
) as { $id: string };
const ajv = new Ajv2020({ strict: true, strictRequired: false });
ajv.addSchema(schema);
const conforms = (def: string, value: unknown) => ajv.getSchema(`${schema.$id}#/$defs/${def}`)!(value);

const T = '2026-11-27T12:00:00.000Z';
const E2E = 'E01181521202611271200abcdefghijk';
const refund = {
  id: 'd1',
  rtrId: 'D01181521202611271300abcdefghijk',
  valor: '2.00',
  horario: { solicitacao: T, liquidacao: '2026-11-28T09:00:00.000Z' },
  status: 'DEVOLVIDO',
};
const READ = {
  endToEndId: E2E,
  txid: 'abc',
  valor: '10.00',
  chave: 'pix@example.com',
  horario: T,
  refunds: [
    {
      id: 'd1',
      rtrId: refund.rtrId,
      valor: '2.00',
      status: RefundStatus.RETURNED,
      natureza: RefundNature.ORIGINAL,
      requestedAt: T,
      settledAt: '2026-11-28T09:00:00.000Z',
    },
  ],
};

it.each<[string, Record<string, unknown>]>([
  [
    "the standard's",
    { endToEndId: E2E, txid: 'abc', valor: '10.00', chave: 'pix@example.com', horario: T, devolucoes: [refund] },
  ],
  [
    'endToEndID',
    { endToEndID: E2E, txid: 'abc', valor: '10.00', chave: 'pix@example.com', horario: T, devolucoes: [refund] },
  ],
  [
    'horario as an object',
    {
      endToEndId: E2E,
      txid: 'abc',
      valor: '10.00',
      chave: 'pix@example.com',
      horario: { solicitacao: T, liquidacao: T },
      devolucoes: [refund],
    },
  ],
  [
    'one refund as an object',
    { endToEndId: E2E, txid: 'abc', valor: '10.00', chave: 'pix@example.com', horario: T, devolucoes: refund },
  ],
])('reads a Pix written with %s reading, which the schema accepts, into one shape', (_name, pix) => {
  expect(conforms('pix', pix)).toBe(true);
  expect(readPix(pix, 'Pix query', 200)).toEqual(READ);
});

it("reads a Pix without chave (the standard's examples) and without refunds", () => {
  expect(readPix({ endToEndId: E2E, valor: '1.00', horario: T }, 'Pix query', 200)).toEqual({
    endToEndId: E2E,
    txid: undefined,
    valor: '1.00',
    chave: undefined,
    horario: T,
    refunds: [],
  });
});

it('one refund that cannot be read (an unknown status) is left out and named; the Pix and its other refunds are read', () => {
  const pix = { endToEndId: E2E, valor: '10.00', horario: T, devolucoes: [{ ...refund, status: 'PAGO' }, refund] };
  expect(conforms('pix', pix)).toBe(false);
  const read = readPix(pix, 'Pix query', 200);
  expect(read.refunds.map((r) => r.id)).toEqual(['d1']);
  expect(read.unreadableRefunds).toEqual([
    expect.stringMatching(/^devolucoes\[0\]: .*unknown refund status at pix\.devolucoes\[0\]\.status \(PAGO\)/),
  ]);
});

it('a malformed optional detail of a refund is left out, never a reason to refuse it (a time that is no date, an rtrId with a slash)', () => {
  const read = readPix(
    {
      endToEndId: E2E,
      valor: '10.00',
      horario: T,
      devolucoes: [{ ...refund, rtrId: 'D0/1', horario: { solicitacao: '2026-20-01T10:00:00Z', liquidacao: T } }],
    },
    'Pix query',
    200,
  );
  expect(read.refunds).toEqual([
    { id: 'd1', valor: '2.00', status: RefundStatus.RETURNED, natureza: RefundNature.ORIGINAL, settledAt: T },
  ]);
});

it("reads a refund's nature: absent is ORIGINAL (the standard's rule), each MED nature as written, an undefined one kept apart", () => {
  const natureOf = (natureza: unknown) =>
    readPix(
      { endToEndId: E2E, valor: '10.00', horario: T, devolucoes: [{ ...refund, natureza, descricao: 'contestação' }] },
      'Pix query',
      200,
    ).refunds[0];
  expect(natureOf(undefined)).toMatchObject({ natureza: RefundNature.ORIGINAL, descricao: 'contestação' });
  for (const nature of Object.values(RefundNature)) expect(natureOf(nature)).toMatchObject({ natureza: nature });
  expect(natureOf('MED_NOVA')).toMatchObject({ naturezaAsWritten: 'MED_NOVA' });
  expect(natureOf('MED_NOVA').natureza).toBeUndefined();
  expect(natureOf('a nature of <script>').naturezaAsWritten).toBeUndefined();
});

it("reads componentesValor's well-formed parts (original, saque, troco, juros, multa, abatimento, desconto); a malformed one is left out", () => {
  const componentesValor = {
    original: { valor: '100.00' },
    multa: { valor: '3.00' },
    juros: { valor: '2.00' },
    desconto: { valor: '1' },
    troco: 'x',
  };
  expect(
    readPix({ endToEndId: E2E, valor: '105.00', horario: T, componentesValor }, 'Pix query', 200).componentesValor,
  ).toEqual({ original: '100.00', multa: '3.00', juros: '2.00' });
});

it.each<[string, Record<string, unknown>, RegExp]>([
  ['no end-to-end id', { valor: '1.00', horario: T }, /has no valid pix\.endToEndId/],
  ['an end-to-end id with a slash', { endToEndId: 'E0/1', valor: '1.00', horario: T }, /has no valid pix\.endToEndId/],
  ['an amount as a number', { endToEndId: E2E, valor: 1, horario: T }, /has no valid pix\.valor/],
  ['an amount with one decimal', { endToEndId: E2E, valor: '1.0', horario: T }, /has no valid pix\.valor/],
  ['no time', { endToEndId: E2E, valor: '1.00' }, /has no valid time at pix\.horario/],
])('refuses a Pix with %s, which the schema refuses too', (_name, pix, expected) => {
  expect(conforms('pix', pix)).toBe(false);
  let error: unknown;
  try {
    readPix(pix, 'Pix query (endToEndId x)', 200);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(BankApiError);
  expect((error as BankApiError).message).toMatch(expected);
});

it("reads a charge's status, the removals by prefix as the prose writes them both ways, and refuses an unknown one", () => {
  const charge = (status: string) => ({
    calendario: { criacao: T },
    txid: 'a'.repeat(26),
    revisao: 0,
    status,
    valor: { original: '5.00' },
    chave: 'k',
    pix: [{ endToEndId: E2E, valor: '5.00', horario: T }],
  });
  expect(readCharge(charge('CONCLUIDA'), 'cob query', 200)).toMatchObject({
    state: ChargeState.CONCLUDED,
    valorOriginal: '5.00',
    paidBy: [E2E],
  });
  for (const status of ['REMOVIDA_PELO_PSP', 'REMOVIDO_PELO_USUARIO_RECEBEDOR']) {
    expect(conforms('charge', charge(status))).toBe(true);
    expect(readCharge(charge(status), 'cob query', 200)).toMatchObject({ state: ChargeState.REMOVED, status });
  }
  expect(conforms('charge', charge('PAGA'))).toBe(false);
  expect(() => readCharge(charge('PAGA'), 'cob query', 200)).toThrow(/unknown charge status \(PAGA\)/);
});

it("reads a listing's page and refuses one without its paging", () => {
  const page = {
    parametros: {
      inicio: T,
      fim: T,
      paginacao: { paginaAtual: 0, itensPorPagina: 1000, quantidadeDePaginas: 2, quantidadeTotalDeItens: 1001 },
    },
    pix: [{ endToEndId: E2E, valor: '1.00', horario: T }],
  };
  expect(conforms('pixList', page)).toBe(true);
  expect(readPixPage(page, 'Pix listing', 200)).toMatchObject({
    paginaAtual: 0,
    quantidadeDePaginas: 2,
    pix: [{ endToEndId: E2E }],
  });
  expect(() => readPixPage({ pix: [] }, 'Pix listing', 200)).toThrow(/has no object at parametros/);
});

it("a listing's page without a pix array is an empty page, not a failed day (the standard's schema requires `cobs` there, never `pix`)", () => {
  const page = {
    parametros: {
      inicio: T,
      fim: T,
      paginacao: { paginaAtual: 0, itensPorPagina: 100, quantidadeDePaginas: 1, quantidadeTotalDeItens: 0 },
    },
  };
  expect(readPixPage(page, 'Pix listing', 200)).toEqual({ pix: [], paginaAtual: 0, quantidadeDePaginas: 1 });
  expect(() => readPixPage({ ...page, pix: {} }, 'Pix listing', 200)).toThrow(/has pix that is not a list/);
});

it("a charge listing's page (GET /cob, GET /cobv) reads each charge as its query does; without cobs it is an empty page", () => {
  const paging = { paginaAtual: 1, itensPorPagina: 1000, quantidadeDePaginas: 2, quantidadeTotalDeItens: 1001 };
  const charge = {
    calendario: { criacao: T, expiracao: 3600 },
    txid: 'cob00000000000000000000000000001',
    revisao: 0,
    status: 'CONCLUIDA',
    valor: { original: '10.00' },
    chave: 'pix@example.com',
    pix: [{ endToEndId: E2E, valor: '10.00', horario: T }],
  };
  expect(
    readChargePage({ parametros: { inicio: T, fim: T, paginacao: paging }, cobs: [charge] }, 'cob listing', 200),
  ).toMatchObject({
    paginaAtual: 1,
    quantidadeDePaginas: 2,
    cobs: [{ txid: charge.txid, state: ChargeState.CONCLUDED, paidBy: [E2E] }],
  });
  expect(readChargePage({ parametros: { inicio: T, fim: T, paginacao: paging } }, 'cob listing', 200).cobs).toEqual([]);
  expect(() =>
    readChargePage({ parametros: { paginacao: paging }, cobs: [{ ...charge, status: 'PAGA' }] }, 'cob listing', 200),
  ).toThrow(/unknown charge status/);
});

it('a charge whose answer leaves its optional pix list out is read without one (paidBy undefined), apart from an empty list', () => {
  const charge = {
    calendario: { criacao: T },
    txid: 'a'.repeat(26),
    revisao: 0,
    status: 'CONCLUIDA',
    valor: { original: '5.00' },
    chave: 'k',
  };
  expect(readCharge(charge, 'cob query', 200).paidBy).toBeUndefined();
  expect(readCharge({ ...charge, pix: [] }, 'cob query', 200).paidBy).toEqual([]);
});

it("reads a recurring charge's statuses (cobr): CRIADA and ATIVA wait, EXPIRADA, REJEITADA and CANCELADA are closed", () => {
  const cobr = (status: string) =>
    readCharge(
      {
        idRec: 'RR0118152120261127abcdefghijk',
        txid: 'b'.repeat(30),
        status,
        valor: { original: '9.90' },
        calendario: { criacao: '2026-11-01', dataDeVencimento: '2026-11-27' },
      },
      'cobr query',
      200,
    );
  expect([cobr('CRIADA').state, cobr('ATIVA').state, cobr('CONCLUIDA').state]).toEqual([
    ChargeState.ACTIVE,
    ChargeState.ACTIVE,
    ChargeState.CONCLUDED,
  ]);
  expect(['EXPIRADA', 'REJEITADA', 'CANCELADA'].map((s) => cobr(s).state)).toEqual([
    ChargeState.REMOVED,
    ChargeState.REMOVED,
    ChargeState.REMOVED,
  ]);
});
