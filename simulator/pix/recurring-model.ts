/**
 * Pix Automático's records as the simulated provider holds them (the standard's API Pix 2.9.0): the
 * account's two webhooks (`webhookrec`, `webhookcobr`: one each per user, not per key), its
 * recurrences (`rec`) and recurring charges (`cobr`), each with its status history. Statuses and
 * codes are the contracts' (contracts/pix-recurring.ts).
 */
import type {
  ActivationJourney,
  AttemptKind,
  AttemptStatus,
  CancelledBy,
  Periodicity,
  RecStatus,
  RecurringChargeStatus,
  RetryPolicy,
  RecurringWebhookKind,
} from '../../contracts/pix-recurring';
import type { SimulatorAccount } from '../model';

export { RecurringWebhookKind } from '../../contracts/pix-recurring';

export interface RecurringWebhook {
  readonly webhookUrl: string;
  /** RFC 3339. */
  readonly criacao: string;
}

/** One entry of a status history (`atualizacao`): the status and when (RFC 3339). */
export interface StatusChange<S> {
  readonly status: S;
  readonly data: string;
}

/** Why a recurrence or a charge ended, when rejected or cancelled (`encerramento`). */
export type Ending =
  | { readonly rejeicao: { readonly codigo: string; readonly descricao: string } }
  | {
      readonly cancelamento: { readonly solicitante: CancelledBy; readonly codigo: string; readonly descricao: string };
    };

/** A person or a company (`cpf` or `cnpj`, and `nome`). */
export type Party = Readonly<{ nome: string } & ({ cpf: string } | { cnpj: string })>;

/** The account a recurrence pays into: its holder (a company) and its bank details. */
export interface RecurringReceiver {
  readonly cnpj: string;
  readonly nome: string;
  readonly agencia: string;
  readonly conta: string;
}

/** The CNPJ a recurrence names when the account's holder is a person (Pix Automático's receivers are companies). */
const SAMPLE_RECEIVER_CNPJ = '11222333000181';

/** The account an account's recurrences pay into: its holder's CNPJ (or a sample one), its branch and number. */
export function recurringReceiverOf(account: SimulatorAccount): RecurringReceiver {
  return {
    cnpj: account.documento.length === 14 ? account.documento : SAMPLE_RECEIVER_CNPJ,
    nome: 'Empresa Recebedora SA',
    agencia: account.cooperativa.slice(-4).padStart(4, '0'),
    conta: account.conta,
  };
}

/** What the receiver gives when it creates a recurrence (`POST /rec`); the rest is the simulator's choice. */
export interface NewRecurrence {
  /** A fixed amount. @default none (each charge says its own) */
  readonly valorRec?: string;
  /** @default MENSAL */
  readonly periodicidade?: Periodicity;
  /** @default NAO_PERMITE */
  readonly politicaRetentativa?: RetryPolicy;
  readonly contrato?: string;
  readonly devedor?: Party;
  readonly objeto?: string;
}

export interface Recurrence {
  readonly idRec: string;
  readonly vinculo: { readonly contrato: string; readonly devedor: Party; readonly objeto?: string };
  readonly calendario: {
    readonly dataInicial: string;
    readonly dataFinal?: string;
    readonly periodicidade: Periodicity;
  };
  readonly valor?: { readonly valorRec: string };
  readonly politicaRetentativa: RetryPolicy;
  readonly recebedor: { readonly cnpj: string; readonly nome: string; readonly ispbParticipante: string };
  readonly status: RecStatus;
  readonly atualizacao: readonly StatusChange<RecStatus>[];
  readonly encerramento?: Ending;
  readonly ativacao: { readonly tipoJornada: ActivationJourney };
}

/** One attempt to settle a recurring charge, under the end-to-end id its Pix will have. */
export interface Attempt {
  /** YYYY-MM-DD. */
  readonly dataLiquidacao: string;
  readonly tipo: AttemptKind;
  readonly status: AttemptStatus;
  readonly endToEndId: string;
  readonly atualizacao: readonly StatusChange<AttemptStatus>[];
  readonly rejeicao?: { readonly codigo: string; readonly descricao: string };
}

export interface RecurringCharge {
  readonly idRec: string;
  readonly txid: string;
  readonly status: RecurringChargeStatus;
  /** `criacao` and `dataDeVencimento`, both YYYY-MM-DD. */
  readonly calendario: { readonly criacao: string; readonly dataDeVencimento: string };
  readonly valor: { readonly original: string };
  readonly ajusteDiaUtil: boolean;
  readonly politicaRetentativa: RetryPolicy;
  readonly recebedor: { readonly agencia: string; readonly conta: string; readonly tipoConta: 'CORRENTE' };
  readonly devedor: Party;
  readonly atualizacao: readonly StatusChange<RecurringChargeStatus>[];
  readonly encerramento?: Ending;
  readonly tentativas: readonly Attempt[];
  /** The end-to-end ids of the Pix that paid it. */
  readonly pix: readonly string[];
}

/** Everything the recurring book holds, as plain JSON. */
export interface RecurringState {
  readonly webhooks: Partial<Record<RecurringWebhookKind, RecurringWebhook>>;
  readonly recs: readonly Recurrence[];
  readonly cobrs: readonly RecurringCharge[];
}

/** When a record was created: its history's first entry (what `GET /rec` and `GET /cobr` filter by). */
export const createdAt = (record: { readonly atualizacao: readonly { readonly data: string }[] }): number =>
  Date.parse(record.atualizacao[0].data);
