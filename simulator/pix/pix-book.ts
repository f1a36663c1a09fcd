/**
 * The Pix book of the simulated provider: the webhook of each of the account's keys, its charges,
 * the Pix it received and their refunds, under the standard's rules (cdk-bank-webhooks/docs/pix.md). Independent of
 * HTTP, like the bank's other books: the routes answer with what it returns and the problems it
 * throws. Only the keys it is given are the account's: a webhook or a charge for any other key is
 * refused, as a provider refuses a key its customer does not hold.
 */
import { randomBytes } from 'node:crypto';
import { chargeOfRequest, chargeRefused } from './pix-charge-request';
import { pageOf, type PixQuery, queryWindow } from './pix-query';
import {
  type ChargeKind,
  ChargeStatus,
  END_TO_END_ID,
  MAX_PIX_KEY_LENGTH,
  PIX_AMOUNT,
  PIX_TXID,
  type PixCharge,
  pixNotFound as notFound,
  pixProblem,
  type PixReceived,
  type PixRefund,
  type PixWebhook,
  REFUND_ID,
  RefundNature,
  RefundStatus,
  rfc3339,
  SIMULATOR_ISPB,
  webhookUrlOf,
} from './pix-model';

export interface PixBookOptions {
  /** The account's Pix keys (DICT keys: an EVP, an email, a phone, a CPF or CNPJ). */
  readonly keys: readonly string[];
  /** The simulated clock, in ms. */
  readonly now: () => number;
  /**
   * Whether a Pix paid a recurring charge (Pix Automático): its refunds may only be `ORIGINAL`,
   * `MED_FRAUDE` or `MED_PIX_AUTOMATICO` (the standard's `DevolucaoNaturezaPixAutomatico`).
   * @default none does
   */
  readonly isRecurring?: (endToEndId: string) => boolean;
}

/** The natures a refund of a Pix Automático's Pix may have. */
const RECURRING_REFUND_NATURES: readonly RefundNature[] = [
  RefundNature.ORIGINAL,
  RefundNature.MED_FRAUDE,
  RefundNature.MED_PIX_AUTOMATICO,
];

/** Everything the book holds, as plain JSON. */
export interface PixState {
  readonly webhooks: readonly PixWebhook[];
  readonly charges: readonly PixCharge[];
  readonly pix: readonly PixReceived[];
}

export type { PixPage, PixQuery } from './pix-query';

export class PixBook {
  private readonly webhooks = new Map<string, PixWebhook>();
  private readonly charges = new Map<string, PixCharge>();
  private readonly received = new Map<string, PixReceived>();
  private sequence = 0;

  constructor(private readonly options: PixBookOptions) {}

  exportState(): PixState {
    return structuredClone({
      webhooks: [...this.webhooks.values()],
      charges: [...this.charges.values()],
      pix: [...this.received.values()],
    });
  }

  restoreState(state: PixState): void {
    const copy = structuredClone<PixState>(state);
    this.webhooks.clear();
    for (const w of copy.webhooks) this.webhooks.set(w.chave, w);
    this.charges.clear();
    for (const c of copy.charges) this.charges.set(c.txid, c);
    this.received.clear();
    for (const p of copy.pix) this.received.set(p.endToEndId, p);
  }

  // ---- webhooks, one per key ----

  /** `PUT /webhook/{chave}`: the key's webhook is `webhookUrl` (an https URL), replacing any. */
  putWebhook(chave: string, body: unknown): PixWebhook {
    const key = this.ownKey(chave, 'WebhookOperacaoInvalida', 'Webhook inválido.');
    const webhook = { webhookUrl: webhookUrlOf(body), chave: key, criacao: rfc3339(this.options.now()) };
    this.webhooks.set(key, webhook);
    return { ...webhook };
  }

  /** `GET /webhook/{chave}`. */
  getWebhook(chave: string): PixWebhook {
    const webhook = this.webhooks.get(chave);
    if (!webhook) throw notFound(`Nenhum webhook para a chave ${chave}.`);
    return { ...webhook };
  }

  /** `DELETE /webhook/{chave}`. */
  deleteWebhook(chave: string): void {
    if (!this.webhooks.delete(chave)) throw notFound(`Nenhum webhook para a chave ${chave}.`);
  }

  /** `GET /webhook`: every webhook, created within `inicio`..`fim` when given, a page of them. */
  listWebhooks(query: PixQuery): { parametros: Record<string, unknown>; webhooks: PixWebhook[] } {
    const window = queryWindow(query, false);
    const all = [...this.webhooks.values()].filter((w) => window.contains(Date.parse(w.criacao)));
    const { page, items } = pageOf(all, query);
    return { parametros: { ...window.echo, paginacao: page }, webhooks: items };
  }

