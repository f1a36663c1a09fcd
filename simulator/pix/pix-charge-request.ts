/**
 * A charge as the simulated provider makes it of a `PUT /cob/{txid}` or `PUT /cobv/{txid}`
 * request: its txid, amount, key and (for a due-date charge) due date checked as the standard
 * requires, each refusal the problem its type names.
 */
import {
  CHARGE_TXID,
  type ChargeKind,
  ChargeStatus,
  PIX_AMOUNT,
  type PixCharge,
  pixProblem,
  rfc3339,
} from './pix-model';

/** The problem type and title of a refused charge of `kind`. */
function refusal(kind: ChargeKind): { type: string; title: string } {
  return kind === 'cob'
    ? { type: 'CobOperacaoInvalida', title: 'Cobrança inválida.' }
    : { type: 'CobVOperacaoInvalida', title: 'Cobrança com vencimento inválida.' };
}

/** A charge of `kind` refused for `detail`. */
export function chargeRefused(kind: ChargeKind, detail: string): Error {
  const { type, title } = refusal(kind);
  return pixProblem(400, type, title, detail);
}

/**
 * The new charge `body` asks for (`ownKey` answers the account's key it names, or throws the
 * problem of the type and title given), created at `now`.
 */
export function chargeOfRequest(
  kind: ChargeKind,
  txid: string,
  body: unknown,
  now: number,
  ownKey: (chave: string, type: string, title: string) => string,
): PixCharge {
  const { type, title } = refusal(kind);
  if (!CHARGE_TXID.test(txid))
    throw pixProblem(400, type, title, 'O txid deve ter de 26 a 35 letras e dígitos.', [
      { razao: 'txid inválido', propriedade: 'txid', valor: txid },
    ]);
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const valor = (b.valor as { original?: unknown } | undefined)?.original;
  if (typeof valor !== 'string' || !PIX_AMOUNT.test(valor) || Number(valor) <= 0) {
    throw pixProblem(400, type, title, 'valor.original deve ser um valor positivo com duas casas decimais.', [
      { razao: 'valor inválido', propriedade: `${kind}.valor.original` },
    ]);
  }
  const chave = ownKey(typeof b.chave === 'string' ? b.chave : '', type, title);
  const calendario = (b.calendario && typeof b.calendario === 'object' ? b.calendario : {}) as Record<string, unknown>;
  const due = calendario.dataDeVencimento;
  if (kind === 'cobv' && (typeof due !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(due))) {
    throw pixProblem(400, type, title, 'calendario.dataDeVencimento (AAAA-MM-DD) é obrigatório.', [
      { razao: 'data de vencimento ausente', propriedade: 'cobv.calendario.dataDeVencimento' },
    ]);
  }
  return {
    kind,
    txid,
    revisao: 0,
    status: ChargeStatus.ACTIVE,
    chave,
    valor: { original: valor },
    calendario: {
      criacao: rfc3339(now),
      ...(kind === 'cob'
        ? { expiracao: Number(calendario.expiracao ?? 86_400) }
        : { dataDeVencimento: due as string, validadeAposVencimento: Number(calendario.validadeAposVencimento ?? 30) }),
    },
    ...(typeof b.solicitacaoPagador === 'string' ? { solicitacaoPagador: b.solicitacaoPagador.slice(0, 140) } : {}),
    // A due-date charge names its payer and its receiver with an address, and where its payload is (the standard's CobVGerada).
    ...(kind === 'cobv'
      ? {
          devedor: isPerson(b.devedor) ? b.devedor : SIMULATED_PAYER,
          recebedor: SIMULATED_RECEIVER,
          location: `pix.simulador.local/qr/v2/cobv/${txid.toLowerCase()}`,
        }
      : {}),
    pix: [],
  };
}

/** Who pays a due-date charge when its request names nobody, and the account holder it is paid to. */
const SIMULATED_PAYER: Readonly<Record<string, string>> = { cnpj: '12345678000195', nome: 'Pagador Simulado Ltda' };
const SIMULATED_RECEIVER: Readonly<Record<string, string>> = {
  cnpj: '12345678000199',
  nome: 'Recebedor Simulado Ltda',
  logradouro: 'Rua das Cooperativas, 100',
  cidade: 'Porto Alegre',
  uf: 'RS',
  cep: '90000000',
};

/** A payer as the standard writes one: a CPF's 11 digits or a CNPJ's 14 letters and digits, and a name. */
function isPerson(value: unknown): value is Record<string, string> {
  const p = value as Record<string, unknown> | undefined;
  return (
    !!p &&
    typeof p === 'object' &&
    typeof p.nome === 'string' &&
    p.nome.length > 0 &&
    p.nome.length <= 200 &&
    ((typeof p.cpf === 'string' && /^\d{11}$/.test(p.cpf)) ||
      (typeof p.cnpj === 'string' && /^[0-9A-Z]{14}$/.test(p.cnpj)))
  );
}
