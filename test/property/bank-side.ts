/**
 * The bank's side of the property harness: the simulator's engine called in process (no socket:
 * every answer reaches the handlers when the harness's scheduler says), the bank's ledger (every
 * state each subject held, and when), the actions a scenario takes at the bank, and the answers
 * the documents allow besides the simulator's own (a query that lags a change; extra fields).
 */
import type { BankConnectionSettings, BankCredentials as SecretCredentials } from '../../contracts/bank-connection';
import type { BankTransport, HttpRequest, HttpResponse } from '../../lambda/bank/http';
import { RecurringWebhookKind, RetryPolicy } from '../../contracts/pix-recurring';
import { SimulatorEngine } from '../../simulator/engine';
import type { OutgoingNotification } from '../../simulator/bank';
import { type Boleto, type Payment, situacaoText } from '../../simulator/model';
import { SAMPLE_ACCOUNT } from '../../simulator/simulator';
import { SAMPLE_PIX_KEYS } from '../../contracts/sandbox';
import type { RefundNature, RefundStatus } from '../../contracts/pix';
import { type PixBehaviour, STANDARD_PIX_BEHAVIOUR } from '../../simulator/pix/pix-behaviour';
import { pixOpenApiValidator } from '../support/pix-openapi';
import type { BankCredentials } from '../../simulator/tokens';
import { simulatorConnection } from '../support/simulator-connection';

export const BANK_ORIGIN = 'https://bank.simulated';
export const RECEIVER_ORIGIN = 'https://receiver.simulated';
export const PAYMENTS_TOKEN = 'PayTok3n-property-harness-0123456789abcdefghijklmnopqrstuv';
export const BOLETO_TOKEN = 'BoletoTok3n-property-harness-9876543210zyxwvutsrqponmlkjihg';
export const BOLETO_TOKEN_HEADER = 'X-Webhook-Token';

/** One state a subject held at the bank. */
export interface LedgerState {
  readonly at: number;
  /** What the query answers as the status: a boleto's `situacao` text, a payment's `status`. */
  readonly status: string;
  /** A settled boleto's amount, in cents. */
  readonly cents?: number;
}

/**
 * How the bank words its answers, within what the manual and its public clients allow: fields the
 * manual lists that an answer may leave out, fields it does not list (an API grows), and the boleto
 * query wrapped in `resultado` as some clients see it.
 */
export interface AnswerVariation {
  /** Query answer fields left out (of those the processor must not need). */
  readonly omitted: readonly string[];
  /** Add fields no document lists, at the top and inside nested objects. */
  readonly extraFields: boolean;
  /** Wrap the boleto query's answer in `resultado`. */
  readonly wrapped: boolean;
  /**
   * The Pix API's readings where the standard, its examples and providers differ (the simulator's
   * behaviour): `chave` left out of callbacks, a charge's `pix` list left out, `horario` as an
   * object, `devolucoes` as one object, `endToEndID`. @default the standard's
   */
  readonly pix?: Partial<PixBehaviour>;
  /**
   * Optional fields of the standard's `Pix` schema left out of every Pix a query answers (`GET
   * /pix/{e2eid}`, a listing, a charge's `pix[]`): `chave` left out leaves the Pix tied by its
   * charge's key, or by none. @default none
   */
  readonly pixOmitted?: readonly PixOptionalField[];
  /** A refund no reader can make sense of among every answered Pix's `devolucoes` (it is never published; its Pix still is). @default false */
  readonly pixGarbledRefund?: boolean;
  /**
   * How the provider answers its listings (`GET /pix`, `GET /cob`, `GET /cobv` by a window): at
   * most `pageCap` items a page whatever is asked (pages short of the ask), a page's content
   * repeated under the next page's number (`repeatPage`: the next page's items never shown), and
   * behind every Pix movement still lagging (`lag`: a Pix or a charge's conclusion appears late).
   * @default the standard's: what is asked, as it is now
   */
  readonly pixListing?: { readonly pageCap: number; readonly repeatPage: boolean; readonly lag: boolean };
}

/** Whether a Pix API request is a listing by window (`GET /pix`, `GET /cob`, `GET /cobv`). */
const isListing = (method: string, pathname: string): boolean =>
  method === 'GET' && /^\/api\/v[23]\/(pix|cob|cobv)\/?$/.test(pathname);

