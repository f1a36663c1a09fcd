/**
 * The simulated bank's data: accounts, boletos, payments, contracts, and the bodies it sends
 * (query answers and notifications), shaped as in cdk-bank-webhooks/docs/bank-api.md. Pure functions only.
 */
import { randomUUID } from 'node:crypto';
import { SAMPLE_PIX_KEYS } from '../contracts/sandbox';

/** Scopes of the payments API that allow the callback registration (spec 5.1): any one of them. */
export const PAYMENT_SCOPES = ['payments.pix.pagar', 'payments.boleto.pagar', 'payments.tributos.pagar'] as const;
/** Scopes the public payment clients ask for queries, one per kind (cdk-bank-webhooks/docs/bank-api.md). */
export const PAYMENT_QUERY_SCOPES = [
  'payments.pix.consultar',
  'payments.boleto.consultar',
  'payments.tributos.consultar',
] as const;
/** Every scope the payments token endpoint grants. */
export const ALL_PAYMENT_SCOPES: readonly string[] = [...PAYMENT_SCOPES, ...PAYMENT_QUERY_SCOPES];
/** The scope a query of one payment kind needs (`payments.<kind>.consultar`). */
export const paymentQueryScope = (kind: string): string => `payments.${kind}.consultar`;
/** Scope of the collection (boleto) API's password grant. */
export const COLLECTION_SCOPE = 'cobranca';
/** Values of a contract's `contratoStatus` and `urlStatus` (spec 2.1 and 3). */
export const CONTRACT_STATUSES = ['ATIVO', 'INATIVO', 'BLOQUEADO'] as const;
export type ContractStatus = (typeof CONTRACT_STATUSES)[number];

export const PAYMENT_KINDS = ['pix', 'boleto', 'tributos'] as const;
export type PaymentKind = (typeof PAYMENT_KINDS)[number];

/**
 * Payment statuses the simulator uses. The bank publishes no authoritative list (cdk-bank-webhooks/docs/bank-api.md):
 * RECEBIDO is seen right after creation; the others are this simulator's choice, and a consumer
 * should keep its own mapping configurable.
 */
export const PaymentStatus = {
  RECEIVED: 'RECEBIDO',
  SETTLED: 'EFETIVADO',
  REJECTED: 'REJEITADO',
  CANCELLED: 'CANCELADO',
  REVERSED: 'ESTORNADO',
} as const;

/**
 * A boleto's state in the simulator. The query writes a settled one as the manual does, with its
 * channel (`LIQUIDADO PIX`, see {@link situacaoText}); consumers match by prefix.
 */
export const BoletoSituacao = {
  OPEN: 'EM CARTEIRA',
  SETTLED: 'LIQUIDADO',
  CANCELLED: 'BAIXADO POR SOLICITACAO',
  REJECTED: 'REJEITADO',
} as const;

/** Digits of the bank's boleto id (`nossoNumero`): always nine, clients zero-pad (cdk-bank-webhooks/docs/bank-api.md). */
export const NOSSO_NUMERO_DIGITS = 9;
/** A whole number as the bank's nine-digit `nossoNumero`. */
export const nossoNumeroText = (n: number): string => String(n).padStart(NOSSO_NUMERO_DIGITS, '0');

/** Settlement channels: movimento `LIQUIDACAO_<channel>` (cdk-bank-webhooks/docs/bank-api.md). */
export const SETTLEMENT_CHANNELS = ['PIX', 'REDE', 'COMPE_H5', 'COMPE_H6', 'COMPE_H8', 'CARTORIO'] as const;
export type SettlementChannel = (typeof SETTLEMENT_CHANNELS)[number];

/**
 * The contract `eventos` value each boleto change is delivered under. Settlements and their
 * reversals (ESTORNO_LIQUIDACAO_*) both come under LIQUIDACAO, the one value seen in practice;
 * BAIXA and REJEICAO are this simulator's names for cancellations and rejections.
 */
export const BoletoEvento = { SETTLEMENT: 'LIQUIDACAO', CANCELLATION: 'BAIXA', REJECTION: 'REJEICAO' } as const;

