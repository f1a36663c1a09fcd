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
import { RefundStatus } from '../../../contracts/pix';
import { ChargeState, readCharge, readPix, readPixPage } from '../../../lambda/bank/pix/pix-answers';

const schema = JSON.parse(readFileSync(join(__dirname, '..', '..', 'fixtures', 'pix-api', 'pix-api.schema.json'), 'utf8')) as { $id: string };
const ajv = new Ajv2020({ strict: true, strictRequired: false });
ajv.addSchema(schema);
const conforms = (def: string, value: unknown) => ajv.getSchema(`${schema.$id}#/$defs/${def}`)!(value);

const T = '2026-11-27T12:00:00.000Z';
const E2E = 'E01181521202611271200abcdefghijk';
const refund = { id: 'd1', rtrId: 'D01181521202611271300abcdefghijk', valor: '2.00', horario: { solicitacao: T, liquidacao: '2026-11-28T09:00:00.000Z' }, status: 'DEVOLVIDO' };
const READ = { endToEndId: E2E, txid: 'abc', valor: '10.00', chave: 'pix@example.com', horario: T, refunds: [{ id: 'd1', rtrId: refund.rtrId, valor: '2.00', status: RefundStatus.RETURNED, requestedAt: T, settledAt: '2026-11-28T09:00:00.000Z', motivo: undefined }] };

it.each<[string, Record<string, unknown>]>([
  ['the standard\'s', { endToEndId: E2E, txid: 'abc', valor: '10.00', chave: 'pix@example.com', horario: T, devolucoes: [refund] }],
  ['endToEndID', { endToEndID: E2E, txid: 'abc', valor: '10.00', chave: 'pix@example.com', horario: T, devolucoes: [refund] }],
  ['horario as an object', { endToEndId: E2E, txid: 'abc', valor: '10.00', chave: 'pix@example.com', horario: { solicitacao: T, liquidacao: T }, devolucoes: [refund] }],
  ['one refund as an object', { endToEndId: E2E, txid: 'abc', valor: '10.00', chave: 'pix@example.com', horario: T, devolucoes: refund }],
])('reads a Pix written with %s reading, which the schema accepts, into one shape', (_name, pix) => {
  expect(conforms('pix', pix)).toBe(true);
  expect(readPix(pix, 'Pix query', 200)).toEqual(READ);
});

it('reads a Pix without chave (the standard\'s examples) and without refunds', () => {
  expect(readPix({ endToEndId: E2E, valor: '1.00', horario: T }, 'Pix query', 200)).toEqual({ endToEndId: E2E, txid: undefined, valor: '1.00', chave: undefined, horario: T, refunds: [] });
});

it.each<[string, Record<string, unknown>, RegExp]>([
  ['no end-to-end id', { valor: '1.00', horario: T }, /has no valid pix\.endToEndId/],
  ['an end-to-end id with a slash', { endToEndId: 'E0/1', valor: '1.00', horario: T }, /has no valid pix\.endToEndId/],
  ['an amount as a number', { endToEndId: E2E, valor: 1, horario: T }, /has no valid pix\.valor/],
  ['an amount with one decimal', { endToEndId: E2E, valor: '1.0', horario: T }, /has no valid pix\.valor/],
  ['no time', { endToEndId: E2E, valor: '1.00' }, /has no valid time at pix\.horario/],
  ['a refund of an unknown status', { endToEndId: E2E, valor: '1.00', horario: T, devolucoes: [{ ...refund, status: 'PAGO' }] }, /unknown refund status at pix\.devolucoes\[0\]\.status/],
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

it('reads a charge\'s status, the removals by prefix as the prose writes them both ways, and refuses an unknown one', () => {
  const charge = (status: string) => ({ calendario: { criacao: T }, txid: 'a'.repeat(26), revisao: 0, status, valor: { original: '5.00' }, chave: 'k', pix: [{ endToEndId: E2E, valor: '5.00', horario: T }] });
  expect(readCharge(charge('CONCLUIDA'), 'cob query', 200)).toMatchObject({ state: ChargeState.CONCLUDED, valorOriginal: '5.00', pix: [{ endToEndId: E2E }] });
  for (const status of ['REMOVIDA_PELO_PSP', 'REMOVIDO_PELO_USUARIO_RECEBEDOR']) {
    expect(conforms('charge', charge(status))).toBe(true);
    expect(readCharge(charge(status), 'cob query', 200)).toMatchObject({ state: ChargeState.REMOVED, status });
  }
  expect(conforms('charge', charge('PAGA'))).toBe(false);
  expect(() => readCharge(charge('PAGA'), 'cob query', 200)).toThrow(/unknown charge status \(PAGA\)/);
});

it('reads a listing\'s page and refuses one without its paging', () => {
  const page = { parametros: { inicio: T, fim: T, paginacao: { paginaAtual: 0, itensPorPagina: 1000, quantidadeDePaginas: 2, quantidadeTotalDeItens: 1001 } }, pix: [{ endToEndId: E2E, valor: '1.00', horario: T }] };
  expect(conforms('pixList', page)).toBe(true);
  expect(readPixPage(page, 'Pix listing', 200)).toMatchObject({ paginaAtual: 0, quantidadeDePaginas: 2, pix: [{ endToEndId: E2E }] });
  expect(() => readPixPage({ pix: [] }, 'Pix listing', 200)).toThrow(/has no object at parametros/);
});
