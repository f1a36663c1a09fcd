/**
 * What the Pix events carry (Pix Received, Pix Refund, and Pix Automático's two): the Pix, its
 * charge and its refunds, a recurrence and a recurring charge, each only as the provider's query
 * under our credentials shows it. Part of the events' contract (contracts/events.ts re-exports
 * every name; the schemas are generated through it). jsii-safe: interfaces and string enums.
 */
import type { EventAmount } from './amount';
import type { RefundNature } from './pix';

/** Where the provider keeps a charge: `cob` (immediate) or `cobv` (with a due date). */
export enum PixChargeKind {
  COB = 'cob',
  COBV = 'cobv',
  /** A recurring charge of Pix Automático (`GET /cobr/{txid}`): it names an account, not a key. */
  COBR = 'cobr',
}

/** How a Pix paid a charge: which one, and what the provider shows of it. */
export interface PixCharge {
  /** The charge's txid (26 to 35 letters and digits). */
  readonly txid: string;
  /** Where the provider showed it. */
  readonly kind: PixChargeKind;
  /** The charge's status as the provider writes it (`CONCLUIDA`). */
  readonly status: string;
  /** `valor.original`. */
  readonly original: EventAmount;
}

/**
 * The parts of a Pix's amount (`componentesValor`), each present when the provider shows it:
 * `amount` = original + saque + troco + multa + juros - abatimento - desconto.
 */
export interface PixValueComponents {
  /** The charge's or the purchase's own amount. */
  readonly original?: EventAmount;
  /** Cash withdrawn (Pix Saque). */
  readonly saque?: EventAmount;
  /** Change given (Pix Troco). */
  readonly troco?: EventAmount;
  /** Interest of a charge paid late (`cobv`). */
  readonly juros?: EventAmount;
  /** A fine of a charge paid late (`cobv`). */
  readonly multa?: EventAmount;
  /** A rebate (`cobv`). */
  readonly abatimento?: EventAmount;
  /** A discount (`cobv`). */
  readonly desconto?: EventAmount;
}

/** A Pix received, as the provider's query shows it: only what the standard defines (no payer identity). */
export interface PixReceived {
  readonly endToEndId: string;
  /** The txid the payer's code carried: a charge's, or a static code's short one. */
  readonly txid?: string;
  /** The receiver's key it was paid to, when the provider says. */
  readonly chave?: string;
  readonly amount: EventAmount;
  /** When it was settled (RFC 3339, as the provider writes it; with `-03:00` appended when it wrote no zone). */
  readonly horario: string;
  /** Set when the provider wrote `horario` without a zone: it was read in Brasília's (America/Sao_Paulo). */
  readonly horarioZoneAssumed?: boolean;
  /** The parts of the amount, when the provider shows them (`componentesValor`). */
  readonly componentesValor?: PixValueComponents;
  /** The payer's free-text message (`infoPagador`). */
  readonly infoPagador?: string;
  /** The charge it paid (a txid of 26 to 35 characters), confirmed concluded with this Pix. */
  readonly charge?: PixCharge;
}

/** A refund of a Pix received, as the provider's query shows it. */
export interface PixRefund {
  /** The Pix it returns. */
  readonly endToEndId: string;
  /** The refund's id (`id`, ours when we asked for it). */
  readonly id: string;
  /** The return's end-to-end id (`rtrId`). */
  readonly rtrId?: string;
  readonly amount: EventAmount;
  /** `DEVOLVIDO` (returned) or `NAO_REALIZADO` (not done). */
  readonly status: string;
  /** When it reached that status (`horario.liquidacao`). */
  readonly settledAt?: string;
  /** The provider's words about it (`motivo`, at most 140 characters). */
  readonly motivo?: string;
  /**
   * Who made it and why (`natureza`; `ORIGINAL` when the provider names none, as the standard
   * says): `ORIGINAL` and `RETIRADA` are refunds the receiver asked for; `MED_OPERACIONAL`,
   * `MED_FRAUDE` and `MED_PIX_AUTOMATICO` are returns the provider made without being asked, under
   * the Central Bank's special return mechanism (MED). Left out only when the provider writes a
   * nature the standard does not define: `naturezaAsWritten` then holds it.
   */
  readonly natureza?: RefundNature;
  /** The nature as the provider wrote it, when the standard does not define it (at most 40 characters). */
  readonly naturezaAsWritten?: string;
  /** The refund's description (`descricao`, at most 140 characters), when given. */
  readonly descricao?: string;
}

/** How a recurrence or a recurring charge ended, when it was rejected or cancelled (`encerramento`). */
export interface PixRecurringEnding {
  /** `rejection` (`encerramento.rejeicao`) or `cancellation` (`encerramento.cancelamento`). */
  readonly kind: string;
  /** The standard's code, as written (such as `AP13`, `ACCT`). */
  readonly codigo?: string;
  /** Who cancelled (`solicitante`): `PSP_PAGADOR`, `USUARIO_PAGADOR`, `PSP_RECEBEDOR` or `USUARIO_RECEBEDOR`. */
  readonly solicitante?: string;
  /** The provider's words (at most 140 characters). */
  readonly descricao?: string;
}

/** A Pix Automático recurrence, as `GET /rec/{idRec}` shows it under our credentials. */
export interface PixRecurrence {
  readonly idRec: string;
  /** `CRIADA`, `APROVADA`, `REJEITADA`, `EXPIRADA` or `CANCELADA`. */
  readonly status: string;
  /** How it ended, when rejected or cancelled. */
  readonly ending?: PixRecurringEnding;
  /** How the payer authorized it (`ativacao.tipoJornada`). */
  readonly tipoJornada?: string;
  /** `NAO_PERMITE` or `PERMITE_3R_7D` (`politicaRetentativa`). */
  readonly politicaRetentativa?: string;
}

/** One attempt to settle a recurring charge: the Pix it is, by end-to-end id (money only in its Pix Received). */
export interface PixRecurringAttempt {
  readonly endToEndId: string;
  /** `SOLICITADA`, `AGENDADA`, `PAGA`, `CANCELADA`, `REJEITADA` or `EXPIRADA`. */
  readonly status: string;
  /** `AGND` (scheduled), `NTAG` (not scheduled) or `RIFL` (a retry). */
  readonly tipo?: string;
  /** The day it settles or settled (`dataLiquidacao`, as written). */
  readonly dataLiquidacao?: string;
  /** The rejection's code (`rejeicao.codigo`), when it failed. */
  readonly rejectionCode?: string;
  /** The rejection's words (at most 140 characters). */
  readonly rejectionDescription?: string;
}

/** A Pix Automático recurring charge, as `GET /cobr/{txid}` shows it under our credentials. */
export interface PixRecurringCharge {
  readonly txid: string;
  /** Its recurrence. */
  readonly idRec: string;
  /** `CRIADA`, `ATIVA`, `CONCLUIDA`, `EXPIRADA`, `REJEITADA` or `CANCELADA`. */
  readonly status: string;
  /** Its due date (`calendario.dataDeVencimento`). */
  readonly dueDate?: string;
  /** Its latest settlement attempt, when it has one. */
  readonly attempt?: PixRecurringAttempt;
  /** The end-to-end ids of the Pix that paid it: each published as Pix Received, the one event that carries money. */
  readonly paidBy?: string[];
  /** How it ended, when rejected or cancelled. */
  readonly ending?: PixRecurringEnding;
}
