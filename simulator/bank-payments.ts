/**
 * The payments API's book of the simulated bank: the account's callback registration (spec 4.2)
 * and the payments it makes (Pix, boletos paid, taxes), each change notifying the callback.
 */
import { randomUUID } from 'node:crypto';
import {
  bankDateTime,
  decimalAmount,
  defaultPaymentDetails,
  PAYMENT_KINDS,
  PaymentStatus,
  type CallbackRegistration,
  type Payment,
  type PaymentKind,
  type SimulatorAccount,
  paymentBody,
} from './model';
import { controlError, paymentsError, validationErrors } from './errors';
import { type BankOptions, driftInput, isString, type OutgoingNotification } from './bank-common';

export type PaymentAction = 'settle' | 'reverse' | 'reject' | 'cancel';

export interface NewPaymentInput {
  readonly tipo: PaymentKind;
  readonly valor: string | number;
  readonly conta?: string;
  readonly cooperativa?: string;
  /** @default a new UUID */
  readonly idTransacao?: string;
  /** Overrides of the kind's descriptive fields (chavePix, nomeBeneficiario, codigoBarras, ...). */
  readonly details?: Readonly<Record<string, string>>;
}

export interface PaymentChangeInput {
  /** Reason recorded in `motivoRejeicao` (reject). */
  readonly motivo?: string;
}

const TRANSACTION_ID = /^[a-zA-Z0-9:-]{1,100}$/;
const accountKey = (cooperativa: string, conta: string) => `${cooperativa}/${conta}`;

/** The payments book's part of the bank's state. */
export interface PaymentsState {
  readonly registrations: ReadonlyArray<readonly [string, CallbackRegistration]>;
  readonly payments: readonly Payment[];
  readonly nextPaymentId: number;
}

/** Callback registrations and payments, by account. */
export class PaymentsBook {
  private readonly registrations = new Map<string, CallbackRegistration>();
  private readonly payments = new Map<string, Payment>();
  private nextPaymentId = 5001;

  constructor(private readonly options: BankOptions) {}

  exportState(): PaymentsState {
    return {
      registrations: [...this.registrations.entries()],
      payments: [...this.payments.values()],
      nextPaymentId: this.nextPaymentId,
    };
  }

  restoreState(state: PaymentsState): void {
    this.registrations.clear();
    for (const [key, registration] of state.registrations) this.registrations.set(key, registration);
    this.payments.clear();
    for (const payment of state.payments)
      this.payments.set(this.paymentKey(payment.kind, payment.idTransacao), payment);
    this.nextPaymentId = state.nextPaymentId;
  }

  accountFor(headers: { conta?: string; cooperativa?: string; documento?: string }): SimulatorAccount {
    const missing = (['conta', 'cooperativa', 'documento'] as const).filter((name) => !headers[name]);
    if (missing.length) {
      throw paymentsError(
        400,
        'CABECALHO_OBRIGATORIO',
        `Cabeçalho(s) obrigatório(s) ausente(s): ${missing.map((name) => `x-${name}`).join(', ')}.`,
      );
    }
    const account = this.options.accounts.find(
      (a) => a.conta === headers.conta && a.cooperativa === headers.cooperativa,
    );
    if (!account)
      throw paymentsError(
        404,
        'CONTA_NAO_ENCONTRADA',
        `Conta ${headers.conta} não encontrada na cooperativa ${headers.cooperativa}.`,
      );
    if (account.documento !== headers.documento) {
      throw paymentsError(403, 'DOCUMENTO_INVALIDO', 'O documento informado não pertence ao titular da conta.');
    }
    return account;
  }
  getRegistration(account: SimulatorAccount): CallbackRegistration {
    return {
      ...(this.registrations.get(accountKey(account.cooperativa, account.conta)) ?? {
        urlCallback: null,
        authorizationCallback: null,
      }),
    };
  }

  /** PATCH: both fields required; "" clears a value (spec 2.2). */
  patchRegistration(account: SimulatorAccount, body: unknown): CallbackRegistration {
    const problems: { field: string; message: string }[] = [];
    const input = (body && typeof body === 'object' && !Array.isArray(body) ? body : undefined) as
      Record<string, unknown> | undefined;
    if (!input)
      throw validationErrors(400, [
        { field: 'body', message: 'The body must be a JSON object with urlCallback and authorizationCallback.' },
      ]);
    for (const field of ['urlCallback', 'authorizationCallback']) {
      if (!(field in input)) problems.push({ field, message: `${field} is required; send "" to clear it.` });
      else if (!isString(input[field])) problems.push({ field, message: `${field} must be a string.` });
    }
    if (isString(input.urlCallback) && input.urlCallback !== '' && !/^https?:\/\/[^\s/]+/i.test(input.urlCallback)) {
      problems.push({ field: 'urlCallback', message: 'urlCallback must be an absolute URL.' });
    }
    if (problems.length) throw validationErrors(400, problems);
    const registration = {
      urlCallback: (input.urlCallback as string) || null,
      authorizationCallback: (input.authorizationCallback as string) || null,
    };
    this.registrations.set(accountKey(account.cooperativa, account.conta), registration);
    return { ...registration };
  }
  allRegistrations(): Array<CallbackRegistration & { conta: string; cooperativa: string }> {
    return [...this.registrations.entries()].map(([key, registration]) => {
      const [cooperativa, conta] = key.split('/');
      return { cooperativa, conta, ...registration };
    });
  }

