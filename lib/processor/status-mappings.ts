/** Which boleto query `situacao` texts (matched by prefix, any case) mean what. Unset lists keep their defaults. */
export interface BoletoStatusMappingProps {
  /** @default ['LIQUIDADO'] */
  readonly settled?: string[];
  /** @default ['BAIXADO'] */
  readonly writtenOff?: string[];
  /** @default ['REJEITADO'] */
  readonly rejected?: string[];
  /** @default ['EM CARTEIRA', 'VENCIDO', 'A VENCER'] */
  readonly open?: string[];
}

/** Which boleto event `movimento` values (matched by prefix, any case) mean what. Unset lists keep their defaults. */
export interface BoletoMovementMappingProps {
  /** @default ['LIQUIDACAO', 'AVISO_PAGAMENTO'] */
  readonly settlement?: string[];
  /** Checked first, so `ESTORNO_LIQUIDACAO_...` is a reversal. @default ['ESTORNO'] */
  readonly reversal?: string[];
  /** @default ['BAIXA'] */
  readonly writeOff?: string[];
  /** @default ['REJEICAO'] */
  readonly rejection?: string[];
}

/** Which payment `status` values (matched exactly) mean what. Unset lists keep their defaults. */
export interface PaymentStatusMappingProps {
  /** @default ['EFETIVADO'] */
  readonly settled?: string[];
  /** @default ['RECEBIDO', 'AGENDADO', 'EM_PROCESSAMENTO'] */
  readonly pending?: string[];
  /** @default ['REJEITADO'] */
  readonly rejected?: string[];
  /** @default ['CANCELADO'] */
  readonly cancelled?: string[];
  /** @default ['ESTORNADO', 'DEVOLVIDO'] */
  readonly reversed?: string[];
}
