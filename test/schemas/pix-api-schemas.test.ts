/**
 * The simulator's Pix answers, held field by field to schemas written from PIX-NOTES.md
 * (test/fixtures/pix-api/pix-api.schema.json), under the standard's readings and under every other
 * reading it can play; and the schemas mean what they say.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { type BankBehaviour } from '../../simulator/behaviour';
import { PixCallbackKey, PixEndToEndIdField, PixQueryTime, PixRefundsShape, PixWebhookKeyField, STANDARD_PIX_BEHAVIOUR } from '../../simulator/pix/pix-behaviour';
import { RefundStatus } from '../../simulator/pix/pix-model';
import { BankSimulator } from '../../simulator/simulator';
import { pixAuth, pixCall, pixPath, pixTokenCall, startPixPeers, stopPixPeers } from '../support/pix-session';
import { makeReceiverPki, type Target } from '../support/tls-targets';

const schema = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'pix-api', 'pix-api.schema.json'), 'utf8')) as { $id: string };
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
ajv.addSchema(schema);

/** The problems of `value` against one of the schema's definitions (empty when it conforms). */
function problems(def: string, value: unknown): string[] {
  const validate = ajv.getSchema(`${schema.$id}#/$defs/${def}`);
  if (!validate) throw new Error(`No definition ${def} in the Pix schema`);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`);
}

const ALTERNATE: Partial<BankBehaviour> = {
  pixWebhookKeyField: PixWebhookKeyField.CNPJ, pixRefundsShape: PixRefundsShape.OBJECT, pixEndToEndIdField: PixEndToEndIdField.END_TO_END_ID_UPPER,
  pixQueryTime: PixQueryTime.OBJECT, pixCallbackKey: PixCallbackKey.LEFT_OUT, pixWebhookPutStatus: 201,
};

let simulator: BankSimulator;
let target: Target;
const pki = makeReceiverPki();

beforeAll(async () => {
  ({ simulator, target } = await startPixPeers(pki));
});

afterAll(() => stopPixPeers({ simulator, target }));

describe.each([
  ['the standard\'s readings', STANDARD_PIX_BEHAVIOUR],
  ['every other reading', { ...STANDARD_PIX_BEHAVIOUR, ...ALTERNATE }],
])('under %s', (_name, behaviour) => {
  it('answers every route, and calls back, as the schemas say', async () => {
    await simulator.control.setBehaviour(behaviour);
    target.requests.length = 0;
    const [chave] = simulator.info.pixKeys;
    const token = await pixTokenCall(simulator);
    const auth = await pixAuth(simulator);
    const answers: Array<[string, string, unknown]> = [['token', 'POST /oauth/token', token.json]];
    const call = async (def: string, path: string, options: Parameters<typeof pixCall>[2] = {}) => {
      const answer = await pixCall(simulator, path, { headers: auth, ...options });
      answers.push([def, `${options.method ?? 'GET'} ${path} (${answer.status})`, answer.json]);
      return answer;
    };
    const key = encodeURIComponent(chave);
    expect((await pixCall(simulator, pixPath(`/webhook/${key}`), { method: 'PUT', headers: auth, body: { webhookUrl: `${target.url}/hook` } })).status).toBe(behaviour.pixWebhookPutStatus);
    await call('webhook', pixPath(`/webhook/${key}`));
    await call('webhookList', pixPath('/webhook'));
    const txid = `esquema${Date.now()}00000000000000000`.slice(0, 30);
    await call('charge', pixPath(`/cob/${txid}`), { method: 'PUT', body: { chave, valor: { original: '12.34' }, calendario: { expiracao: 3600 }, solicitacaoPagador: 'pedido 1' } });
    await call('charge', pixPath(`/cobv/${txid}v`), { method: 'PUT', body: { chave, valor: { original: '50.00' }, calendario: { dataDeVencimento: '2026-12-31' } } });
    const paid = await simulator.control.pix.payCharge(txid, { infoPagador: 'obrigado' });
    await call('charge', `/api/v3/cob/${txid}`);
    const { pix: [staticPix] } = await simulator.control.pix.payKey(chave, { valor: '3.00', txid: 'estatico' });
    await simulator.control.pix.refund(staticPix.endToEndId, { valor: '1.00', id: 'devA' });
    await simulator.control.pix.settleRefund(staticPix.endToEndId, 'devA', RefundStatus.RETURNED);
    await call('pix', pixPath(`/pix/${paid.pix[0].endToEndId}`));
    await call('pix', pixPath(`/pix/${staticPix.endToEndId}`));
    await call('refund', pixPath(`/pix/${staticPix.endToEndId}/devolucao/devA`));
    const inicio = new Date(Date.now() - 60_000).toISOString();
    await call('pixList', pixPath(`/pix?inicio=${inicio}&fim=${new Date(Date.now() + 60_000).toISOString()}&paginacao.itensPorPagina=1000`));
    await call('problem', pixPath('/webhook/naoexiste%40example.com'));
    await call('problem', pixPath('/cob/curto'), { method: 'PUT', body: { chave, valor: { original: '1.00' } } });
    await call('problem', pixPath(`/pix?inicio=${inicio}`));
    expect(await simulator.control.waitForDeliveries(10_000)).toBe(true);
    for (const request of target.requests) answers.push(['callback', `callback to ${request.path}`, JSON.parse(request.body)]);
    expect(target.requests.length).toBe(3);

    const found = answers.map(([def, what, body]) => ({ what, problems: problems(def, body) }));
    expect(found).toEqual(answers.map(([, what]) => ({ what, problems: [] })));
  });
});

describe('the schemas mean what they say', () => {
  const pix = { endToEndId: 'E01181521202611271200abcdefghijk', txid: 'abc', valor: '10.00', horario: '2026-11-27T12:00:00.000Z' };
  it.each<[string, string, unknown, RegExp]>([
    ['an amount with one decimal', 'pix', { ...pix, valor: '10.0' }, /\/valor must match pattern/],
    ['a Pix with no end-to-end id', 'pix', { valor: '1.00', horario: pix.horario }, /must match exactly one schema in oneOf/],
    ['a Pix with both spellings of it', 'pix', { ...pix, endToEndID: pix.endToEndId }, /must match exactly one schema in oneOf/],
    ['a field the standard does not have', 'pix', { ...pix, pagador: { nome: 'x' } }, /must NOT have additional properties/],
    ['a time without its offset', 'pix', { ...pix, horario: '2026-11-27T12:00:00' }, /\/horario must match/],
    ['a refund status of another API', 'refund', { id: 'd1', rtrId: 'D1', valor: '1.00', horario: { solicitacao: pix.horario }, status: 'PAGO' }, /\/status must be equal to one of the allowed values/],
    ['a charge status the standard does not know', 'charge', { calendario: { criacao: pix.horario }, txid: 'a'.repeat(26), revisao: 0, status: 'PAGA', valor: { original: '1.00' }, chave: 'k' }, /\/status must match pattern/],
    ['a charge txid of 25 characters', 'charge', { calendario: { criacao: pix.horario }, txid: 'a'.repeat(25), revisao: 0, status: 'ATIVA', valor: { original: '1.00' }, chave: 'k' }, /\/txid must match pattern/],
    ['a page of 1001', 'page', { paginaAtual: 0, itensPorPagina: 1001, quantidadeDePaginas: 1, quantidadeTotalDeItens: 1 }, /\/itensPorPagina must be <= 1000/],
    ['a callback with no pix array (the validation call)', 'callback', {}, /must have required property 'pix'/],
    ['a problem typed outside the standard', 'problem', { type: 'about:blank', title: 'x', status: 400 }, /\/type must match pattern/],
  ])('refuses %s', (_name, def, value, expected) => {
    expect(problems(def, value).join('; ')).toMatch(expected);
  });

  it('accepts the readings PIX-NOTES.md lists', () => {
    expect(problems('pix', { ...pix, horario: { solicitacao: pix.horario, liquidacao: pix.horario } })).toEqual([]);
    expect(problems('pix', { endToEndID: pix.endToEndId, valor: '1.00', horario: pix.horario, devolucoes: { id: 'd1', rtrId: 'D1', valor: '1.00', horario: { solicitacao: pix.horario }, status: 'DEVOLVIDO' } })).toEqual([]);
    expect(problems('pix', { ...pix, endToEndId: 'E0118152120261127abcdefghi' })).toEqual([]);
    expect(problems('charge', { calendario: { criacao: pix.horario }, txid: 'a'.repeat(26), revisao: 1, status: 'REMOVIDO_PELO_PSP', valor: { original: '1.00' }, chave: 'k' })).toEqual([]);
  });
});