/** Optional fields of the standard's `Pix` a provider's query answer may leave out. */
export const PIX_OPTIONAL_FIELDS = ['chave', 'infoPagador'] as const;
export type PixOptionalField = (typeof PIX_OPTIONAL_FIELDS)[number];

/** The id of the refund {@link AnswerVariation.pixGarbledRefund} adds. */
export const GARBLED_REFUND_ID = 'Dgarbledbytheharness';

/** Whether the answers are the standard's own readings (what the OpenAPI judge holds them to). */
export function standardReadings(variation: AnswerVariation | undefined): boolean {
  return (
    !variation?.pixGarbledRefund &&
    Object.entries(variation?.pix ?? {}).every(
      ([name, value]) => STANDARD_PIX_BEHAVIOUR[name as keyof PixBehaviour] === value,
    )
  );
}

/** A Pix in a query answer as the variation writes it: optional fields left out, a garbled refund beside the others. */
function variedPix(pix: Record<string, unknown>, variation: AnswerVariation): Record<string, unknown> {
  const answer = Object.fromEntries(
    Object.entries(pix).filter(([key]) => !(variation.pixOmitted as readonly string[] | undefined)?.includes(key)),
  );
  if (!variation.pixGarbledRefund) return answer;
  const refunds =
    answer.devolucoes === undefined ? [] : Array.isArray(answer.devolucoes) ? answer.devolucoes : [answer.devolucoes];
  return {
    ...answer,
    devolucoes: [
      ...refunds,
      { id: GARBLED_REFUND_ID, status: 'DEVOLVIDO', valor: 'um real', horario: { solicitacao: 'ontem' } },
    ],
  };
}

/** A Pix API answer as the variation writes it: each Pix it holds (the answer itself, a listing's, a charge's). */
function variedPixAnswer(body: unknown, variation: AnswerVariation | undefined): unknown {
  if (!variation || !body || typeof body !== 'object' || Array.isArray(body)) return body;
  const o = body as Record<string, unknown>;
  if ('endToEndId' in o || 'endToEndID' in o) return variedPix(o, variation);
  return Array.isArray(o.pix)
    ? {
        ...o,
        pix: o.pix.map((p) => (p && typeof p === 'object' ? variedPix(p as Record<string, unknown>, variation) : p)),
      }
    : body;
}

/** Query answer fields the documents do not make certain: the harness may leave any of them out. */
export const OPTIONAL_ANSWER_FIELDS = [
  // The boleto query (the collection manual's flat answer).
  'linhaDigitavel',
  'codigoBarras',
  'carteira',
  'seuNumero',
  'pagador',
  'dataEmissao',
  'txId',
  'codigoQrCode',
  'multa',
  'abatimento',
  'tipoJuros',
  'juros',
  'diasProtesto',
  'validadeAposVencimento',
  'diasNegativacao',
  'tipoDesconto',
  'descontoAntecipacao',
  'descontos',
  // The payment query (public clients of the payments API).
  'idPagamentoPix',
  'dataCriacao',
  'motivoRejeicao',
  'chavePix',
  'nomeBeneficiario',
  'documentoBeneficiario',
  'ispbBeneficiario',
  'agenciaBeneficiario',
  'contaBeneficiario',
  'tipoContaBeneficiario',
  'mensagemPix',
  'identificadorPagamentoAssociado',
  'endToEnd',
] as const;