/** One account holder ("associado") known to the simulated bank. */
export interface SimulatorAccount {
  /** Cooperative code (`cooperativa`, `x-cooperativa`, `agencia` in boleto events). */
  readonly cooperativa: string;
  /** Branch (`posto`). */
  readonly posto: string;
  /** Current account number (`x-conta`). */
  readonly conta: string;
  /** Holder's CPF/CNPJ digits (`x-documento`). */
  readonly documento: string;
  /** Beneficiary code for boleto collection (`codBeneficiario`, `beneficiario`). */
  readonly beneficiario: string;
  /** The account's Pix keys (DICT keys). @default none (a simulator with no account's keys uses {@link SAMPLE_PIX_KEYS}) */
  readonly pixKeys?: readonly string[];
}

/** The Pix keys of a simulator whose accounts name none: an EVP, an email, a phone and a CNPJ. */
export { SAMPLE_PIX_KEYS };

/** The Pix keys a simulator's provider holds: every account's, or the sample ones when no account names any. */
export function pixKeysOf(accounts: readonly SimulatorAccount[]): readonly string[] {
  const keys = accounts.flatMap((account) => account.pixKeys ?? []);
  return keys.length ? keys : SAMPLE_PIX_KEYS;
}

export interface Boleto {
  readonly nossoNumero: string;
  readonly cooperativa: string;
  readonly posto: string;
  readonly beneficiario: string;
  readonly seuNumero?: string;
  readonly idTituloEmpresa?: string;
  readonly valor: string;
  /** YYYY-MM-DD. */
  readonly dataVencimento: string;
  /** YYYY-MM-DD, the bank's day the boleto was made. */
  readonly dataEmissao: string;
  situacao: string;
  liquidacao?: { readonly data: number[]; readonly valor: string; readonly canal: SettlementChannel };
}

export interface Payment {
  readonly kind: PaymentKind;
  readonly idTransacao: string;
  readonly numericId: number;
  readonly conta: string;
  readonly cooperativa: string;
  readonly valor: string;
  readonly createdAt: number[];
  status: string;
  dataPagamento?: number[];
  motivoRejeicao?: string;
  readonly details: Readonly<Record<string, string>>;
}

export interface Contract {
  readonly idContrato: number;
  cooperativa: string;
  posto: string;
  codBeneficiario: string;
  eventos: string[];
  url: string;
  urlStatus: ContractStatus;
  contratoStatus: ContractStatus;
  nomeResponsavel?: string;
  email?: string;
  telefone?: string;
  enviarIdTituloEmpresa?: boolean;
  header?: string;
  token?: string;
}

export interface CallbackRegistration {
  urlCallback: string | null;
  authorizationCallback: string | null;
}

/** A date-time as the bank serialises it: [year, month, day, hour, minute, second, nanoseconds], UTC−3. */
export function bankDateTime(epochMs: number): number[] {
  const local = new Date(epochMs - 3 * 60 * 60 * 1000);
  return [
    local.getUTCFullYear(),
    local.getUTCMonth() + 1,
    local.getUTCDate(),
    local.getUTCHours(),
    local.getUTCMinutes(),
    local.getUTCSeconds(),
    local.getUTCMilliseconds() * 1_000_000,
  ];
}

/** A date as the bank serialises it: [year, month, day]. */
export function bankDate(isoDate: string): number[] {
  const [year, month, day] = isoDate.split('-').map(Number);
  return [year, month, day];
}

/** A money amount as a decimal string with two places ("250.75"), or undefined when not a positive amount. */
export function decimalAmount(value: unknown): string | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^\d{1,13}(\.\d{1,2})?$/.test(text)) return undefined;
  const amount = Number(text);
  return amount > 0 ? amount.toFixed(2) : undefined;
}

/** The manual's `situacao` of a boleto: a settled one names its channel (LIQUIDADO PIX, LIQUIDADO COMPE...). */
export function situacaoText(boleto: Boleto): string {
  if (boleto.situacao !== BoletoSituacao.SETTLED || !boleto.liquidacao) return boleto.situacao;
  const canal = boleto.liquidacao.canal;
  return `LIQUIDADO ${canal.startsWith('COMPE') ? 'COMPE' : canal}`;
}

