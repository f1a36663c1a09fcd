/**
 * The settled-boletos listing of the simulated bank (`GET .../boletos/liquidados/dia`): a
 * beneficiary's boletos settled on one bank day, in the order they were settled, a page of them in
 * the shape the bank lists them (which is not its query's).
 */
import { type Boleto, tipoLiquidacao } from './model';

/** Orders two bank date-time arrays ([y, m, d, h, mi, s, ns]). */
function compareDateArrays(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff) return diff;
  }
  return 0;
}

/**
 * Page `index` (from 0, `size` a page) of the boletos of `beneficiario` settled on day
 * `[dd, mm, yyyy]`, and how many were settled that day.
 */
export function settledOnDay(
  boletos: Iterable<Boleto>,
  beneficiario: string,
  [dd, mm, yyyy]: readonly [number, number, number],
  index: number,
  size: number,
): { items: Record<string, unknown>[]; settledCount: number } {
  const settled = [...boletos]
    .filter((b) => b.beneficiario === beneficiario && b.situacao === 'LIQUIDADO' && b.liquidacao)
    .filter((b) => {
      const [y, m, d] = b.liquidacao!.data;
      return y === yyyy && m === mm && d === dd;
    })
    .sort(
      (a, b) => compareDateArrays(a.liquidacao!.data, b.liquidacao!.data) || a.nossoNumero.localeCompare(b.nossoNumero),
    );
  const items = settled.slice(index * size, (index + 1) * size).map((b) => ({
    cooperativa: b.cooperativa,
    codigoBeneficiario: b.beneficiario,
    cooperativaPostoBeneficiario: `${b.cooperativa}${b.posto}`,
    nossoNumero: b.nossoNumero,
    seuNumero: b.seuNumero ?? null,
    tipoCarteira: 'CARTEIRA_SIMPLES',
    dataPagamento: `${yyyy}-${String(mm).padStart(2, '0')}-${String(dd).padStart(2, '0')} 00:00:00.0`,
    valor: Number(b.valor),
    valorLiquidado: Number(b.liquidacao!.valor),
    jurosLiquido: 0,
    descontoLiquido: 0,
    multaLiquida: 0,
    abatimentoLiquido: 0,
    tipoLiquidacao: tipoLiquidacao(b.liquidacao!.canal),
  }));
  return { items, settledCount: settled.length };
}