  /** The webhook a Pix to `chave` is announced to, if any. */
  webhookOf(chave: string): PixWebhook | undefined {
    return this.webhooks.get(chave);
  }

  // ---- charges ----

  /** `PUT /cob/{txid}` or `PUT /cobv/{txid}`: a new charge (a txid in use is refused). */
  putCharge(kind: ChargeKind, txid: string, body: unknown): PixCharge {
    if (this.charges.has(txid)) throw chargeRefused(kind, `Já existe uma cobrança com o txid ${txid}.`);
    const charge = chargeOfRequest(kind, txid, body, this.options.now(), (chave, type, title) =>
      this.ownKey(chave, type, title),
    );
    this.charges.set(txid, charge);
    return structuredClone(charge);
  }

  /** `GET /cob/{txid}` or `GET /cobv/{txid}`: a charge of that kind only. */
  getCharge(kind: ChargeKind, txid: string): PixCharge {
    const charge = this.charges.get(txid);
    if (!charge || charge.kind !== kind)
      throw notFound(`Nenhuma cobrança${kind === 'cobv' ? ' com vencimento' : ''} com o txid ${txid}.`);
    return structuredClone(charge);
  }

  /** `GET /cob?inicio&fim[&status]` or `GET /cobv?...`: the charges of that kind created in the window, by creation, a page of them. */
  listCharges(kind: ChargeKind, query: PixQuery): { parametros: Record<string, unknown>; cobs: PixCharge[] } {
    const window = queryWindow(query, true);
    const all = [...this.charges.values()]
      .filter((c) => c.kind === kind && window.contains(Date.parse(c.calendario.criacao)))
      .filter((c) => query.status === undefined || String(c.status) === query.status)
      .sort((a, b) => Date.parse(a.calendario.criacao) - Date.parse(b.calendario.criacao));
    const { page, items } = pageOf(all, query);
    return { parametros: { ...window.echo, paginacao: page }, cobs: structuredClone(items) };
  }

  // ---- Pix received ----

  /** A payer pays an active charge (its amount unless another is given): the charge is concluded. */
  payCharge(txid: string, input: { valor?: string; infoPagador?: string } = {}): PixReceived {
    const charge = this.charges.get(txid);
    if (!charge) throw notFound(`Nenhuma cobrança com o txid ${txid}.`);
    if (charge.status !== ChargeStatus.ACTIVE)
      throw pixProblem(400, 'CobOperacaoInvalida', 'Cobrança inválida.', `A cobrança está ${charge.status}.`);
    const pix = this.receive(charge.chave, input.valor ?? charge.valor.original, txid, input.infoPagador);
    // What the amount is made of: the charge's own amount, and what the payer paid beside it (the standard's componentesValor).
    const paid = Math.round(Number(pix.valor) * 100) - Math.round(Number(charge.valor.original) * 100);
    const parts = {
      original: { valor: charge.valor.original },
      ...(paid > 0
        ? { juros: { valor: (paid / 100).toFixed(2) } }
        : paid < 0
          ? { desconto: { valor: (-paid / 100).toFixed(2) } }
          : {}),
    };
    this.received.set(pix.endToEndId, { ...pix, componentesValor: parts });
    this.charges.set(txid, { ...charge, status: ChargeStatus.CONCLUDED, pix: [...charge.pix, pix.endToEndId] });
    return structuredClone(this.received.get(pix.endToEndId)!);
  }

  /** A payer pays a key: with a static code's short txid (1 to 25), or none (then never announced). */
  payKey(chave: string, input: { valor: string; txid?: string; infoPagador?: string }): PixReceived {
    if (!this.options.keys.includes(chave)) throw notFound(`A chave ${chave} não é desta conta.`);
    if (input.txid !== undefined && (!PIX_TXID.test(input.txid) || input.txid.length > 25)) {
      throw pixProblem(
        400,
        'RequisicaoInvalida',
        'Requisição inválida.',
        'O txid de um QR estático tem de 1 a 25 letras e dígitos.',
      );
    }
    return this.receive(chave, input.valor, input.txid, input.infoPagador);
  }

  /**
   * A payer pays the account by its details (agência and conta, no key), with a txid or none: a
   * Pix the provider ties to no key (its answers have no `chave`).
   */
  payAccount(input: { valor: string; txid?: string; infoPagador?: string; endToEndId?: string }): PixReceived {
    if (input.txid !== undefined && !PIX_TXID.test(input.txid))
      throw pixProblem(400, 'RequisicaoInvalida', 'Requisição inválida.', 'txid tem de 1 a 35 letras e dígitos.');
    if (input.endToEndId !== undefined && this.received.has(input.endToEndId))
      throw pixProblem(400, 'RequisicaoInvalida', 'Requisição inválida.', `O Pix ${input.endToEndId} já existe.`);
    return this.receive(undefined, input.valor, input.txid, input.infoPagador, input.endToEndId);
  }

