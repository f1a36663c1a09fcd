/**
 * The simulated provider's Pix Automático: the account's `webhookrec` and `webhookcobr`, its
 * recurrences and their recurring charges, moved through the standard's statuses by the control
 * API (the payer's side and the provider's), read by `GET /rec/{idRec}`, `GET /cobr/{txid}` and
 * their listings by creation time. A paid charge is a Pix the account receives (no key: Pix
 * Automático pays the account), under the end-to-end id its attempt was scheduled with.
 * Independent of HTTP: the routes answer with what it returns and the problems it throws.
 */
import { randomBytes } from 'node:crypto';
import {
  ActivationJourney,
  AttemptKind,
  AttemptStatus,
  CancelledBy,
  CHARGE_CANCELLATION_CODES,
  CHARGE_ENDING_ATTEMPT_CODES,
  CHARGE_REJECTION_CODES,
  isFinalRecStatus,
  isFinalRecurringChargeStatus,
  Periodicity,
  REC_CANCELLATION_CODES,
  REC_REJECTION_CODES,
  RecStatus,
  RecurringChargeStatus,
  RetryPolicy,
} from '../../contracts/pix-recurring';
import { pageOf, type PixQuery, queryWindow } from './pix-query';
import {
  CHARGE_TXID,
  PIX_AMOUNT,
  pixNotFound as notFound,
  pixProblem,
  type PixReceived,
  rfc3339,
  SIMULATOR_ISPB,
} from './pix-model';
import {
  type Attempt,
  createdAt,
  type Ending,
  type NewRecurrence,
  type Recurrence,
  type RecurringCharge,
  type RecurringReceiver,
  type RecurringState,
} from './recurring-model';
import { RecurringWebhooks } from './recurring-webhooks';

export interface RecurringBookOptions {
  /** The account recurrences pay into. */
  readonly receiver: RecurringReceiver;
  /** The simulated clock, in ms. */
  readonly now: () => number;
  /** The Pix book's: a new end-to-end id, and a Pix the account receives by its details (no key). */
  readonly pix: {
    newEndToEndId(): string;
    payAccount(input: { valor: string; txid: string; endToEndId: string }): PixReceived;
  };
}

/** Retries after the due date under `PERMITE_3R_7D`: at most 3, within 7 days. */
const RETRIES = { max: 3, days: 7 } as const;
const DAY_MS = 86_400_000;

const recRefused = (detail: string) => pixProblem(400, 'RecOperacaoInvalida', 'Recorrência inválida.', detail);
const cobrRefused = (detail: string) =>
  pixProblem(400, 'CobROperacaoInvalida', 'Cobrança recorrente inválida.', detail);
const day = (epochMs: number) => rfc3339(epochMs).slice(0, 10);

/** A code from `allowed`, or `fallback` when none is given; anything else is refused with the list. */
function codeOf(given: string | undefined, allowed: readonly string[], fallback: string, refuse: (d: string) => Error) {
  const code = given ?? fallback;
  if (!allowed.includes(code)) throw refuse(`O código deve ser um de ${allowed.join(', ')}.`);
  return code;
}

export class RecurringBook {
  /** The account's `webhookrec` and `webhookcobr`. */
  readonly webhooks: RecurringWebhooks;
  private readonly recs = new Map<string, Recurrence>();
  private readonly cobrs = new Map<string, RecurringCharge>();
  private sequence = 0;

  constructor(private readonly options: RecurringBookOptions) {
    this.webhooks = new RecurringWebhooks(options.now);
  }

  exportState(): RecurringState {
    return structuredClone({
      webhooks: this.webhooks.exportState(),
      recs: [...this.recs.values()],
      cobrs: [...this.cobrs.values()],
    });
  }

  restoreState(state: RecurringState): void {
    const copy = structuredClone(state);
    this.webhooks.restoreState(copy.webhooks);
    this.recs.clear();
    for (const r of copy.recs) this.recs.set(r.idRec, r);
    this.cobrs.clear();
    for (const c of copy.cobrs) this.cobrs.set(c.txid, c);
  }

  // ---- recurrences ----

