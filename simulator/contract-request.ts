/**
 * A boleto webhook contract as the simulated bank reads it from a `POST` or `PUT` of the collection
 * API's webhook contracts: every field checked as the bank checks it, every problem named in one
 * 400 (`DADOS_INVALIDOS`), in the bank's words.
 */
import { collectionError } from './errors';
import { isString } from './bank-common';
import { CONTRACT_STATUSES, type Contract, type ContractStatus } from './model';

/** The contract `body` asks for (its owner is checked against the caller's token by the book). */
export function contractOfRequest(body: unknown): Omit<Contract, 'idContrato'> {
  const input = (body && typeof body === 'object' && !Array.isArray(body) ? body : undefined) as
    Record<string, unknown> | undefined;
  if (!input)
    throw collectionError(
      400,
      'CORPO_INVALIDO',
      'O corpo da requisição deve ser um objeto JSON com os campos do contrato.',
    );
  const problems: string[] = [];
  for (const field of ['cooperativa', 'posto', 'codBeneficiario', 'url', 'urlStatus', 'contratoStatus']) {
    const value = input[field];
    if (value === undefined || value === null || value === '') problems.push(`${field} é obrigatório`);
    else if (!isString(value) && !(typeof value === 'number' && field !== 'url' && !field.endsWith('Status')))
      problems.push(`${field} deve ser texto`);
  }
  if (
    !Array.isArray(input.eventos) ||
    input.eventos.length === 0 ||
    !input.eventos.every((e) => isString(e) && e.trim())
  ) {
    problems.push('eventos é obrigatório: uma lista de eventos, por exemplo ["LIQUIDACAO"]');
  }
  for (const field of ['urlStatus', 'contratoStatus']) {
    if (isString(input[field]) && !(CONTRACT_STATUSES as readonly string[]).includes(input[field])) {
      problems.push(`${field} deve ser ATIVO, INATIVO ou BLOQUEADO`);
    }
  }
  if (isString(input.url) && input.url) {
    let url: URL | undefined;
    try {
      url = new URL(input.url);
    } catch {
      problems.push('url inválida');
    }
    if (url && url.protocol !== 'https:') problems.push('url deve usar HTTPS');
  }
  if (
    input.email !== undefined &&
    input.email !== null &&
    input.email !== '' &&
    !(isString(input.email) && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(input.email))
  ) {
    problems.push('email inválido');
  }
  if (
    input.telefone !== undefined &&
    input.telefone !== null &&
    input.telefone !== '' &&
    !(isString(input.telefone) && /^\+?[\d\s()-]{8,20}$/.test(input.telefone))
  ) {
    problems.push('telefone inválido');
  }
  if (
    input.enviarIdTituloEmpresa !== undefined &&
    input.enviarIdTituloEmpresa !== null &&
    typeof input.enviarIdTituloEmpresa !== 'boolean'
  ) {
    problems.push('enviarIdTituloEmpresa deve ser true ou false');
  }
  for (const field of ['nomeResponsavel', 'header', 'token']) {
    if (input[field] !== undefined && input[field] !== null && !isString(input[field]))
      problems.push(`${field} deve ser texto`);
  }
  if (problems.length) throw collectionError(400, 'DADOS_INVALIDOS', `Dados inválidos: ${problems.join('; ')}.`);
  return {
    cooperativa: String(input.cooperativa),
    posto: String(input.posto),
    codBeneficiario: String(input.codBeneficiario),
    eventos: (input.eventos as string[]).map((e) => e.trim()),
    url: input.url as string,
    urlStatus: input.urlStatus as ContractStatus,
    contratoStatus: input.contratoStatus as ContractStatus,
    nomeResponsavel: (input.nomeResponsavel as string | undefined) ?? undefined,
    email: (input.email as string | undefined) || undefined,
    telefone: (input.telefone as string | undefined) || undefined,
    enviarIdTituloEmpresa: (input.enviarIdTituloEmpresa as boolean | undefined) ?? undefined,
    header: (input.header as string | undefined) || undefined,
    token: (input.token as string | undefined) || undefined,
  };
}