  /** The account's keys. */
  get keys(): readonly string[] {
    return [...this.options.keys];
  }

  /**
   * A Pix another customer of the provider received, to its own key (or to `chave`): never in this
   * book, so `GET /pix/{e2eid}` answers 404 for it. What reaches a URL that customer registered.
   */
  foreignPix(input: { chave?: string; valor?: string; txid?: string } = {}): PixReceived {
    const valor = input.valor ?? '1.00';
    if (!PIX_AMOUNT.test(valor))
      throw pixProblem(400, 'RequisicaoInvalida', 'Requisição inválida.', 'valor deve ter duas casas decimais.');
    if (input.txid !== undefined && !PIX_TXID.test(input.txid))
      throw pixProblem(400, 'RequisicaoInvalida', 'Requisição inválida.', 'txid tem de 1 a 35 letras e dígitos.');
    return {
      endToEndId: this.endToEndId('E'),
      txid: input.txid ?? randomTxid(),
      valor,
      chave: input.chave ?? 'outro.cliente@example.com',
      horario: rfc3339(this.options.now()),
      devolucoes: [],
    };
  }

  /** `GET /pix/{e2eid}`: a Pix this account received; any other is not found. */
  getPix(e2eid: string): PixReceived {
    const pix = END_TO_END_ID.test(e2eid) ? this.received.get(e2eid) : undefined;
    if (!pix) throw notFound(`Nenhum Pix recebido com o endToEndId ${e2eid}.`);
    return structuredClone(pix);
  }

  /** `GET /pix?inicio&fim[&txid][&txIdPresente][&devolucaoPresente]`: the Pix received in the window, by time, a page of them. */
  listPix(query: PixQuery): { parametros: Record<string, unknown>; pix: PixReceived[] } {
    const window = queryWindow(query, true);
    const flag = (value: string | undefined) => (value === undefined ? undefined : value === 'true');
    const txIdPresente = flag(query.txIdPresente);
    const devolucaoPresente = flag(query.devolucaoPresente);
    const all = [...this.received.values()]
      .filter((p) => window.contains(Date.parse(p.horario)))
      .filter((p) => query.txid === undefined || p.txid === query.txid)
      .filter((p) => txIdPresente === undefined || (p.txid !== undefined) === txIdPresente)
      .filter((p) => devolucaoPresente === undefined || p.devolucoes.length > 0 === devolucaoPresente)
      .sort((a, b) => Date.parse(a.horario) - Date.parse(b.horario));
    const { page, items } = pageOf(all, query);
    return { parametros: { ...window.echo, paginacao: page }, pix: structuredClone(items) };
  }

  // ---- refunds ----

  /**
   * `PUT /pix/{e2eid}/devolucao/{id}`: a refund of at most what is left, in process until settled;
   * `ORIGINAL` (or `RETIRADA`, when the body says so). The control API also makes the refunds the
   * provider makes unasked under MED (`natureza` `MED_*`), which no PUT may ask for.
   */
  requestRefund(e2eid: string, id: string, body: unknown, madeBy: 'receiver' | 'provider' = 'receiver'): PixRefund {
    const pix = this.received.get(e2eid);
    if (!pix) throw notFound(`Nenhum Pix recebido com o endToEndId ${e2eid}.`);
    if (!REFUND_ID.test(id))
      throw pixProblem(
        400,
        'PixDevolucaoInvalida',
        'Devolução inválida.',
        'O id da devolução tem de 1 a 35 letras e dígitos.',
      );
    if (pix.devolucoes.some((d) => d.id === id))
      throw pixProblem(400, 'PixDevolucaoInvalida', 'Devolução inválida.', `Já existe a devolução ${id}.`);
    const valor = (body as { valor?: unknown } | undefined)?.valor;
    const returned = pix.devolucoes
      .filter((d) => d.status !== RefundStatus.NOT_DONE)
      .reduce((sum, d) => sum + Math.round(Number(d.valor) * 100), 0);
    if (
      typeof valor !== 'string' ||
      !PIX_AMOUNT.test(valor) ||
      Number(valor) <= 0 ||
      returned + Math.round(Number(valor) * 100) > Math.round(Number(pix.valor) * 100)
    ) {
      throw pixProblem(
        400,
        'PixDevolucaoInvalida',
        'Devolução inválida.',
        'O valor deve ser positivo e no máximo o que resta do Pix.',
      );
    }
    const natureza = (body as { natureza?: unknown } | undefined)?.natureza ?? RefundNature.ORIGINAL;
    const allowed: readonly unknown[] = (
      madeBy === 'provider' ? Object.values(RefundNature) : [RefundNature.ORIGINAL, RefundNature.RETIRADA]
    ).filter((n) => !this.options.isRecurring?.(e2eid) || RECURRING_REFUND_NATURES.includes(n));
    if (!allowed.includes(natureza))
      throw pixProblem(
        400,
        'PixDevolucaoInvalida',
        'Devolução inválida.',
        `A natureza deve ser ${allowed.join(', ')}.`,
      );
    const refund: PixRefund = {
      id,
      rtrId: this.endToEndId('D'),
      valor,
      natureza: natureza as RefundNature,
      horario: { solicitacao: rfc3339(this.options.now()) },
      status: RefundStatus.IN_PROCESS,
    };
    this.received.set(e2eid, { ...pix, devolucoes: [...pix.devolucoes, refund] });
    return { ...refund };
  }