  /** A recurrence the receiver created (`POST /rec`), waiting for the payer's authorization. */
  createRecurrence(input: NewRecurrence = {}): Recurrence {
    if (input.valorRec !== undefined && !PIX_AMOUNT.test(input.valorRec))
      throw recRefused('valorRec deve ter duas casas decimais.');
    if (input.periodicidade !== undefined && !Object.values(Periodicity).includes(input.periodicidade))
      throw recRefused(`periodicidade deve ser uma de ${Object.values(Periodicity).join(', ')}.`);
    const politica = input.politicaRetentativa ?? RetryPolicy.NONE;
    if (!Object.values(RetryPolicy).includes(politica))
      throw recRefused(`politicaRetentativa deve ser uma de ${Object.values(RetryPolicy).join(', ')}.`);
    const now = this.options.now();
    const { receiver } = this.options;
    const rec: Recurrence = {
      idRec: this.recId(politica, now),
      vinculo: {
        contrato: input.contrato ?? `contrato-${this.sequence}`,
        devedor: input.devedor ?? { cpf: '12345678909', nome: 'Fulano de Tal' },
        ...(input.objeto ? { objeto: input.objeto.slice(0, 35) } : {}),
      },
      calendario: { dataInicial: day(now + 7 * DAY_MS), periodicidade: input.periodicidade ?? Periodicity.MONTHLY },
      ...(input.valorRec ? { valor: { valorRec: input.valorRec } } : {}),
      politicaRetentativa: politica,
      recebedor: { cnpj: receiver.cnpj, nome: receiver.nome, ispbParticipante: SIMULATOR_ISPB },
      status: RecStatus.CREATED,
      atualizacao: [{ status: RecStatus.CREATED, data: rfc3339(now) }],
      ativacao: { tipoJornada: ActivationJourney.PENDING },
    };
    this.recs.set(rec.idRec, rec);
    return structuredClone(rec);
  }

  /** The payer authorizes it (by the journey given, the recurrence's QR code unless said). */
  approve(idRec: string, journey: ActivationJourney = ActivationJourney.JOURNEY_2): Recurrence {
    if (journey === ActivationJourney.PENDING || !Object.values(ActivationJourney).includes(journey))
      throw recRefused('A jornada deve ser JORNADA_1 a JORNADA_4.');
    return this.moveRec(idRec, [RecStatus.CREATED], RecStatus.APPROVED, { ativacao: { tipoJornada: journey } });
  }

  /** The payer's provider rejects it (`AP13` unless another code is given). */
  reject(idRec: string, input: { codigo?: string; descricao?: string } = {}): Recurrence {
    const codigo = codeOf(input.codigo, REC_REJECTION_CODES, 'AP13', recRefused);
    const encerramento: Ending = { rejeicao: { codigo, descricao: input.descricao ?? 'Recorrência rejeitada' } };
    return this.moveRec(idRec, [RecStatus.CREATED], RecStatus.REJECTED, { encerramento });
  }

  /** Nobody answered in time. */
  expire(idRec: string): Recurrence {
    return this.moveRec(idRec, [RecStatus.CREATED], RecStatus.EXPIRED, {});
  }

  /** Either side cancels it (the payer unless said; a code of the catalog, `SLCR` unless given). */
  cancel(idRec: string, input: { solicitante?: CancelledBy; codigo?: string; descricao?: string } = {}): Recurrence {
    const solicitante = input.solicitante ?? CancelledBy.PAYER;
    if (!Object.values(CancelledBy).includes(solicitante))
      throw recRefused(`solicitante deve ser um de ${Object.values(CancelledBy).join(', ')}.`);
    const codigo = codeOf(input.codigo, REC_CANCELLATION_CODES, 'SLCR', recRefused);
    const encerramento: Ending = {
      cancelamento: { solicitante, codigo, descricao: input.descricao ?? 'Recorrência cancelada' },
    };
    return this.moveRec(idRec, [RecStatus.CREATED, RecStatus.APPROVED], RecStatus.CANCELLED, { encerramento });
  }

  /** `GET /rec/{idRec}`: a recurrence of this account; any other is not found. */
  getRec(idRec: string): Recurrence {
    const rec = this.recs.get(idRec);
    if (!rec) throw notFound(`Nenhuma recorrência com o idRec ${idRec}.`);
    return structuredClone(rec);
  }

  /** `GET /rec?inicio&fim`: the recurrences created in the window, by creation time, a page of them. */
  listRecs(query: PixQuery): { parametros: Record<string, unknown>; recs: Recurrence[] } {
    const { parametros, items } = this.listed([...this.recs.values()], query);
    return { parametros, recs: items };
  }

  // ---- recurring charges ----

