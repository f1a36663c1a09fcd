/**
 * The collection API's book of the simulated bank: boleto webhook contracts, one per
 * cooperativa/posto/beneficiário, and the boletos, whose changes notify the contract's URL.
 */
import { type BankBehaviour, ContractChange, EmptyListing, HasNextType } from './behaviour';
import {
  bankDateTime,
  boletoEventBody,
  BoletoEvento,
  BoletoSituacao,
  CONTRACT_STATUSES,
  decimalAmount,
  isoDay,
  NOSSO_NUMERO_DIGITS,
  nossoNumeroText,
  SETTLEMENT_CHANNELS,
  type Boleto,
  type Contract,
  type SettlementChannel,
} from './model';
import { contractOfRequest } from './contract-request';
import { BankError, collectionError, controlError } from './errors';
import { settledOnDay } from './settled-listing';
import type { IssuedToken } from './tokens';
import { type BankOptions, driftInput, isString, type OutgoingNotification } from './bank-common';

export type BoletoAction = 'settle' | 'reverse' | 'reject' | 'cancel';

export interface NewBoletoInput {
  readonly valor: string | number;
  readonly cooperativa?: string;
  readonly posto?: string;
  readonly beneficiario?: string;
  readonly seuNumero?: string;
  readonly idTituloEmpresa?: string;
  /** YYYY-MM-DD. @default 10 days from now */
  readonly dataVencimento?: string;
}

export interface BoletoChangeInput {
  /** Settlement channel (settle) or the channel being reversed (reverse). @default PIX (settle), REDE (reverse) */
  readonly canal?: SettlementChannel;
  /** Amount paid. @default the boleto's value */
  readonly valor?: string | number;
}

/** The manual's answer to a nossoNumero that is not nine digits. */
export const NOSSO_NUMERO_INVALID = 'O campo nosso numero deve ter apenas 9 (nove) caracteres numéricos.';
/** The manual's 401 texts for a beneficiary or cooperative other than the token's. */
export const OTHER_BENEFICIARY = 'Código de beneficiário diferente do beneficiário do usuário';
export const OTHER_COOPERATIVA = 'Cooperativa diferente da cooperativa do usuário';
/** What ends an open boleto without payment, and the event it makes. */
const BOLETO_ENDINGS = {
  cancel: { situacao: BoletoSituacao.CANCELLED, movimento: 'BAIXA', evento: BoletoEvento.CANCELLATION },
  reject: { situacao: BoletoSituacao.REJECTED, movimento: 'REJEICAO', evento: BoletoEvento.REJECTION },
} as const;
const contractKey = (cooperativa: string, posto: string, beneficiario: string) =>
  `${cooperativa}/${posto}/${beneficiario}`;

/** The collection book's part of the bank's state. */
export interface CollectionState {
  readonly contracts: readonly Contract[];
  readonly boletos: readonly Boleto[];
  readonly nextContractId: number;
  readonly nextNossoNumero: number;
}

/** Webhook contracts and boletos. */
export class CollectionBook {
  private readonly contracts = new Map<number, Contract>();
  private readonly boletos = new Map<string, Boleto>();
  private nextContractId = 1001;
  private nextNossoNumero = 1_000_001;
  private get behaviour(): BankBehaviour {
    return this.options.behaviour();
  }

  constructor(private readonly options: BankOptions) {}

  exportState(): CollectionState {
    return {
      contracts: [...this.contracts.values()],
      boletos: [...this.boletos.values()],
      nextContractId: this.nextContractId,
      nextNossoNumero: this.nextNossoNumero,
    };
  }

  restoreState(state: CollectionState): void {
    this.contracts.clear();
    for (const contract of state.contracts) this.contracts.set(contract.idContrato, contract);
    this.boletos.clear();
    for (const boleto of state.boletos) this.boletos.set(boleto.nossoNumero, boleto);
    this.nextContractId = state.nextContractId;
    this.nextNossoNumero = state.nextNossoNumero;
  }