  /** A refund in process reaches its final status (`DEVOLVIDO` or `NAO_REALIZADO`, with a reason). */
  settleRefund(
    e2eid: string,
    id: string,
    status: RefundStatus.RETURNED | RefundStatus.NOT_DONE,
    motivo?: string,
  ): PixReceived {
    const pix = this.received.get(e2eid);
    const refund = pix?.devolucoes.find((d) => d.id === id);
    if (!pix || !refund) throw notFound(`Nenhuma devolução ${id} do Pix ${e2eid}.`);
    if (refund.status !== RefundStatus.IN_PROCESS)
      throw pixProblem(400, 'PixDevolucaoInvalida', 'Devolução inválida.', `A devolução já está ${refund.status}.`);
    const settled: PixRefund = {
      ...refund,
      status,
      horario: { ...refund.horario, liquidacao: rfc3339(this.options.now()) },
      ...(motivo ? { motivo } : {}),
    };
    const next = { ...pix, devolucoes: pix.devolucoes.map((d) => (d.id === id ? settled : d)) };
    this.received.set(e2eid, next);
    return structuredClone(next);
  }

  /** `GET /pix/{e2eid}/devolucao/{id}`. */
  getRefund(e2eid: string, id: string): PixRefund {
    const refund = this.received.get(e2eid)?.devolucoes.find((d) => d.id === id);
    if (!refund) throw notFound(`Nenhuma devolução ${id} do Pix ${e2eid}.`);
    return structuredClone(refund);
  }

  // ---- helpers ----

  private ownKey(chave: string, type: string, title: string): string {
    if (!chave || chave.length > MAX_PIX_KEY_LENGTH)
      throw pixProblem(400, type, title, `A chave deve ter de 1 a ${MAX_PIX_KEY_LENGTH} caracteres.`, [
        { razao: 'chave inválida', propriedade: 'chave' },
      ]);
    if (!this.options.keys.includes(chave))
      throw pixProblem(400, type, title, 'A chave não pertence ao usuário recebedor.', [
        { razao: 'chave não pertence ao usuário', propriedade: 'chave', valor: chave },
      ]);
    return chave;
  }

  private receive(
    chave: string | undefined,
    valor: string,
    txid: string | undefined,
    infoPagador: string | undefined,
    endToEndId = this.newEndToEndId(),
  ): PixReceived {
    if (!PIX_AMOUNT.test(valor) || Number(valor) <= 0)
      throw pixProblem(
        400,
        'RequisicaoInvalida',
        'Requisição inválida.',
        'valor deve ser positivo com duas casas decimais.',
      );
    const pix: PixReceived = {
      endToEndId,
      ...(txid !== undefined ? { txid } : {}),
      valor,
      ...(chave !== undefined ? { chave } : {}),
      horario: rfc3339(this.options.now()),
      ...(infoPagador ? { infoPagador: infoPagador.slice(0, 140) } : {}),
      devolucoes: [],
    };
    this.received.set(pix.endToEndId, pix);
    return structuredClone(pix);
  }

  /** A new end-to-end id of a Pix to this account (a recurring charge's attempt holds one before its Pix is made). */
  newEndToEndId(): string {
    return this.endToEndId('E');
  }

  /** `E` (a payment) or `D` (a return), the ISPB, the minute (yyyyMMddHHmm, UTC) and 11 letters and digits: 32 characters. */
  private endToEndId(prefix: 'E' | 'D'): string {
    const minute = rfc3339(this.options.now()).replace(/\D/g, '').slice(0, 12);
    const unique = `${(this.sequence++).toString(36)}${randomBytes(8).toString('hex')}`.slice(0, 11).padEnd(11, '0');
    return `${prefix}${SIMULATOR_ISPB}${minute}${unique}`;
  }
}

/** A charge's txid as a provider makes one: 32 letters and digits. */
export function randomTxid(): string {
  return randomBytes(16).toString('hex');
}