  // ---- boleto webhook contract (spec 4.1) ----
  driftRegistration(cooperativa: string, conta: string, input: unknown): CallbackRegistration {
    const key = accountKey(cooperativa, conta);
    const registration = this.registrations.get(key);
    if (!registration)
      throw controlError(404, `No payment callback registration for cooperativa ${cooperativa}, conta ${conta}.`);
    const changes = driftInput(
      input,
      {
        urlCallback: (v) => v === null || (typeof v === 'string' && v.length > 0),
        authorizationCallback: (v) => v === null || typeof v === 'string',
      },
      'urlCallback and authorizationCallback take a string or null',
    );
    const next = { ...registration, ...changes };
    this.registrations.set(key, next);
    return { ...next };
  }
  private paymentKey(kind: string, id: string) {
    return `${kind}/${id}`;
  }
  createPayment(input: NewPaymentInput): { payment: Payment; notification?: OutgoingNotification } {
    if (!(PAYMENT_KINDS as readonly string[]).includes(input.tipo)) {
      throw controlError(400, `tipo must be one of ${PAYMENT_KINDS.join(', ')} (got ${JSON.stringify(input.tipo)}).`);
    }
    const valor = decimalAmount(input.valor);
    if (!valor)
      throw controlError(400, `valor must be a positive amount such as "250.75" (got ${JSON.stringify(input.valor)}).`);
    const idTransacao = input.idTransacao ?? randomUUID();
    if (!TRANSACTION_ID.test(idTransacao))
      throw controlError(400, `idTransacao must match [a-zA-Z0-9:-]{1,100} (got ${idTransacao}).`);
    if (this.payments.has(this.paymentKey(input.tipo, idTransacao)))
      throw controlError(409, `A ${input.tipo} payment ${idTransacao} already exists.`);
    const account = this.options.accounts.find(
      (a) => a.conta === (input.conta ?? a.conta) && a.cooperativa === (input.cooperativa ?? a.cooperativa),
    );
    if (!account)
      throw controlError(404, `No account ${input.cooperativa ?? '*'}/${input.conta ?? '*'} in the simulator.`);
    const payment: Payment = {
      kind: input.tipo,
      idTransacao,
      numericId: this.nextPaymentId++,
      conta: account.conta,
      cooperativa: account.cooperativa,
      valor,
      createdAt: bankDateTime(this.options.now()),
      status: PaymentStatus.RECEIVED,
      details: { ...defaultPaymentDetails(input.tipo, idTransacao), ...input.details },
    };
    this.payments.set(this.paymentKey(payment.kind, idTransacao), payment);
    const notification = this.options.notifyPaymentReceived === false ? undefined : this.notifyPayment(payment);
    return { payment: { ...payment }, notification };
  }
  getPayment(kind: string, id: string): Payment {
    const payment = this.payments.get(this.paymentKey(kind, id));
    if (!payment) throw controlError(404, `No ${kind} payment ${id}.`);
    return payment;
  }

  /** GET {registration_base_url}/v1/pagamentos/{kind}/{id} for the account of the headers. */
  queryPayment(account: SimulatorAccount, kind: string, id: string): Payment {
    if (!TRANSACTION_ID.test(id))
      throw paymentsError(
        400,
        'ID_INVALIDO',
        `Identificador de transação inválido: deve seguir o padrão [a-zA-Z0-9:-]{1,100}.`,
      );
    const payment = this.payments.get(this.paymentKey(kind, id));
    if (!payment || payment.conta !== account.conta || payment.cooperativa !== account.cooperativa) {
      throw paymentsError(404, 'PAGAMENTO_NAO_ENCONTRADO', `Pagamento ${id} não encontrado.`);
    }
    return payment;
  }
  changePayment(
    kind: string,
    id: string,
    action: PaymentAction,
    input: PaymentChangeInput = {},
  ): { payment: Payment; notification: OutgoingNotification } {
    const payment = this.getPayment(kind, id);
    const from = (...statuses: string[]) => {
      if (!statuses.includes(payment.status))
        throw controlError(
          409,
          `Cannot ${action} ${kind} payment ${id}: its status is ${payment.status}, not ${statuses.join(' or ')}.`,
        );
    };
    switch (action) {
      case 'settle':
        from(PaymentStatus.RECEIVED);
        payment.status = PaymentStatus.SETTLED;
        payment.dataPagamento = bankDateTime(this.options.now());
        break;
      case 'reject':
        from(PaymentStatus.RECEIVED);
        payment.status = PaymentStatus.REJECTED;
        payment.motivoRejeicao = input.motivo ?? 'Saldo insuficiente';
        break;
      case 'cancel':
        from(PaymentStatus.RECEIVED);
        payment.status = PaymentStatus.CANCELLED;
        break;
      case 'reverse':
        from(PaymentStatus.SETTLED);
        payment.status = PaymentStatus.REVERSED;
        break;
      default:
        throw controlError(404, `Unknown payment action ${String(action)}; use settle, reverse, reject or cancel.`);
    }
    return { payment: { ...payment }, notification: this.notifyPayment(payment) };
  }
  private notifyPayment(payment: Payment): OutgoingNotification {
    const registration = this.registrations.get(accountKey(payment.cooperativa, payment.conta));
    const body = paymentBody(payment);
    const notification: OutgoingNotification = {
      id: randomUUID(),
      kind: 'payment',
      subject: `${payment.kind} ${payment.idTransacao} ${payment.status}`,
      body,
      ...(registration?.urlCallback
        ? {
            url: registration.urlCallback,
            authHeader: registration.authorizationCallback
              ? { name: 'Authorization', value: registration.authorizationCallback }
              : undefined,
          }
        : { skipped: `no urlCallback registered for conta ${payment.conta} of cooperativa ${payment.cooperativa}` }),
    };
    this.options.notify(notification);
    return notification;
  }
}