/** The listing's `tipoLiquidacao` of a channel (the manual's domain: REDE, COMPE, PIX; a notary's settlement is listed as REDE). */
export function tipoLiquidacao(canal: SettlementChannel): string {
  return canal.startsWith('COMPE') ? 'COMPE' : canal === 'CARTORIO' ? 'REDE' : canal;
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/**
 * A bank-local date-time array as the query writes it, `YYYY-MM-DDTHH:mm:ss.SSSZ`: a true UTC
 * instant (`utc`), or the bank's local digits with a Z (`bank-local`).
 */
export function zuluText(local: readonly number[], meaning: 'utc' | 'bank-local'): string {
  const [y, m, d, h = 0, mi = 0, s = 0, ns = 0] = local;
  const localMs = Date.UTC(y, m - 1, d, h, mi, s, Math.floor(ns / 1_000_000));
  if (meaning === 'utc') return new Date(localMs + 3 * 3600_000).toISOString();
  return new Date(localMs).toISOString();
}

/** The date part of a date-time array as `YYYY-MM-DD`. */
export const isoDay = (date: readonly number[]): string => `${date[0]}-${pad2(date[1])}-${pad2(date[2])}`;

/**
 * The boleto query's answer as the manual writes it: a flat object. Values the simulator does not
 * keep (payer, barcode, fines) are invented and fixed per boleto.
 */
export function boletoQueryBodyFlat(
  boleto: Boleto,
  settlementTimestamp: 'utc' | 'bank-local',
): Record<string, unknown> {
  const barcode = `7569${boleto.nossoNumero}`.padEnd(44, '0');
  const liquidacao = boleto.liquidacao;
  return {
    linhaDigitavel: barcode.padEnd(47, '1'),
    codigoBarras: barcode,
    carteira: 'SIMPLES',
    seuNumero: boleto.seuNumero ?? '',
    nossoNumero: boleto.nossoNumero,
    pagador: { codigo: 'P-000042', documento: '98765432100', nome: 'PAGADOR EXEMPLO' },
    dataEmissao: boleto.dataEmissao,
    dataVencimento: boleto.dataVencimento,
    valorNominal: Number(boleto.valor),
    situacao: situacaoText(boleto),
    txId: `TX${boleto.nossoNumero}SIMULADO`,
    codigoQrCode: `00020101021226SIMULADO${boleto.nossoNumero}`,
    multa: 0,
    abatimento: 0,
    tipoJuros: 'ISENTO',
    juros: 0,
    diasProtesto: 0,
    validadeAposVencimento: 30,
    diasNegativacao: 0,
    tipoDesconto: 'ISENTO',
    descontoAntecipacao: 0,
    descontos: [],
    ...(liquidacao
      ? {
          dadosLiquidacao: {
            data: zuluText(liquidacao.data, settlementTimestamp),
            valor: Number(liquidacao.valor),
            multa: 0,
            abatimento: 0,
            juros: 0,
            desconto: 0,
          },
        }
      : {}),
  };
}

/** The boleto query's answer in this simulator's earlier, wrapped shape (`resultado`, `valor`, date arrays). */
export function boletoQueryBody(boleto: Boleto): unknown {
  return {
    resultado: {
      codigoBeneficiario: boleto.beneficiario,
      cooperativa: boleto.cooperativa,
      posto: boleto.posto,
      nossoNumero: boleto.nossoNumero,
      seuNumero: boleto.seuNumero ?? null,
      identificacaoBoletoEmpresa: boleto.idTituloEmpresa ?? null,
      valor: boleto.valor,
      dataVencimento: bankDate(boleto.dataVencimento),
      situacao: boleto.situacao,
      dadosLiquidacao: boleto.liquidacao ? { data: boleto.liquidacao.data, valor: boleto.liquidacao.valor } : null,
    },
  };
}

export interface BoletoEventInput {
  readonly movimento: string;
  readonly at: number[];
  readonly valor: string;
  readonly sendIdTituloEmpresa: boolean;
  readonly idEventoWebhook?: string;
}

/** One boleto event as the bank delivers it (fields of cdk-bank-webhooks/docs/bank-api.md). */
export function boletoEventBody(boleto: Boleto, input: BoletoEventInput): Record<string, unknown> {
  return {
    agencia: boleto.cooperativa,
    posto: boleto.posto,
    beneficiario: boleto.beneficiario,
    nossoNumero: boleto.nossoNumero,
    dataEvento: input.at,
    movimento: input.movimento,
    valorLiquidacao: input.valor,
    valorDesconto: '0',
    valorJuros: '0',
    valorMulta: '0',
    valorAbatimento: '0',
    carteira: 'CARTEIRA SIMPLES',
    dataPrevisaoPagamento: input.at.slice(0, 3),
    idEventoWebhook: input.idEventoWebhook ?? randomUUID().replace(/-/g, ''),
    ...(input.sendIdTituloEmpresa && boleto.idTituloEmpresa ? { idTituloEmpresa: boleto.idTituloEmpresa } : {}),
  };
}

/** A payment as the payment query answers it; a payment notification carries the same body. */
export function paymentBody(payment: Payment): Record<string, unknown> {
  const common = {
    idTransacao: payment.idTransacao,
    status: payment.status,
    valorPagamento: payment.valor,
    dataPagamento: payment.dataPagamento ?? null,
    dataCriacao: payment.createdAt,
    motivoRejeicao: payment.motivoRejeicao ?? null,
  };
  const d = payment.details;
  switch (payment.kind) {
    case 'pix':
      return {
        idPagamentoPix: payment.numericId,
        ...common,
        chavePix: d.chavePix,
        nomeBeneficiario: d.nomeBeneficiario,
        documentoBeneficiario: d.documentoBeneficiario,
        ispbBeneficiario: d.ispbBeneficiario,
        agenciaBeneficiario: d.agenciaBeneficiario,
        contaBeneficiario: d.contaBeneficiario,
        tipoContaBeneficiario: d.tipoContaBeneficiario,
        mensagemPix: d.mensagemPix ?? null,
        identificadorPagamentoAssociado: d.identificadorPagamentoAssociado ?? null,
        endToEnd: d.endToEnd,
      };
    case 'boleto':
      return {
        idPagamentoBoleto: payment.numericId,
        ...common,
        codigoBarras: d.codigoBarras,
        linhaDigitavel: d.linhaDigitavel,
        nomeBeneficiario: d.nomeBeneficiario,
        documentoBeneficiario: d.documentoBeneficiario,
      };
    case 'tributos':
      return {
        idPagamentoTributo: payment.numericId,
        ...common,
        codigoBarras: d.codigoBarras,
        tipoTributo: d.tipoTributo,
        nomeContribuinte: d.nomeContribuinte,
      };
  }
}

/** Default details of a new payment of each kind (a control request may override any). */
export function defaultPaymentDetails(kind: PaymentKind, idTransacao: string): Record<string, string> {
  const barcode =
    '75691' +
    idTransacao
      .replace(/[^0-9]/g, '')
      .padEnd(39, '7')
      .slice(0, 39);
  switch (kind) {
    case 'pix':
      return {
        chavePix: 'fornecedor@example.com',
        nomeBeneficiario: 'FORNECEDOR EXEMPLO LTDA',
        documentoBeneficiario: '11222333000181',
        ispbBeneficiario: '02038232',
        agenciaBeneficiario: '0001',
        contaBeneficiario: '123456',
        tipoContaBeneficiario: 'CORRENTE',
        endToEnd: `E02038232${Date.now()}${idTransacao.replace(/[^a-zA-Z0-9]/g, '').slice(0, 8)}`,
      };
    case 'boleto':
      return {
        codigoBarras: barcode,
        linhaDigitavel: barcode,
        nomeBeneficiario: 'FORNECEDOR EXEMPLO LTDA',
        documentoBeneficiario: '11222333000181',
      };
    case 'tributos':
      return { codigoBarras: '8' + barcode.slice(1), tipoTributo: 'DARF', nomeContribuinte: 'EMPRESA EXEMPLO SA' };
  }
}