  checkOwner(token: IssuedToken, beneficiario: string | undefined, cooperativa: string | undefined): void {
    const account = this.options.accounts.find((a) => a.beneficiario + a.cooperativa === token.subject);
    if (beneficiario !== undefined && account?.beneficiario !== beneficiario)
      throw collectionError(401, 'BENEFICIARIO_DIFERENTE', OTHER_BENEFICIARY);
    if (cooperativa !== undefined && account?.cooperativa !== cooperativa)
      throw collectionError(401, 'COOPERATIVA_DIFERENTE', OTHER_COOPERATIVA);
  }
  private validateContract(body: unknown, token: IssuedToken): Omit<Contract, 'idContrato'> {
    const contract = contractOfRequest(body);
    this.checkOwner(token, contract.codBeneficiario, contract.cooperativa);
    return contract;
  }
  private findContract(cooperativa: string, posto: string, beneficiario: string): Contract | undefined {
    const key = contractKey(cooperativa, posto, beneficiario);
    return [...this.contracts.values()].find((c) => contractKey(c.cooperativa, c.posto, c.codBeneficiario) === key);
  }
  createContract(token: IssuedToken, body: unknown): { idContrato: number } {
    const fields = this.validateContract(body, token);
    if (this.findContract(fields.cooperativa, fields.posto, fields.codBeneficiario)) {
      throw collectionError(422, 'CONTRATO_EXISTENTE', 'Contrato já existente.');
    }
    const idContrato = this.nextContractId++;
    this.contracts.set(idContrato, { idContrato, ...fields });
    return { idContrato };
  }
  listContracts(token: IssuedToken, query: URLSearchParams): unknown {
    const missing = ['cooperativa', 'posto', 'beneficiario'].filter((name) => !query.get(name));
    if (missing.length)
      throw collectionError(400, 'PARAMETRO_OBRIGATORIO', `Parâmetro(s) obrigatório(s): ${missing.join(', ')}.`);
    this.checkOwner(token, query.get('beneficiario')!, query.get('cooperativa')!);
    const contract = this.findContract(query.get('cooperativa')!, query.get('posto')!, query.get('beneficiario')!);
    if (!contract) throw collectionError(422, 'CONTRATO_NAO_ENCONTRADO', 'Nenhum contrato encontrado');
    return this.options.contractListShape === 'array' ? [{ ...contract }] : { ...contract };
  }

  /**
   * PUT (the whole contract, the spec) or PATCH (the fields to change, a later manual) of
   * `contrato/{id}`; the method the behaviour does not allow answers 405.
   */
  updateContract(token: IssuedToken, id: string, body: unknown, method: 'PUT' | 'PATCH'): { idContrato: number } {
    const allowed = {
      [ContractChange.PUT_OR_PATCH]: ['PUT', 'PATCH'],
      [ContractChange.PUT]: ['PUT'],
      [ContractChange.PATCH]: ['PATCH'],
    }[this.behaviour.contractChange];
    if (!allowed.includes(method)) {
      throw new BankError(
        405,
        { message: `Method ${method} is not allowed on contrato/{id}.` },
        { allow: allowed.join(', ') },
      );
    }
    const existing = /^\d+$/.test(id) ? this.contracts.get(Number(id)) : undefined;
    if (!existing) throw collectionError(404, 'CONTRATO_NAO_ENCONTRADO', `Contrato ${id} não encontrado.`);
    let merged = body;
    if (method === 'PATCH') {
      if (!body || typeof body !== 'object' || Array.isArray(body))
        throw collectionError(
          400,
          'CORPO_INVALIDO',
          'O corpo da requisição deve ser um objeto JSON com os campos a alterar.',
        );
      const { idContrato: _id, ...current } = existing;
      merged = { ...current, ...(body as Record<string, unknown>) };
    }
    const fields = this.validateContract(merged, token);
    const other = this.findContract(fields.cooperativa, fields.posto, fields.codBeneficiario);
    if (other && other.idContrato !== existing.idContrato)
      throw collectionError(422, 'CONTRATO_EXISTENTE', 'Contrato já existente.');
    this.contracts.set(existing.idContrato, { idContrato: existing.idContrato, ...fields });
    return { idContrato: existing.idContrato };
  }

  /**
   * The bank changes a contract on its own (control API): deactivates or blocks it, or points it
   * elsewhere, as cdk-bank-webhooks/docs/bank-api.md says registrations change without notice.
   */
  driftContract(idContrato: number, input: unknown): Contract {
    const contract = this.contracts.get(idContrato);
    if (!contract) throw controlError(404, `No contract with idContrato ${idContrato}.`);
    const changes = driftInput(
      input,
      {
        urlStatus: (v) => (CONTRACT_STATUSES as readonly unknown[]).includes(v),
        contratoStatus: (v) => (CONTRACT_STATUSES as readonly unknown[]).includes(v),
        url: (v) => typeof v === 'string' && v.length > 0,
        token: (v) => typeof v === 'string' && v.length > 0,
      },
      `urlStatus and contratoStatus take ${CONTRACT_STATUSES.join(', ')}; url and token a non-empty string`,
    );
    Object.assign(contract, changes);
    return { ...contract };
  }

  /** The bank re-points or clears an account's payment callback on its own (control API). */
  allContracts(): Contract[] {
    return [...this.contracts.values()].map((c) => ({ ...c }));
  }

