/**
 * The standard Pix API's records as the simulated provider holds them (the Central Bank's API Pix,
 * release 2.9.0; facts in cdk-bank-webhooks/docs/pix.md): webhooks per key, charges (`cob`, immediate; `cobv`, with
 * a due date), the Pix received and their refunds, and the rules their fields follow. The
 * standard's errors are RFC 7807 problems typed `https://pix.bcb.gov.br/api/v2/error/<Type>`.
 */
import { BankError } from '../errors';

export {
  CHARGE_TXID,
  END_TO_END_ID,
  MAX_PIX_KEY_LENGTH,
  PIX_AMOUNT,
  PIX_TXID,
  REFUND_ID,
  RefundNature,
  RefundStatus,
} from '../../contracts/pix';
import type { RefundNature, RefundStatus } from '../../contracts/pix';

/** A listing's page size: 100 unless asked, at most 1000. */
export const PIX_PAGE = { default: 100, max: 1000 } as const;
/** The provider's ISPB in the end-to-end ids it makes (this bank's, cdk-bank-webhooks/docs/pix.md). */
export const SIMULATOR_ISPB = '01181521';

/** The standard's scopes of the operations the simulator serves (a token asked for none gets all). */
export const PIX_SCOPES: readonly string[] = [
  'cob.read',
  'cob.write',
  'cobv.read',
  'cobv.write',
  'pix.read',
  'pix.write',
  'webhook.read',
  'webhook.write',
  // Pix Automático's reads and webhooks.
  'rec.read',
  'cobr.read',
  'webhookrec.read',
  'webhookrec.write',
  'webhookcobr.read',
  'webhookcobr.write',
];

export enum ChargeStatus {
  ACTIVE = 'ATIVA',
  CONCLUDED = 'CONCLUIDA',
  REMOVED_BY_RECEIVER = 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
  REMOVED_BY_PSP = 'REMOVIDA_PELO_PSP',
}

export type ChargeKind = 'cob' | 'cobv';

export interface PixWebhook {
  readonly webhookUrl: string;
  readonly chave: string;
  /** RFC 3339. */
  readonly criacao: string;
}

export interface PixRefund {
  readonly id: string;
  /** The return's own end-to-end id. */
  readonly rtrId: string;
  readonly valor: string;
  /** `ORIGINAL` or `RETIRADA` when the receiver asked; a `MED_*` nature when the provider made it unasked. */
  readonly natureza: RefundNature;
  readonly horario: { readonly solicitacao: string; readonly liquidacao?: string };
  readonly status: RefundStatus;
  readonly motivo?: string;
}

export interface PixReceived {
  readonly endToEndId: string;
  readonly txid?: string;
  readonly valor: string;
  /** The key paid; none for a Pix by the account's details (agência and conta), which no key ties. */
  readonly chave?: string;
  /** RFC 3339. */
  readonly horario: string;
  readonly infoPagador?: string;
  /** What the amount is made of (a charge's Pix): `original`, and `juros` or `desconto` when paid otherwise. */
  readonly componentesValor?: Readonly<Record<string, { readonly valor: string }>>;
  readonly devolucoes: readonly PixRefund[];
}

export interface PixCharge {
  readonly kind: ChargeKind;
  readonly txid: string;
  readonly revisao: number;
  readonly status: ChargeStatus;
  readonly chave: string;
  readonly valor: { readonly original: string };
  /** `criacao` always; `expiracao` (seconds) for a cob, `dataDeVencimento` (YYYY-MM-DD) for a cobv. */
  readonly calendario: {
    readonly criacao: string;
    readonly expiracao?: number;
    readonly dataDeVencimento?: string;
    readonly validadeAposVencimento?: number;
  };
  readonly solicitacaoPagador?: string;
  /** A `cobv`'s payer (the standard requires one), its receiver with its address, and its payload's location. */
  readonly devedor?: Readonly<Record<string, string>>;
  readonly recebedor?: Readonly<Record<string, string>>;
  readonly location?: string;
  /** The end-to-end ids of the Pix that paid it. */
  readonly pix: readonly string[];
}

/** One field a request got wrong, as the standard's problems list them. */
export interface PixViolation {
  readonly razao: string;
  readonly propriedade: string;
  readonly valor?: string;
}

/** The standard's error answer: an RFC 7807 problem. */
export function pixProblem(
  status: number,
  type: string,
  title: string,
  detail?: string,
  violacoes?: readonly PixViolation[],
): BankError {
  return new BankError(
    status,
    {
      type: `https://pix.bcb.gov.br/api/v2/error/${type}`,
      title,
      status,
      ...(detail ? { detail } : {}),
      ...(violacoes?.length ? { violacoes } : {}),
    },
    { 'content-type': 'application/problem+json' },
  );
}

/** RFC 3339 in UTC with milliseconds. */
export const rfc3339 = (epochMs: number): string => new Date(epochMs).toISOString();

/** Whether `text` is an RFC 3339 date-time with its offset (what `inicio` and `fim` must be). */
export function isRfc3339(text: string): boolean {
  return (
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/.test(text) &&
    Number.isFinite(Date.parse(text))
  );
}

/** Whether `text` is an https URL (what a webhook must be). */
function isHttpsUrl(text: string): boolean {
  try {
    return new URL(text).protocol === 'https:';
  } catch {
    return false;
  }
}

/** The standard's 404: nothing of this user's by that id. */
export const pixNotFound = (what: string): BankError => pixProblem(404, 'NaoEncontrado', 'Não encontrado', what);

/** A webhook request's `webhookUrl`, refused with the standard's problem unless it is an https URL. */
export function webhookUrlOf(body: unknown): string {
  const url = (body as { webhookUrl?: unknown } | undefined)?.webhookUrl;
  if (typeof url !== 'string' || !isHttpsUrl(url))
    throw pixProblem(400, 'WebhookOperacaoInvalida', 'Webhook inválido.', 'A requisição não respeita o schema.', [
      { razao: 'webhookUrl deve ser uma URL https', propriedade: 'webhookUrl' },
    ]);
  return url;
}