/** The answer as the variation words it. */
function varied(body: unknown, variation: AnswerVariation | undefined, boletoQuery: boolean): unknown {
  if (!variation || !body || typeof body !== 'object' || Array.isArray(body)) return body;
  const extra = (value: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries([
      ...Object.entries(value).map(([k, v]) => [
        k,
        v && typeof v === 'object' && !Array.isArray(v) ? extra(v as Record<string, unknown>) : v,
      ]),
      ['campoNaoDocumentado', { origem: 'harness', valor: 1 }],
    ]);
  let answer = Object.fromEntries(Object.entries(body).filter(([key]) => !variation.omitted.includes(key)));
  if (variation.extraFields) answer = extra(answer);
  return boletoQuery && variation.wrapped ? { resultado: answer } : answer;
}

/** A bank action a scenario takes. */
export type BankAction =
  | {
      readonly kind: 'boleto';
      readonly boleto: number;
      readonly act: 'settle' | 'reverse' | 'cancel';
      readonly cents?: number;
    }
  | {
      readonly kind: 'payment';
      readonly payment: number;
      readonly act: 'create' | 'settle' | 'reject' | 'reverse' | 'cancel';
    }
  | PixAction;

/**
 * A Pix movement at the provider (the standard Pix API): a Pix paid to a key (ours, or another
 * receiver's key of the account, whose webhook also points at our URL), a charge of ours paid
 * (`cob` or `cobv`), a Pix to the account by its details (no key), or a refund of a Pix received, asked for or made by the provider under MED,
 * reaching its final status.
 */
export type PixAction =
  | { readonly kind: 'pix'; readonly act: 'pay-key'; readonly key: 'ours' | 'other'; readonly txid: boolean }
  | { readonly kind: 'pix'; readonly act: 'pay-charge'; readonly charge: 'cob' | 'cobv' }
  /** By the account's details (no key): with a short txid it is called back to each URL of the account's keys; without, only the sweep finds it. */
  | { readonly kind: 'pix'; readonly act: 'pay-account'; readonly txid: boolean }
  /**
   * A recurring charge of Pix Automático paid (a recurrence created, approved, a charge issued; its
   * first attempt failed and retried when asked): a Pix to the account (no key) whose txid is the
   * charge's, called back at `/pix` to each URL of the account's keys.
   */
  | { readonly kind: 'pix'; readonly act: 'pay-recurring'; readonly failFirst: boolean }
  | {
      readonly kind: 'pix';
      readonly act: 'refund';
      readonly pix: number;
      readonly natureza: RefundNature;
      readonly status: RefundStatus.RETURNED | RefundStatus.NOT_DONE;
    };

/** The account's keys at the provider: ours (the receiver's) and another receiver's (whose webhook also names our URL). */
export const PIX_KEYS = { ours: SAMPLE_PIX_KEYS[1], other: SAMPLE_PIX_KEYS[2] } as const;
export const PIX_CREDENTIALS = {
  clientId: 'pix-client-property-harness',
  clientSecret: 'PixS3cret-property-harness',
} as const;

/** The subject ids the processor gives a boleto and a payment (its events' `subject.id`). */
export const boletoSubject = (nossoNumero: string) =>
  `boleto:${SAMPLE_ACCOUNT.beneficiario}:${nossoNumero.padStart(9, '0')}`;
export const paymentSubject = (idTransacao: string) => `payment:pix:${idTransacao}`;

/** The subject a notification body names (a boleto event, or a payment; one object, an array of one or `{"eventos": [...]}`), as the processor names it. */
export function subjectOfNotification(body: unknown): string | undefined {
  const list = body && typeof body === 'object' && 'eventos' in body ? body.eventos : body;
  const item = (Array.isArray(list) ? list[0] : list) as { nossoNumero?: string; idTransacao?: string } | undefined;
  if (item?.nossoNumero) return boletoSubject(item.nossoNumero);
  if (item?.idTransacao) return paymentSubject(item.idTransacao);
  return undefined;
}

const cents = (decimal: string) => Math.round(Number(decimal) * 100);

/** A query's path names its subject: the boleto's nossoNumero, or the payment's idTransacao. */
function subjectOfQuery(url: URL): string | undefined {
  const nossoNumero = url.searchParams.get('nossoNumero');
  if (url.pathname.endsWith('/boletos') && nossoNumero) return boletoSubject(nossoNumero);
  const payment = /\/pagamentos\/pix\/([^/]+)$/.exec(url.pathname);
  return payment ? paymentSubject(decodeURIComponent(payment[1])) : undefined;
}

/**
 * What a Pix API request reads, by its path: the Pix (`/pix/{e2eid}`, with a refund's path under
 * it) or the charge (`/cob/{txid}`, `/cobv/{txid}`) it names, for a lagging answer; and the
 * OpenAPI component its 200 answer is (the judge's).
 */
function pixRequest(pathname: string): { lagKey?: string; component?: string } {
  const rest = /^\/api\/v[23](\/.*)$/.exec(pathname)?.[1];
  if (!rest) return {};
  const refund = /^\/pix\/([^/]+)\/devolucao\/[^/]+$/.exec(rest);
  if (refund) return { lagKey: `pix:${decodeURIComponent(refund[1])}`, component: 'Devolucao' };
  const pix = /^\/pix\/([^/]+)$/.exec(rest);
  if (pix) return { lagKey: `pix:${decodeURIComponent(pix[1])}`, component: 'Pix' };
  if (/^\/pix\/?$/.test(rest)) return { component: 'PixConsultados' };
  const charge = /^\/(cob|cobv|cobr)\/([^/]+)$/.exec(rest);
  if (charge)
    return {
      lagKey: `charge:${decodeURIComponent(charge[2])}`,
      component: { cob: 'CobCompleta', cobv: 'CobVCompleta', cobr: 'CobRCompleta' }[charge[1]],
    };
  return {};
}

/** The provider's Pix books at one moment: the Pix and charges, and Pix Automático's. */
interface PixBooks {
  readonly pix: ReturnType<SimulatorEngine['pix']['exportState']>;
  readonly recurring: ReturnType<SimulatorEngine['recurring']['exportState']>;
}

/** The standard's OpenAPI as the judge, loaded once for every run. */
let judge: ReturnType<typeof pixOpenApiValidator> | undefined;
/** The body schema of a Pix callback in the standard's OpenAPI. */
export const PIX_CALLBACK_COMPONENT = 'requestBodies/WebhookPixBody/content/application~1json/schema';

export class BankSide {
  readonly engine: SimulatorEngine;
  readonly credentials: BankCredentials = {
    collection: {
      apiKey: 'api-key-property-harness',
      username: SAMPLE_ACCOUNT.beneficiario + SAMPLE_ACCOUNT.cooperativa,
      password: 'Passw0rd-property-harness',
    },
    payments: { clientId: 'client-property-harness', clientSecret: 'ClientS3cret-property-harness' },
    pix: PIX_CREDENTIALS,
  };
  /** The Pix received at the provider, by end-to-end id, oldest first. */
  readonly pixPaid: string[] = [];
  /** Every state each subject held, oldest first. */
  readonly ledger = new Map<string, LedgerState[]>();
  readonly boletos: string[] = [];
  readonly payments: string[] = [];
  /** Each notification's id: the subject it tells of and the ledger index of the state it announces. */
  readonly announced = new Map<string, { readonly subject: string; readonly index: number }>();
  /** The bank's state before each change, by subject: what a lagging query answers. */
  private readonly before = new Map<
    string,
    { until: number; state: ReturnType<SimulatorEngine['bank']['exportState']> }
  >();
  /** The provider's Pix books (its Pix and charges, and Pix Automático's) before each Pix movement, by `pix:<e2eid>` and `charge:<txid>`: what a lagging Pix query answers. */
  private readonly pixBefore = new Map<string, { until: number; state: PixBooks }>();
  /** Listing calls of verification by listing (a `GET /pix` window of a minute or less, `GET /cob`, `GET /cobv`). */
  bulkListings = 0;
  /** The provider's Pix books before each lagging Pix movement, oldest first: what a lagging listing answers. */
  private readonly listingBefore: { until: number; state: PixBooks }[] = [];
  /** What the standard's OpenAPI refused of the Pix answers and callbacks (judged under the standard's readings only). */
  readonly outsideStandard: string[] = [];
  private readonly judged: boolean;
  /** One call at a time: a lagging answer swaps the bank's state for the length of one request. */
  private busy: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly now: () => number,
    onNotification: (notification: OutgoingNotification) => void,
    private readonly variation?: AnswerVariation,
  ) {
    this.judged = standardReadings(variation);
    this.engine = new SimulatorEngine({
      accounts: [SAMPLE_ACCOUNT],
      credentials: this.credentials,
      mutualTls: false,
      ...(variation?.pix ? { behaviour: variation.pix } : {}),
      host: {
        info: () => {
          throw new Error('the harness has no control API');
        },
        deliveries: {
          submit: (notification) => {
            this.announce(notification);
            this.judge(
              PIX_CALLBACK_COMPONENT,
              `callback ${notification.subject}`,
              notification.kind === 'pix' && notification.url ? notification.body : undefined,
            );
            onNotification(notification);
          },
          records: () => [],
          clear: () => undefined,
          pending: 0,
          idle: async () => true,
        },
        trustCa: () => undefined,
      },
    });
    this.engine.bank.patchRegistration(SAMPLE_ACCOUNT, {
      urlCallback: `${RECEIVER_ORIGIN}/payments`,
      authorizationCallback: PAYMENTS_TOKEN,
    });
    // Our key's webhook names our URL; so does the other receiver's key's (anyone at the provider can point one at it).
    for (const chave of [PIX_KEYS.ours, PIX_KEYS.other])
      this.engine.pix.putWebhook(chave, { webhookUrl: RECEIVER_ORIGIN });
    // The account's Pix Automático webhooks name our URL too: the receiver for keyless Pix takes
    // them (pixRecurring); any other receiver asks nothing about their callbacks and publishes none.
    for (const kind of [RecurringWebhookKind.REC, RecurringWebhookKind.COBR])
      this.engine.recurring.webhooks.put(kind, { webhookUrl: RECEIVER_ORIGIN });
    this.engine.bank.createContract(
      {
        kind: 'collection',
        scopes: [],
        expiresAt: Number.MAX_SAFE_INTEGER,
        subject: this.credentials.collection.username,
      },
      {
        cooperativa: SAMPLE_ACCOUNT.cooperativa,
        posto: SAMPLE_ACCOUNT.posto,
        codBeneficiario: SAMPLE_ACCOUNT.beneficiario,
        eventos: ['LIQUIDACAO'],
        url: `${RECEIVER_ORIGIN}/boleto`,
        urlStatus: 'ATIVO',
        contratoStatus: 'ATIVO',
        header: BOLETO_TOKEN_HEADER,
        token: BOLETO_TOKEN,
      },
    );
  }

  /** Makes `count` open boletos (no notification: the bank notifies changes only). */
  openBoletos(count: number, valueCents: number): void {
    for (let i = 0; i < count; i++) {
      const boleto = this.engine.bank.createBoleto({ valor: (valueCents / 100).toFixed(2) });
      this.boletos.push(boleto.nossoNumero);
      this.record(boletoSubject(boleto.nossoNumero), boleto);
    }
  }

  /** The connection settings and credentials secret a handler reads. */
  connection(credentialsSecretArn: string): BankConnectionSettings {
    return simulatorConnection({ baseUrl: BANK_ORIGIN, accounts: [SAMPLE_ACCOUNT] }, credentialsSecretArn, {
      callTimeoutMs: 2_000,
      queriesPerSecond: 10,
    });
  }

  secretValue(): SecretCredentials {
    return {
      apiKey: this.credentials.collection.apiKey,
      password: this.credentials.collection.password,
      clientId: this.credentials.payments.clientId,
      clientSecret: this.credentials.payments.clientSecret,
    };
  }

  /** Every credential the bank knows and every token it issued: none may reach a log, an event or a dead letter. */
  secrets(): string[] {
    return [
      this.credentials.collection.apiKey,
      this.credentials.collection.password,
      this.credentials.payments.clientSecret,
      PIX_CREDENTIALS.clientSecret,
      PAYMENTS_TOKEN,
      BOLETO_TOKEN,
    ];
  }

  /**
   * Carries out an action at the bank: a change of a boleto or a payment, recorded in the ledger
   * and notified as the bank does. An action the subject's state does not allow (settling a
   * settled boleto) does nothing. `lagMs`: for that long, a query of the subject answers its state
   * from before.
   */
  async act(action: BankAction, lagMs: number): Promise<void> {
    await this.exclusive(async () => {
      const before = this.engine.bank.exportState();
      let subject: string | undefined;
      try {
        if (action.kind === 'pix') {
          await this.pixAct(action, lagMs);
        } else if (action.kind === 'boleto') {
          const nossoNumero = this.boletos[action.boleto % this.boletos.length];
          const input = action.act === 'settle' && action.cents ? { valor: (action.cents / 100).toFixed(2) } : {};
          const { boleto } = this.engine.bank.changeBoleto(nossoNumero, action.act, input);
          subject = boletoSubject(nossoNumero);
          this.record(subject, boleto);
        } else if (action.act === 'create') {
          const { payment } = this.engine.bank.createPayment({
            tipo: 'pix',
            valor: '123.45',
            idTransacao: `tx-${this.payments.length + 1}`,
          });
          this.payments.push(payment.idTransacao);
          subject = paymentSubject(payment.idTransacao);
          this.record(subject, payment);
        } else if (this.payments.length) {
          const id = this.payments[action.payment % this.payments.length];
          const { payment } = this.engine.bank.changePayment('pix', id, action.act);
          subject = paymentSubject(id);
          this.record(subject, payment);
        }
      } catch (error) {
        // The bank refuses an action its state does not allow (409): nothing changed, nothing notified.
        if ((error as { status?: number }).status !== 409) throw error;
      }
      if (subject && lagMs > 0) this.before.set(subject, { until: this.now() + lagMs, state: before });
    });
  }

  /** A Pix movement, through the simulator's control routes (its callbacks go out as the provider's). */
  private async pixAct(action: PixAction, lagMs: number): Promise<void> {
    // What a lagging query answers: the book before the Pix (or the refund); a charge is made well before it is paid, so not before the charge.
    let before = this.pixBooks();
    const lagging = (keys: readonly string[]) => {
      if (lagMs > 0) for (const key of keys) this.pixBefore.set(key, { until: this.now() + lagMs, state: before });
      if (lagMs > 0 && keys.length) this.listingBefore.push({ until: this.now() + lagMs, state: before });
    };
    const control = async (path: string, body: Record<string, unknown>) => {
      const reply = await this.engine.handle({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify(body)),
        certificate: { presented: false, trusted: false },
      });
      if (reply.status >= 300)
        throw Object.assign(new Error(`the Pix control route ${path} answered ${reply.status}`), {
          status: reply.status === 400 ? 409 : reply.status,
        });
      return reply.body as Record<string, unknown>;
    };
    const paid = (reply: Record<string, unknown>) => {
      for (const p of reply.pix as Array<{ endToEndId: string; txid?: string }>) {
        this.pixPaid.push(p.endToEndId);
        lagging([`pix:${p.endToEndId}`, ...(p.txid ? [`charge:${p.txid}`] : [])]);
      }
    };
    if (action.act === 'pay-key') {
      paid(
        await control(`/control/pix/keys/${encodeURIComponent(PIX_KEYS[action.key])}/pay`, {
          valor: '25.00',
          ...(action.txid ? { txid: `QR${this.pixPaid.length + 1}` } : {}),
        }),
      );
    } else if (action.act === 'pay-account') {
      paid(
        await control('/control/pix/account/pay', {
          valor: '30.00',
          ...(action.txid ? { txid: `CT${this.pixPaid.length + 1}` } : {}),
        }),
      );
    } else if (action.act === 'pay-recurring') {
      const rec = await control('/control/pix/recs', {
        valorRec: '45.00',
        politicaRetentativa: action.failFirst ? RetryPolicy.THREE_IN_SEVEN_DAYS : RetryPolicy.NONE,
      });
      await control(`/control/pix/recs/${rec.idRec as string}/approve`, {});
      const charge = await control(`/control/pix/recs/${rec.idRec as string}/charges`, {});
      if (action.failFirst) await control(`/control/pix/cobrs/${charge.txid as string}/fail`, {});
      before = this.pixBooks();
      const reply = await control(`/control/pix/cobrs/${charge.txid as string}/pay`, {});
      paid({ pix: [reply.paidPix] });
    } else if (action.act === 'pay-charge') {
      const charge = await control('/control/pix/charges', {
        kind: action.charge,
        chave: PIX_KEYS.ours,
        valor: '40.00',
      });
      before = this.pixBooks();
      paid(await control(`/control/pix/charges/${charge.txid as string}/pay`, {}));
    } else if (this.pixPaid.length) {
      const e2e = this.pixPaid[action.pix % this.pixPaid.length];
      const refund = await control(`/control/pix/${e2e}/refunds`, { valor: '1.00', natureza: action.natureza });
      await control(`/control/pix/${e2e}/refunds/${refund.id as string}/settle`, { status: action.status });
      lagging([`pix:${e2e}`]);
    }
  }

  private pixBooks(): PixBooks {
    return { pix: this.engine.pix.exportState(), recurring: this.engine.recurring.exportState() };
  }

  private restorePix(books: PixBooks): void {
    this.engine.pix.restoreState(books.pix);
    this.engine.recurring.restoreState(books.recurring);
  }

  /** A transport to the bank for one execution environment; `gate` is the harness's say on when each call is answered. */
  transport(gate: <T>(label: string, work: () => Promise<T>) => Promise<T>): BankTransport {
    return {
      send: (req) =>
        gate(`bank ${req.method} ${new URL(req.url).pathname}`, () => this.exclusive(() => this.answer(req))),
      close: () => undefined,
    };
  }

  private async answer(req: HttpRequest): Promise<HttpResponse> {
    const url = new URL(req.url);
    const subject = subjectOfQuery(url);
    const lagging = subject ? this.before.get(subject) : undefined;
    const current = lagging && lagging.until > this.now() ? this.engine.bank.exportState() : undefined;
    if (current) this.engine.bank.restoreState(lagging!.state);
    const pix = pixRequest(url.pathname);
    const asked = Number(url.searchParams.get('paginacao.paginaAtual') ?? 0);
    const windowMs = Date.parse(url.searchParams.get('fim') ?? '') - Date.parse(url.searchParams.get('inicio') ?? '');
    // Verification by listing's (the sweep reads whole days; only it reads the charges' listings).
    const bulk = isListing(req.method, url.pathname) && (!/\/pix\/?$/.test(url.pathname) || windowMs <= 60_000);
    if (bulk) this.bulkListings++;
    const listing = bulk ? this.variation?.pixListing : undefined;
    if (listing) {
      const size = Number(url.searchParams.get('paginacao.itensPorPagina') ?? 100);
      url.searchParams.set('paginacao.itensPorPagina', String(Math.min(size, listing.pageCap)));
      if (listing.repeatPage && asked > 0) url.searchParams.set('paginacao.paginaAtual', String(asked - 1));
    }
    const listingLag = listing?.lag ? this.listingBefore.find((entry) => entry.until > this.now()) : undefined;
    const pixLagging = pix.lagKey ? this.pixBefore.get(pix.lagKey) : listingLag;
    const pixCurrent = pixLagging && pixLagging.until > this.now() ? this.pixBooks() : undefined;
    if (pixCurrent) this.restorePix(pixLagging!.state);
    try {
      const reply = await this.engine.handle({
        method: req.method,
        url: url.pathname + url.search,
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), v])),
        body: Buffer.from(req.body ?? ''),
        certificate: { presented: false, trusted: false },
      });
      if (reply.status === 200 && pix.component) this.judge(pix.component, `${req.method} ${url.pathname}`, reply.body);
      const answer =
        reply.status !== 200
          ? reply.body
          : subject
            ? varied(reply.body, this.variation, subject.startsWith('boleto:'))
            : pix.component
              ? variedPixAnswer(reply.body, this.variation)
              : reply.body;
      // A repeated page comes back under the number asked for.
      if (listing?.repeatPage && asked > 0 && reply.status === 200)
        (answer as { parametros: { paginacao: { paginaAtual: number } } }).parametros.paginacao.paginaAtual = asked;
      const body = answer === undefined ? '' : typeof answer === 'string' ? answer : JSON.stringify(answer);
      return { status: reply.status, headers: { 'content-type': 'application/json', ...reply.headers }, body };
    } finally {
      if (current) this.engine.bank.restoreState(current);
      if (pixCurrent) this.restorePix(pixCurrent);
    }
  }

  /** Holds what the provider wrote to the standard's OpenAPI, under the standard's readings (the others differ from it on purpose). */
  private judge(component: string, what: string, body: unknown): void {
    if (!this.judged || body === undefined) return;
    judge ??= pixOpenApiValidator();
    const problems = judge(component, body);
    if (problems.length) this.outsideStandard.push(`${what} (${component}): ${problems.join('; ')}`);
  }

  /** The bank notifies a change before the harness records it: the state it announces is the next in the ledger. */
  private announce(notification: OutgoingNotification): void {
    const subject = subjectOfNotification(notification.body);
    if (subject) this.announced.set(notification.id, { subject, index: this.ledger.get(subject)?.length ?? 0 });
  }

  private record(subject: string, state: Boleto | Payment): void {
    const entry: LedgerState =
      'situacao' in state
        ? {
            at: this.now(),
            status: situacaoText(state),
            ...(state.liquidacao ? { cents: cents(state.liquidacao.valor) } : {}),
          }
        : { at: this.now(), status: state.status };
    const states = this.ledger.get(subject) ?? [];
    states.push(entry);
    this.ledger.set(subject, states);
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.busy.then(work, work);
    this.busy = run.catch(() => undefined);
    return run;
  }
}