  // ---- boletos ----
  createBoleto(input: NewBoletoInput): Boleto {
    const account = this.options.accounts[0];
    const notText = (
      ['cooperativa', 'posto', 'beneficiario', 'seuNumero', 'idTituloEmpresa', 'dataVencimento'] as const
    ).filter((field) => input[field] !== undefined && !isString(input[field]));
    if (notText.length) throw controlError(400, `${notText.join(', ')} must be text.`);
    const valor = decimalAmount(input.valor);
    if (!valor)
      throw controlError(400, `valor must be a positive amount such as "250.75" (got ${JSON.stringify(input.valor)}).`);
    const vencimento =
      input.dataVencimento ?? new Date(this.options.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(vencimento))
      throw controlError(400, `dataVencimento must be YYYY-MM-DD (got ${vencimento}).`);
    const boleto: Boleto = {
      nossoNumero: nossoNumeroText(this.nextNossoNumero++),
      cooperativa: input.cooperativa ?? account.cooperativa,
      posto: input.posto ?? account.posto,
      beneficiario: input.beneficiario ?? account.beneficiario,
      seuNumero: input.seuNumero,
      idTituloEmpresa: input.idTituloEmpresa,
      valor,
      dataVencimento: vencimento,
      dataEmissao: isoDay(bankDateTime(this.options.now())),
      situacao: BoletoSituacao.OPEN,
    };
    this.boletos.set(boleto.nossoNumero, boleto);
    return { ...boleto };
  }

  /** A boleto by its nossoNumero (the control API takes it with or without leading zeros). */
  getBoleto(nossoNumero: string): Boleto {
    const boleto = this.boletos.get(
      /^\d{1,9}$/.test(nossoNumero) ? nossoNumero.padStart(NOSSO_NUMERO_DIGITS, '0') : nossoNumero,
    );
    if (!boleto) throw controlError(404, `No boleto with nossoNumero ${nossoNumero}.`);
    return boleto;
  }

  /** GET /cobranca/boleto/v1/boletos?codigoBeneficiario=&nossoNumero= */
  queryBoleto(token: IssuedToken, query: URLSearchParams): Boleto {
    const missing = ['codigoBeneficiario', 'nossoNumero'].filter((name) => !query.get(name));
    if (missing.length)
      throw collectionError(400, 'PARAMETRO_OBRIGATORIO', `Parâmetro(s) obrigatório(s): ${missing.join(', ')}.`);
    this.checkOwner(token, query.get('codigoBeneficiario')!, undefined);
    const nossoNumero = query.get('nossoNumero')!;
    if (!/^\d{9}$/.test(nossoNumero)) throw collectionError(400, 'NOSSO_NUMERO_INVALIDO', NOSSO_NUMERO_INVALID);
    const boleto = this.boletos.get(nossoNumero);
    if (!boleto || boleto.beneficiario !== query.get('codigoBeneficiario')) {
      throw collectionError(404, 'TITULO_NAO_ENCONTRADO', 'Titulo não encontrado');
    }
    return boleto;
  }

