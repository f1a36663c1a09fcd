import { Agent } from 'node:https';
import type { BoletoChangeInput, NewBoletoInput, NewPaymentInput, PaymentChangeInput } from './bank';
import type { BankBehaviour } from './behaviour';
import type { ApiCallCounts, SimulatorFaults } from './faults';
import { httpCall } from './https-client';
import type { Boleto, CallbackRegistration, Contract, PaymentKind } from './model';
import type { DeliveryRecord } from './notifier';
import type { SimulatorInfo } from './info';
import { PixControlClient } from './pix/pix-control-client';

/** One control call: the method, the path under /control, the JSON body. */
export interface ControlCall {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly timeoutMs: number;
}

/** The control API's answer: its status and parsed JSON body. */
export interface ControlAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** Carries a control call to a simulator and brings back its answer. */
export type ControlTransport = (call: ControlCall) => Promise<ControlAnswer>;

/** An error answer of the control API. */
export class SimulatorControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'SimulatorControlError';
  }
}

export type BoletoView = Omit<Boleto, 'liquidacao'> & { liquidacao: Boleto['liquidacao'] | null };

export interface BoletoChange {
  readonly boleto: BoletoView;
  readonly notificationId: string;
  /** The event as sent (an object, or an array with `boletoNotificationShape: 'array'`). */
  readonly notification: unknown;
  /** Why nothing was sent, when nothing was. */
  readonly skipped: string | null;
}

export interface PaymentChange {
  /** The payment as the query API answers it (and as its notification carries it). */
  readonly payment: Record<string, unknown> & { idTransacao: string; status: string; valorPagamento: string };
  readonly tipo: PaymentKind;
  readonly notificationId: string | null;
  readonly skipped: string | null;
}

/**
 * A typed client of the simulator's control API: works against an in-process simulator
 * (`simulator.control`) and against `npx cdk-bank-webhooks simulate` alike.
 */
export class BankSimulatorClient {
  /**
   * @param baseUrl the simulator's origin, e.g. https://127.0.0.1:8443
   * @param caPem the simulator's CA certificate (its `ca.crt`)
   */
  constructor(
    readonly baseUrl: string,
    private readonly caPem: string,
  ) {}

  /**
   * A client of a simulator reached some other way than HTTPS: a deployed one (BankSandbox) takes
   * control calls by Lambda Invoke only, so `send` invokes its function with
   * `{"sandboxControl": {method, path, body}}` and returns the `{status, body}` it answers
   * (docs/sandbox.md shows one with the AWS SDK).
   */
  static withTransport(send: ControlTransport, name = 'a deployed bank simulator'): BankSimulatorClient {
    const client = new BankSimulatorClient(name, '');
    client.transport = send;
    return client;
  }

  private transport?: ControlTransport;

