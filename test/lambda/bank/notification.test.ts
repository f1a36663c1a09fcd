import { ProcessorDefaults } from '../../../contracts/processor';
import { toCents } from '../../../lambda/bank/cooperative/answers';
import { classifyMovement, parseNotification } from '../../../lambda/bank/cooperative/notification';

const M = ProcessorDefaults.boletoMovements;
const parse = (route: 'boleto' | 'payments', body: unknown) =>
  parseNotification(route, Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), M);

const EVENT = {
  agencia: '0101',
  posto: '02',
  beneficiario: '54321',
  nossoNumero: '231004567',
  movimento: 'LIQUIDACAO_PIX',
  valorLiquidacao: '250.75',
  idEventoWebhook: 'ev-1',
  dataEvento: [2025, 6, 3, 14, 5, 9, 0],
};
const PIX = {
  idPagamentoPix: 77,
  idTransacao: 'tx-1',
  status: 'EFETIVADO',
  valorPagamento: '15.00',
  chavePix: 'a@b.c',
  endToEnd: 'E1',
};

describe('boleto events', () => {
  it('reads one object', () => {
    expect(parse('boleto', EVENT)).toEqual({
      items: [
        {
          kind: 'boleto-event',
          idEventoWebhook: 'ev-1',
          nossoNumero: '231004567',
          beneficiario: '54321',
          movimento: 'LIQUIDACAO_PIX',
          movement: 'settlement',
          valorLiquidacao: '250.75',
          raw: EVENT,
        },
      ],
      problems: [],
    });
  });

  it('reads an array, keeping the good events and naming the bad ones by index', () => {
    const result = parse('boleto', [
      EVENT,
      { ...EVENT, idEventoWebhook: '' },
      { ...EVENT, idEventoWebhook: 'ev-3', movimento: 'ESTORNO_LIQUIDACAO_REDE' },
    ]);
    expect(result.items.map((i) => i.kind === 'boleto-event' && [i.idEventoWebhook, i.movement])).toEqual([
      ['ev-1', 'settlement'],
      ['ev-3', 'reversal'],
    ]);
    expect(result.problems).toEqual(['boleto event 1: idEventoWebhook is missing']);
  });

  it.each([
    ['not JSON', 'nope', 'the boleto notification body is not JSON (4 bytes)'],
    ['an empty array', [], 'the boleto notification is an empty array'],
    ['a string', '"text"', 'boleto event is not a JSON object'],
    [
      'an unknown movimento',
      { ...EVENT, movimento: 'PROTESTO' },
      'boleto event: movimento "PROTESTO" is not a known settlement, reversal, write-off or rejection (configure boletoMovements to add it)',
    ],
    [
      'a settlement without an amount',
      { ...EVENT, valorLiquidacao: undefined },
      'boleto event: valorLiquidacao is missing from a settlement',
    ],
    [
      'an amount that is not one',
      { ...EVENT, valorLiquidacao: '12,50' },
      'boleto event: valorLiquidacao "12,50" is not an amount',
    ],
    ['nothing useful', {}, 'boleto event: idEventoWebhook is missing; nossoNumero is missing; movimento is missing'],
  ])('quarantines %s with the reason', (_name, body, problem) => {
    expect(parse('boleto', body)).toEqual({ items: [], problems: [problem] });
  });
});

describe('payments', () => {
  it.each([
    ['Pix', PIX, 'pix'],
    [
      'a paid boleto',
      { idPagamentoBoleto: 5, idTransacao: 'tx-2', status: 'RECEBIDO', valorPagamento: 10, linhaDigitavel: '7569' },
      'boleto',
    ],
    [
      'a tax payment',
      { idPagamentoTributo: 9, idTransacao: 'tx:3', status: 'REJEITADO', tipoTributo: 'DARF', codigoBarras: '8' },
      'tributos',
    ],
  ])('recognises %s', (_name, body, type) => {
    const [item] = parse('payments', body).items;
    expect(item).toMatchObject({ kind: 'payment', type, idTransacao: body.idTransacao, status: body.status });
  });

  it.each([
    ['an array', [PIX], 'a payment notification must be one JSON object'],
    [
      'no kind marker',
      { idTransacao: 'tx', status: 'EFETIVADO' },
      'payment notification: it is not recognisably a Pix, boleto or tax payment (expected idPagamentoPix, idPagamentoBoleto or idPagamentoTributo)',
    ],
    [
      'two kinds',
      { ...PIX, idPagamentoTributo: 1 },
      'payment notification: it looks like more than one payment kind (pix, tributos)',
    ],
    [
      'a bad id',
      { ...PIX, idTransacao: 'has space' },
      "payment notification: idTransacao does not match the bank's pattern [a-zA-Z0-9:-]{1,100}",
    ],
    [
      'no status and a bad amount',
      { ...PIX, status: ' ', valorPagamento: 'ten' },
      'payment notification: status is missing; valorPagamento "ten" is not an amount',
    ],
  ])('quarantines %s with the reason', (_name, body, problem) => {
    expect(parse('payments', body)).toEqual({ items: [], problems: [problem] });
  });
});

it('reads amounts as cents without floating-point drift', () => {
  expect(['250.75', '250.7', '250', 250.7, '0.10', '1.230', ' 9.99 '].map(toCents)).toEqual([
    25075, 25070, 25000, 25070, 10, 123, 999,
  ]);
  expect(['12,50', '1.234', '-1', '', 'NaN', null, 1e21, 0.1 + 0.2].map(toCents)).toEqual([
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
});

it('classifies reversals before settlements, whatever the case', () => {
  expect(classifyMovement('ESTORNO_LIQUIDACAO_REDE', M)).toBe('reversal');
  expect(classifyMovement('liquidacao_compe_h5', M)).toBe('settlement');
  expect(classifyMovement('AVISO_PAGAMENTO_COMPE', M)).toBe('settlement');
  expect(classifyMovement('BAIXA', M)).toBe('writeOff');
  expect(classifyMovement('PROTESTO', M)).toBeUndefined();
});