  /**
   * GET /cobranca/boleto/v1/boletos/liquidados/dia?codigoBeneficiario=&dia=DD/MM/YYYY&pagina=N:
   * the beneficiary's boletos settled on that bank day (America/Sao_Paulo), in the order they were
   * settled, `listingPageSize` a page from `listingFirstPage`. A boleto settled later in the day
   * joins the end of the last page; one reversed since is no longer listed (its situacao is no
   * longer LIQUIDADO). `hasNext` is a boolean or a string, and an empty page a 200 or a 404, as
   * the behaviour says.
   */
  listSettledOnDay(
    token: IssuedToken,
    query: URLSearchParams,
  ): { items: Record<string, unknown>[]; hasNext?: boolean | string } {
    const missing = ['codigoBeneficiario', 'dia'].filter((name) => !query.get(name));
    if (missing.length)
      throw collectionError(400, 'PARAMETRO_OBRIGATORIO', `Parâmetro(s) obrigatório(s): ${missing.join(', ')}.`);
    const beneficiario = query.get('codigoBeneficiario')!;
    const day = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(query.get('dia')!);
    if (!day) throw collectionError(400, 'PARAMETRO_INVALIDO', 'dia deve estar no formato DD/MM/AAAA.');
    const { listingFirstPage: first, listingPageSize: size } = this.behaviour;
    const pageText = query.get('pagina') ?? String(first);
    if (!/^\d{1,6}$/.test(pageText) || Number(pageText) < first)
      throw collectionError(400, 'PARAMETRO_INVALIDO', `pagina deve ser um número a partir de ${first}.`);
    this.checkOwner(token, beneficiario, undefined);
    const index = Number(pageText) - first;
    const { items, settledCount } = settledOnDay(
      this.boletos.values(),
      beneficiario,
      [Number(day[1]), Number(day[2]), Number(day[3])],
      index,
      size,
    );
    if (!items.length && this.behaviour.emptyListing === EmptyListing.NOT_FOUND)
      throw collectionError(404, 'NENHUM_TITULO', 'Nenhum título liquidado encontrado.');
    const hasNext = (index + 1) * size < settledCount;
    if (this.behaviour.listingHasNext === HasNextType.MISSING) return { items };
    return { items, hasNext: this.behaviour.listingHasNext === HasNextType.STRING ? String(hasNext) : hasNext };
  }
  changeBoleto(
    nossoNumero: string,
    action: BoletoAction,
    input: BoletoChangeInput = {},
  ): { boleto: Boleto; notification: OutgoingNotification } {
    const boleto = this.getBoleto(nossoNumero);
    const at = bankDateTime(this.options.now());
    const canal = input.canal;
    if (canal !== undefined && !(SETTLEMENT_CHANNELS as readonly string[]).includes(canal)) {
      throw controlError(400, `canal must be one of ${SETTLEMENT_CHANNELS.join(', ')} (got ${String(canal)}).`);
    }
    const expect = (situacao: string) => {
      if (boleto.situacao !== situacao)
        throw controlError(
          409,
          `Cannot ${action} boleto ${nossoNumero}: its situacao is ${boleto.situacao}, not ${situacao}.`,
        );
    };
    let movimento: string;
    let evento: string;
    let valor = boleto.valor;
    switch (action) {
      case 'settle': {
        expect(BoletoSituacao.OPEN);
        valor = input.valor === undefined ? boleto.valor : (decimalAmount(input.valor) ?? '');
        if (!valor) throw controlError(400, `valor must be a positive amount (got ${JSON.stringify(input.valor)}).`);
        boleto.situacao = BoletoSituacao.SETTLED;
        boleto.liquidacao = { data: at, valor, canal: canal ?? 'PIX' };
        movimento = `LIQUIDACAO_${canal ?? 'PIX'}`;
        evento = BoletoEvento.SETTLEMENT;
        break;
      }
      case 'reverse': {
        expect(BoletoSituacao.SETTLED);
        valor = boleto.liquidacao!.valor;
        boleto.situacao = BoletoSituacao.OPEN;
        boleto.liquidacao = undefined;
        movimento = `ESTORNO_LIQUIDACAO_${canal ?? 'REDE'}`;
        evento = BoletoEvento.SETTLEMENT;
        break;
      }
      case 'cancel':
      case 'reject': {
        expect(BoletoSituacao.OPEN);
        const ending = BOLETO_ENDINGS[action];
        boleto.situacao = ending.situacao;
        movimento = ending.movimento;
        evento = ending.evento;
        break;
      }
      default:
        throw controlError(404, `Unknown boleto action ${String(action)}; use settle, reverse, reject or cancel.`);
    }
    const contract = this.findContract(boleto.cooperativa, boleto.posto, boleto.beneficiario);
    const event = boletoEventBody(boleto, {
      movimento,
      at,
      valor,
      sendIdTituloEmpresa: contract?.enviarIdTituloEmpresa === true,
    });
    const notification: OutgoingNotification = {
      id: event.idEventoWebhook as string,
      kind: 'boleto',
      subject: `boleto ${boleto.nossoNumero} ${movimento}`,
      body: this.options.boletoNotificationShape === 'array' ? [event] : event,
      ...this.boletoTarget(contract, evento, boleto),
    };
    this.options.notify(notification);
    return { boleto: { ...boleto }, notification };
  }
  private boletoTarget(
    contract: Contract | undefined,
    evento: string,
    boleto: Boleto,
  ): Pick<OutgoingNotification, 'url' | 'authHeader' | 'skipped'> {
    if (!contract)
      return {
        skipped: `no contract for cooperativa ${boleto.cooperativa}, posto ${boleto.posto}, beneficiário ${boleto.beneficiario}`,
      };
    if (contract.contratoStatus !== 'ATIVO' || contract.urlStatus !== 'ATIVO') {
      return {
        skipped: `contract ${contract.idContrato} is not active (contratoStatus ${contract.contratoStatus}, urlStatus ${contract.urlStatus})`,
      };
    }
    if (!contract.eventos.includes(evento))
      return {
        skipped: `contract ${contract.idContrato} is not subscribed to ${evento} (eventos ${contract.eventos.join(', ')})`,
      };
    return {
      url: contract.url,
      authHeader: contract.header && contract.token ? { name: contract.header, value: contract.token } : undefined,
    };
  }
}
