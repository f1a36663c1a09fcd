import { bankErrorMessage, BankApiError, isRetryableStatus } from '../../../lambda/bank/errors';

describe('bankErrorMessage reads every error shape of BANK-NOTES.md', () => {
  it.each([
    [
      'OAuth',
      { error: 'invalid_grant', error_description: 'Credenciais inválidas' },
      'invalid_grant: Credenciais inválidas',
    ],
    ['gateway message', { message: 'Limit Exceeded' }, 'Limit Exceeded'],
    ['mensagem', { mensagem: 'Serviço indisponível' }, 'Serviço indisponível'],
    [
      'mensagens[]',
      {
        mensagens: [
          { codigo: 'E1', mensagem: 'Primeiro' },
          { codigo: 'E2', mensagem: 'Segundo' },
        ],
      },
      'E1: Primeiro; E2: Segundo',
    ],
    [
      'erros[]',
      { erros: [{ codigo: 'PAGAMENTO_NAO_ENCONTRADO', mensagem: 'Pagamento não encontrado.' }] },
      'PAGAMENTO_NAO_ENCONTRADO: Pagamento não encontrado.',
    ],
    [
      'errors[] of fields',
      { errors: [{ field: 'urlCallback', message: 'must be https' }] },
      'urlCallback: must be https',
    ],
    ['a list of strings', { errors: ['first', 'second'] }, 'first; second'],
    ['a top-level array', [{ mensagem: 'só isso' }], 'só isso'],
    ['error alone', { error: 'unauthorized' }, 'unauthorized'],
    [
      'a message with a list',
      { message: 'Validation failed', errors: [{ field: 'x', message: 'bad' }] },
      'Validation failed; x: bad',
    ],
    [
      'a Pix API problem (RFC 7807)',
      {
        type: 'https://pix.bcb.gov.br/api/v2/error/NaoEncontrado',
        title: 'Não encontrado',
        status: 404,
        detail: 'Nenhum Pix.',
      },
      'Nenhum Pix.',
    ],
    [
      'a Pix API problem with violations',
      {
        type: 'https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida',
        title: 'Cobrança inválida.',
        status: 400,
        detail: 'O txid é inválido.',
        violacoes: [{ razao: 'txid inválido', propriedade: 'txid' }],
      },
      'O txid é inválido.; txid: txid inválido',
    ],
  ])('%s', (_shape, body, expected) => {
    expect(bankErrorMessage(JSON.stringify(body))).toBe(expected);
  });

  it('reads plain text and HTML, trimmed', () => {
    expect(bankErrorMessage('<html><body><h1>502 Bad Gateway</h1></body></html>')).toBe('502 Bad Gateway');
    expect(bankErrorMessage('  upstream timeout\n')).toBe('upstream timeout');
  });

  it('says nothing for an empty body or one without a message', () => {
    expect(bankErrorMessage('')).toBeUndefined();
    expect(bankErrorMessage('{}')).toBeUndefined();
    expect(bankErrorMessage('{"erros": []}')).toBeUndefined();
  });

  it('caps a very long message', () => {
    expect(bankErrorMessage(JSON.stringify({ mensagem: 'x'.repeat(5000) }))).toHaveLength(500);
  });
});

it('builds an error message naming the operation, the status and the attempts', () => {
  expect(new BankApiError('boleto query', 503, 'Serviço indisponível', true, 3).message).toBe(
    'boleto query failed with HTTP 503: Serviço indisponível (after 3 attempts)',
  );
  expect(new BankApiError('payments token request', undefined, 'ECONNRESET: socket hang up', true).message).toBe(
    'payments token request failed: ECONNRESET: socket hang up',
  );
});

it('retries 408, 429 and 5xx only', () => {
  expect([400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503, 504].filter(isRetryableStatus)).toEqual([
    408, 429, 500, 502, 503, 504,
  ]);
});
