/**
 * How the simulated provider reads a listing's query: its creation window (`inicio`, `fim`) and its
 * page (`paginacao.paginaAtual`, `paginacao.itensPorPagina`), refusing what the standard does not allow.
 */
import { isRfc3339, PIX_PAGE, pixProblem } from './pix-model';

/** A listing's page, as the standard answers it under `parametros.paginacao`. */
export interface PixPage {
  readonly paginaAtual: number;
  readonly itensPorPagina: number;
  readonly quantidadeDePaginas: number;
  readonly quantidadeTotalDeItens: number;
}

/** What a listing is asked for (`GET /pix`, `GET /cob`, `GET /cobv`, ...). */
export interface PixQuery {
  readonly inicio?: string;
  readonly fim?: string;
  readonly txid?: string;
  readonly txIdPresente?: string;
  readonly devolucaoPresente?: string;
  /** A charge listing's status (`GET /cob`, `GET /cobv`). */
  readonly status?: string;
  readonly paginaAtual?: string;
  readonly itensPorPagina?: string;
}

/** `inicio` and `fim` (RFC 3339; both required where `required`), and their echo. */
export function queryWindow(query: PixQuery, required: boolean) {
  const given = (name: 'inicio' | 'fim') => {
    const value = query[name];
    if (value === undefined) {
      if (required)
        throw pixProblem(400, 'ConsultaInvalida', 'Consulta inválida.', `${name} é obrigatório.`, [
          { razao: `${name} ausente`, propriedade: name },
        ]);
      return undefined;
    }
    if (!isRfc3339(value))
      throw pixProblem(400, 'ConsultaInvalida', 'Consulta inválida.', `${name} deve ser uma data-hora RFC 3339.`, [
        { razao: `${name} inválido`, propriedade: name, valor: value },
      ]);
    return Date.parse(value);
  };
  const from = given('inicio');
  const to = given('fim');
  if (from !== undefined && to !== undefined && from > to)
    throw pixProblem(400, 'ConsultaInvalida', 'Consulta inválida.', 'inicio é posterior a fim.');
  return {
    contains: (t: number) => (from === undefined || t >= from) && (to === undefined || t <= to),
    echo: {
      ...(query.inicio !== undefined ? { inicio: query.inicio } : {}),
      ...(query.fim !== undefined ? { fim: query.fim } : {}),
    },
  };
}

/** One page of `items`: pages count from 0; at most 1000 a page, 100 unless asked. */
export function pageOf<T>(items: readonly T[], query: PixQuery): { page: PixPage; items: T[] } {
  const number = (value: string | undefined, fallback: number, name: string, min: number, max: number) => {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max)
      throw pixProblem(
        400,
        'ConsultaInvalida',
        'Consulta inválida.',
        `paginacao.${name} deve ser um inteiro de ${min} a ${max}.`,
      );
    return n;
  };
  const itensPorPagina = number(query.itensPorPagina, PIX_PAGE.default, 'itensPorPagina', 1, PIX_PAGE.max);
  const paginaAtual = number(query.paginaAtual, 0, 'paginaAtual', 0, Number.MAX_SAFE_INTEGER);
  // An empty listing is one page (the schema's minimum), as a page past the last holds nothing.
  const quantidadeDePaginas = Math.max(1, Math.ceil(items.length / itensPorPagina));
  return {
    page: { paginaAtual, itensPorPagina, quantidadeDePaginas, quantidadeTotalDeItens: items.length },
    items: items.slice(paginaAtual * itensPorPagina, (paginaAtual + 1) * itensPorPagina),
  };
}