  /**
   * Kept-alive connections to the control API. Idle ones never hold the process open, and are
   * closed after 4 s, before the server's 5 s keep-alive timeout could close one under a call.
   */
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 16, timeout: 4_000 });

  /** Closes the kept-alive connections. */
  /** The control API's Pix part: charges, Pix received, refunds, another customer's Pix, the validation call. */
  readonly pix = new PixControlClient((method, path, body) => this.call(method, path, body));

  close(): void {
    this.agent.destroy();
  }

  private async call<T>(method: string, path: string, body?: unknown, timeoutMs = 30_000): Promise<T> {
    const answer = this.transport
      ? await this.transport({ method, path, body, timeoutMs })
      : await this.overHttps(method, path, body, timeoutMs);
    if (answer.status >= 400) {
      const error = (answer.body as { error?: unknown } | null | undefined)?.error;
      const message =
        typeof error === 'string' ? error : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      throw new SimulatorControlError(answer.status, `${method} /control${path}: HTTP ${answer.status}: ${message}`);
    }
    return (answer.body ?? undefined) as T;
  }

  private async overHttps(method: string, path: string, body: unknown, timeoutMs: number): Promise<ControlAnswer> {
    const result = await httpCall(`${this.baseUrl}/control${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      trustedCas: [this.caPem],
      timeoutMs,
      agent: this.agent,
    });
    let parsed: unknown = result.body;
    try {
      parsed = result.body ? JSON.parse(result.body) : undefined;
    } catch {
      // keep the raw body
    }
    return { status: result.status, body: parsed };
  }

  info(): Promise<SimulatorInfo> {
    return this.call('GET', '/info');
  }

  createBoleto(input: NewBoletoInput): Promise<BoletoView> {
    return this.call('POST', '/boletos', input);
  }

  getBoleto(nossoNumero: string): Promise<BoletoView> {
    return this.call('GET', `/boletos/${encodeURIComponent(nossoNumero)}`);
  }

  settleBoleto(nossoNumero: string, input: BoletoChangeInput = {}): Promise<BoletoChange> {
    return this.call('POST', `/boletos/${encodeURIComponent(nossoNumero)}/settle`, input);
  }

  reverseBoleto(nossoNumero: string, input: BoletoChangeInput = {}): Promise<BoletoChange> {
    return this.call('POST', `/boletos/${encodeURIComponent(nossoNumero)}/reverse`, input);
  }

  rejectBoleto(nossoNumero: string): Promise<BoletoChange> {
    return this.call('POST', `/boletos/${encodeURIComponent(nossoNumero)}/reject`, {});
  }

  cancelBoleto(nossoNumero: string): Promise<BoletoChange> {
    return this.call('POST', `/boletos/${encodeURIComponent(nossoNumero)}/cancel`, {});
  }

  createPayment(input: NewPaymentInput): Promise<PaymentChange> {
    return this.call('POST', '/payments', input);
  }

  getPayment(tipo: PaymentKind, idTransacao: string): Promise<Omit<PaymentChange, 'notificationId' | 'skipped'>> {
    return this.call('GET', `/payments/${tipo}/${encodeURIComponent(idTransacao)}`);
  }

  settlePayment(tipo: PaymentKind, idTransacao: string): Promise<PaymentChange> {
    return this.call('POST', `/payments/${tipo}/${encodeURIComponent(idTransacao)}/settle`, {});
  }

  reversePayment(tipo: PaymentKind, idTransacao: string): Promise<PaymentChange> {
    return this.call('POST', `/payments/${tipo}/${encodeURIComponent(idTransacao)}/reverse`, {});
  }

  rejectPayment(tipo: PaymentKind, idTransacao: string, input: PaymentChangeInput = {}): Promise<PaymentChange> {
    return this.call('POST', `/payments/${tipo}/${encodeURIComponent(idTransacao)}/reject`, input);
  }

  cancelPayment(tipo: PaymentKind, idTransacao: string): Promise<PaymentChange> {
    return this.call('POST', `/payments/${tipo}/${encodeURIComponent(idTransacao)}/cancel`, {});
  }

  /** The delivery log (after `afterSeq`, when given). */
  async deliveries(afterSeq = 0): Promise<DeliveryRecord[]> {
    return (await this.call<{ deliveries: DeliveryRecord[] }>('GET', `/deliveries?after=${afterSeq}`)).deliveries;
  }

  clearDeliveries(): Promise<void> {
    return this.call('DELETE', '/deliveries');
  }

  /** Waits until no delivery is held or in flight; returns false if `timeoutMs` passed first. */
  async waitForDeliveries(timeoutMs = 30_000): Promise<boolean> {
    return (await this.call<{ idle: boolean }>('POST', '/deliveries/wait', { timeoutMs }, timeoutMs + 10_000)).idle;
  }

  setFaults(faults: SimulatorFaults): Promise<SimulatorFaults> {
    return this.call('PUT', '/faults', faults);
  }

  /** API calls answered per part, and how many were refused with 429 for the rate limit, since faults were last set or cleared. */
  apiCallCounts(): Promise<ApiCallCounts> {
    return this.call('GET', '/api-calls');
  }

  clearFaults(): Promise<void> {
    return this.call('DELETE', '/faults');
  }

  /** The readings in force where the manual and clients differ (see docs/simulator.md). */
  behaviour(): Promise<BankBehaviour> {
    return this.call('GET', '/behaviour');
  }

  /** Changes some readings; the others stay. */
  setBehaviour(changes: Partial<BankBehaviour>): Promise<BankBehaviour> {
    return this.call('PUT', '/behaviour', changes);
  }

  /** Back to the manual's readings. */
  resetBehaviour(): Promise<BankBehaviour> {
    return this.call('DELETE', '/behaviour');
  }

  /** The bank changes a boleto webhook contract on its own: `urlStatus`, `contratoStatus` (ATIVO, INATIVO, BLOQUEADO), `url`, `token`. */
  changeContract(
    idContrato: number,
    changes: { urlStatus?: string; contratoStatus?: string; url?: string; token?: string },
  ): Promise<Record<string, unknown>> {
    return this.call('PATCH', `/contracts/${idContrato}`, changes);
  }

  /** The bank re-points or clears an account's payment callback on its own. */
  changeRegistration(
    cooperativa: string,
    conta: string,
    changes: { urlCallback?: string | null; authorizationCallback?: string | null },
  ): Promise<Record<string, unknown>> {
    return this.call(
      'PATCH',
      `/registrations/${encodeURIComponent(cooperativa)}/${encodeURIComponent(conta)}`,
      changes,
    );
  }

  /** Moves the bank's clock forward (tokens expire by it). */
  advanceClock(seconds: number): Promise<{ offsetSeconds: number }> {
    return this.call('POST', '/clock', { advanceSeconds: seconds });
  }

  async contracts(): Promise<Contract[]> {
    return (await this.call<{ contracts: Contract[] }>('GET', '/contracts')).contracts;
  }

  async registrations(): Promise<Array<CallbackRegistration & { conta: string; cooperativa: string }>> {
    return (
      await this.call<{ registrations: Array<CallbackRegistration & { conta: string; cooperativa: string }> }>(
        'GET',
        '/registrations',
      )
    ).registrations;
  }

  /** Makes the notifier trust a CA (PEM), e.g. a local receiver's. */
  trustCa(pem: string): Promise<void> {
    return this.call('POST', '/trusted-cas', { pem });
  }
}