  /**
   * The receiver issues a charge of an approved recurrence (`POST /cobr`): its amount (the
   * recurrence's fixed one unless given), due in 3 days unless said; the payer's provider
   * schedules its settlement at once (an `AGND` attempt, `AGENDADA`), and the charge is `ATIVA`.
   */
  issueCharge(
    idRec: string,
    input: { valor?: string; dataDeVencimento?: string; txid?: string } = {},
  ): RecurringCharge {
    const rec = this.getRec(idRec);
    if (rec.status !== RecStatus.APPROVED) throw cobrRefused(`A recorrência ${idRec} está ${rec.status}.`);
    const valor = input.valor ?? rec.valor?.valorRec;
    if (valor === undefined || !PIX_AMOUNT.test(valor) || Number(valor) <= 0)
      throw cobrRefused('valor.original deve ser positivo com duas casas decimais (a recorrência não tem valor fixo).');
    const txid = input.txid ?? randomBytes(16).toString('hex');
    if (!CHARGE_TXID.test(txid)) throw cobrRefused('O txid tem de 26 a 35 letras e dígitos.');
    if (this.cobrs.has(txid)) throw cobrRefused(`Já existe uma cobrança com o txid ${txid}.`);
    const now = this.options.now();
    const due = input.dataDeVencimento ?? day(now + 3 * DAY_MS);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(due) || !Number.isFinite(Date.parse(due)))
      throw cobrRefused('dataDeVencimento deve ser uma data YYYY-MM-DD.');
    const at = rfc3339(now);
    const cobr: RecurringCharge = {
      idRec,
      txid,
      status: RecurringChargeStatus.ACTIVE,
      calendario: { criacao: day(now), dataDeVencimento: due },
      valor: { original: valor },
      ajusteDiaUtil: true,
      politicaRetentativa: rec.politicaRetentativa,
      recebedor: { agencia: this.options.receiver.agencia, conta: this.options.receiver.conta, tipoConta: 'CORRENTE' },
      devedor: rec.vinculo.devedor,
      atualizacao: [
        { status: RecurringChargeStatus.CREATED, data: at },
        { status: RecurringChargeStatus.ACTIVE, data: at },
      ],
      tentativas: [this.attempt(AttemptKind.SCHEDULED, due, at)],
      pix: [],
    };
    this.cobrs.set(txid, cobr);
    return structuredClone(cobr);
  }

  /** The payer's provider settles the scheduled attempt: a Pix the account receives; the charge is concluded. */
  payCharge(txid: string, input: { valor?: string } = {}): { cobr: RecurringCharge; pix: PixReceived } {
    const { cobr, attempt } = this.pending(txid);
    const pix = this.options.pix.payAccount({
      valor: input.valor ?? cobr.valor.original,
      txid,
      endToEndId: attempt.endToEndId,
    });
    const at = rfc3339(this.options.now());
    this.cobrs.set(txid, {
      ...this.withAttempt(cobr, { ...attempt, status: AttemptStatus.PAID }, at),
      status: RecurringChargeStatus.CONCLUDED,
      atualizacao: [...cobr.atualizacao, { status: RecurringChargeStatus.CONCLUDED, data: at }],
      pix: [...cobr.pix, pix.endToEndId],
    });
    return { cobr: this.getCobr(txid), pix };
  }

  /**
   * The scheduled attempt fails (`AM04`-like reasons from the catalog; `AM02` unless given). A
   * code the standard says ends the charge, or a charge that allows no retry, rejects it; under
   * `PERMITE_3R_7D` a retry (`RIFL`) is scheduled for the next day, up to 3 within 7 days of the
   * due date, after which the charge expires.
   */
  failAttempt(txid: string, input: { codigo?: string; descricao?: string } = {}): RecurringCharge {
    const { cobr, attempt } = this.pending(txid);
    const codigo = codeOf(input.codigo, CHARGE_REJECTION_CODES, 'AM02', cobrRefused);
    const rejeicao = { codigo, descricao: input.descricao ?? 'Tentativa rejeitada' };
    const now = this.options.now();
    const at = rfc3339(now);
    const failed = this.withAttempt(cobr, { ...attempt, status: AttemptStatus.REJECTED, rejeicao }, at);
    const retries = cobr.tentativas.filter((t) => t.tipo === AttemptKind.RETRY).length;
    const lastRetryDay = Date.parse(cobr.calendario.dataDeVencimento) + RETRIES.days * DAY_MS;
    const next = Math.max(now, Date.parse(attempt.dataLiquidacao)) + DAY_MS;
    let after: RecurringCharge;
    if (CHARGE_ENDING_ATTEMPT_CODES.includes(codigo) || cobr.politicaRetentativa === RetryPolicy.NONE) {
      after = this.ended(failed, RecurringChargeStatus.REJECTED, at, { rejeicao });
    } else if (retries < RETRIES.max && next <= lastRetryDay) {
      after = { ...failed, tentativas: [...failed.tentativas, this.attempt(AttemptKind.RETRY, day(next), at)] };
    } else {
      after = this.ended(failed, RecurringChargeStatus.EXPIRED, at);
    }
    this.cobrs.set(txid, after);
    return structuredClone(after);
  }

  /** Either side cancels a charge not yet settled (the receiver unless said; `SLCR` unless another code is given). */
  cancelCharge(txid: string, input: { solicitante?: CancelledBy; codigo?: string; descricao?: string } = {}) {
    const { cobr, attempt } = this.pending(txid);
    const solicitante = input.solicitante ?? CancelledBy.RECEIVER;
    if (!Object.values(CancelledBy).includes(solicitante))
      throw cobrRefused(`solicitante deve ser um de ${Object.values(CancelledBy).join(', ')}.`);
    const codigo = codeOf(input.codigo, CHARGE_CANCELLATION_CODES, 'SLCR', cobrRefused);
    const at = rfc3339(this.options.now());
    const cancelled = this.withAttempt(cobr, { ...attempt, status: AttemptStatus.CANCELLED }, at);
    const after = this.ended(cancelled, RecurringChargeStatus.CANCELLED, at, {
      cancelamento: { solicitante, codigo, descricao: input.descricao ?? 'Cobrança cancelada' },
    });
    this.cobrs.set(txid, after);
    return structuredClone(after);
  }

  /** Whether the Pix paid a recurring charge. */
  paidARecurringCharge(endToEndId: string): boolean {
    return [...this.cobrs.values()].some((c) => c.pix.includes(endToEndId));
  }

  /** `GET /cobr/{txid}`: a recurring charge of this account; any other is not found. */
  getCobr(txid: string): RecurringCharge {
    const cobr = this.cobrs.get(txid);
    if (!cobr) throw notFound(`Nenhuma cobrança recorrente com o txid ${txid}.`);
    return structuredClone(cobr);
  }

  /** `GET /cobr?inicio&fim`: the recurring charges created in the window, by creation time, a page of them. */
  listCobrs(query: PixQuery): { parametros: Record<string, unknown>; cobsr: RecurringCharge[] } {
    const { parametros, items } = this.listed([...this.cobrs.values()], query);
    return { parametros, cobsr: items };
  }

  // ---- helpers ----

  private moveRec(idRec: string, from: readonly RecStatus[], to: RecStatus, change: Partial<Recurrence>): Recurrence {
    const rec = this.getRec(idRec);
    if (!from.includes(rec.status))
      throw recRefused(
        `A recorrência está ${rec.status}${isFinalRecStatus(rec.status) ? ' (final)' : ''}: não pode passar a ${to}.`,
      );
    const moved: Recurrence = {
      ...rec,
      ...change,
      status: to,
      atualizacao: [...rec.atualizacao, { status: to, data: rfc3339(this.options.now()) }],
    };
    this.recs.set(idRec, moved);
    return structuredClone(moved);
  }

  /** A charge still waiting for its settlement, and its current attempt. */
  private pending(txid: string): { cobr: RecurringCharge; attempt: Attempt } {
    const cobr = this.getCobr(txid);
    if (isFinalRecurringChargeStatus(cobr.status)) throw cobrRefused(`A cobrança está ${cobr.status} (final).`);
    return { cobr, attempt: cobr.tentativas[cobr.tentativas.length - 1] };
  }

  private attempt(tipo: AttemptKind, dataLiquidacao: string, at: string): Attempt {
    return {
      dataLiquidacao,
      tipo,
      status: AttemptStatus.SCHEDULED,
      endToEndId: this.options.pix.newEndToEndId(),
      atualizacao: [
        { status: AttemptStatus.REQUESTED, data: at },
        { status: AttemptStatus.SCHEDULED, data: at },
      ],
    };
  }

  /** `cobr` with its last attempt replaced by `attempt`, its status recorded at `at`. */
  private withAttempt(cobr: RecurringCharge, attempt: Attempt, at: string): RecurringCharge {
    const updated = { ...attempt, atualizacao: [...attempt.atualizacao, { status: attempt.status, data: at }] };
    return { ...cobr, tentativas: [...cobr.tentativas.slice(0, -1), updated] };
  }

  private ended(cobr: RecurringCharge, status: RecurringChargeStatus, at: string, encerramento?: Ending) {
    return {
      ...cobr,
      status,
      atualizacao: [...cobr.atualizacao, { status, data: at }],
      ...(encerramento ? { encerramento } : {}),
    };
  }

  private listed<T extends { readonly atualizacao: readonly { readonly data: string }[] }>(all: T[], query: PixQuery) {
    const window = queryWindow(query, true);
    const inWindow = all.filter((r) => window.contains(createdAt(r))).sort((a, b) => createdAt(a) - createdAt(b));
    const { page, items } = pageOf(inWindow, query);
    return { parametros: { ...window.echo, paginacao: page }, items: structuredClone(items) };
  }

  /** `R`, `R` or `N` (retries allowed or not), the provider's ISPB, the creation date and 11 letters and digits. */
  private recId(politica: RetryPolicy, now: number): string {
    const unique = `${(this.sequence++).toString(36)}${randomBytes(8).toString('hex')}`.slice(0, 11).padEnd(11, '0');
    const retries = politica === RetryPolicy.NONE ? 'N' : 'R';
    return `R${retries}${SIMULATOR_ISPB}${day(now).replace(/-/g, '')}${unique}`;
  }
}
