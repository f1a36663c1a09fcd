/**
 * The simulator's control API (`/control/...`): make boletos and payments and change them (each
 * change notifies as the bank would), read the deliveries, set faults and behaviour, move the
 * clock, drift registrations as the bank does on its own, trust another CA. Not the bank's.
 */
import type { BoletoAction, PaymentAction } from './bank';
import type { Bank } from './bank';
import type { BankBehaviour } from './behaviour';
import { controlError } from './errors';
import type { FaultInjector, SimulatorFaults } from './faults';
import { paymentBody } from './model';
import { type Call, parseJson, type Route, type SimulatorHost, type SimulatorReply } from './routes';

/** What the control API works on: the engine's state and its setters. */
export interface ControlRouteParts {
  readonly bank: Bank;
  readonly host: SimulatorHost;
  readonly faults: FaultInjector;
  readonly behaviour: () => BankBehaviour;
  /** Changes some readings (checked; throws naming every problem). */
  readonly setBehaviour: (changes: Partial<BankBehaviour>) => BankBehaviour;
  /** Back to the manual's readings; returns them. */
  readonly resetBehaviour: () => BankBehaviour;
  readonly setFaults: (faults: SimulatorFaults) => void;
  /** Moves the simulated clock on; returns the whole offset in seconds. */
  readonly advanceClock: (seconds: number) => number;
}

/** A control call's body: a JSON object, `{}` when empty; anything else a control error. */
export function controlJson(call: Call): Record<string, unknown> {
  if (call.raw.length === 0) return {};
  const value = parseJson(call, (message) => controlError(400, message));
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw controlError(400, 'The body must be a JSON object.');
  return value as Record<string, unknown>;
}

/** The control API's routes. */
export function controlRoutes(p: ControlRouteParts): Route[] {
  const json = controlJson;
  const ok = (body: unknown, status = 200): SimulatorReply => ({ status, body });
  const boletoView = (nossoNumero: string) => {
    const boleto = p.bank.getBoleto(nossoNumero);
    return { ...boleto, liquidacao: boleto.liquidacao ?? null };
  };
  return [
    { method: 'GET', path: /^\/control\/info\/?$/, handle: () => ok(p.host.info()) },
    {
      method: 'POST',
      path: /^\/control\/boletos\/?$/,
      handle: (call) => ok(p.bank.createBoleto(json(call) as never), 201),
    },
    { method: 'GET', path: /^\/control\/boletos\/([^/]+)\/?$/, handle: (call) => ok(boletoView(call.params[0])) },
    {
      method: 'POST',
      path: /^\/control\/boletos\/([^/]+)\/(settle|reverse|reject|cancel)\/?$/,
      handle: (call) => {
        const { notification } = p.bank.changeBoleto(call.params[0], call.params[1] as BoletoAction, json(call));
        return ok({
          boleto: boletoView(call.params[0]),
          notificationId: notification.id,
          notification: notification.body,
          skipped: notification.skipped ?? null,
        });
      },
    },
    {
      method: 'POST',
      path: /^\/control\/payments\/?$/,
      handle: (call) => {
        const { payment, notification } = p.bank.createPayment(json(call) as never);
        return ok(
          {
            payment: paymentBody(payment),
            tipo: payment.kind,
            notificationId: notification?.id ?? null,
            skipped: notification?.skipped ?? null,
          },
          201,
        );
      },
    },
    {
      method: 'GET',
      path: /^\/control\/payments\/([^/]+)\/([^/]+)\/?$/,
      handle: (call) =>
        ok({
          payment: paymentBody(p.bank.getPayment(call.params[0], decodeURIComponent(call.params[1]))),
          tipo: call.params[0],
        }),
    },
    {
      method: 'POST',
      path: /^\/control\/payments\/([^/]+)\/([^/]+)\/(settle|reverse|reject|cancel)\/?$/,
      handle: (call) => {
        const { payment, notification } = p.bank.changePayment(
          call.params[0],
          decodeURIComponent(call.params[1]),
          call.params[2] as PaymentAction,
          json(call),
        );
        return ok({
          payment: paymentBody(payment),
          tipo: payment.kind,
          notificationId: notification.id,
          skipped: notification.skipped ?? null,
        });
      },
    },
    {
      method: 'GET',
      path: /^\/control\/deliveries\/?$/,
      handle: (call) =>
        ok({
          deliveries: p.host.deliveries.records(Number(call.url.searchParams.get('after') ?? 0) || 0),
          pending: p.host.deliveries.pending,
        }),
    },
    {
      method: 'DELETE',
      path: /^\/control\/deliveries\/?$/,
      handle: () => (p.host.deliveries.clear(), { status: 204 }),
    },
    {
      method: 'POST',
      path: /^\/control\/deliveries\/wait\/?$/,
      handle: async (call) => {
        const timeoutMs = Number(json(call).timeoutMs ?? 30_000);
        if (!(timeoutMs >= 0 && timeoutMs <= 600_000))
          throw controlError(400, 'timeoutMs must be between 0 and 600000.');
        const idle = await p.host.deliveries.idle(timeoutMs);
        return ok({ idle, pending: p.host.deliveries.pending });
      },
    },
    { method: 'GET', path: /^\/control\/faults\/?$/, handle: () => ok(p.faults.current) },
    { method: 'GET', path: /^\/control\/behaviour\/?$/, handle: () => ok(p.behaviour()) },
    {
      method: 'PUT',
      path: /^\/control\/behaviour\/?$/,
      handle: (call) => {
        try {
          return ok(p.setBehaviour(json(call)));
        } catch (error) {
          throw controlError(400, (error as Error).message);
        }
      },
    },
    { method: 'DELETE', path: /^\/control\/behaviour\/?$/, handle: () => ok(p.resetBehaviour()) },
    {
      method: 'PUT',
      path: /^\/control\/faults\/?$/,
      handle: (call) => {
        try {
          p.setFaults(json(call));
        } catch (error) {
          throw controlError(400, (error as Error).message);
        }
        return ok(p.faults.current);
      },
    },
    { method: 'GET', path: /^\/control\/api-calls\/?$/, handle: () => ok(p.faults.counts) },
    { method: 'DELETE', path: /^\/control\/faults\/?$/, handle: () => (p.setFaults({}), { status: 204 }) },
    {
      method: 'POST',
      path: /^\/control\/clock\/?$/,
      handle: (call) => {
        const seconds = json(call).advanceSeconds;
        if (!(typeof seconds === 'number' && seconds >= 0))
          throw controlError(400, 'advanceSeconds must be a number >= 0.');
        return ok({ offsetSeconds: p.advanceClock(seconds) });
      },
    },
    { method: 'GET', path: /^\/control\/contracts\/?$/, handle: () => ok({ contracts: p.bank.allContracts() }) },
    {
      method: 'GET',
      path: /^\/control\/registrations\/?$/,
      handle: () => ok({ registrations: p.bank.allRegistrations() }),
    },
    // The bank changing a registration on its own: deactivated, blocked, re-pointed (cdk-bank-webhooks/docs/bank-api.md).
    {
      method: 'PATCH',
      path: /^\/control\/contracts\/(\d+)\/?$/,
      handle: (call) => ok(p.bank.driftContract(Number(call.params[0]), json(call))),
    },
    {
      method: 'PATCH',
      path: /^\/control\/registrations\/([^/]+)\/([^/]+)\/?$/,
      handle: (call) =>
        ok(
          p.bank.driftRegistration(decodeURIComponent(call.params[0]), decodeURIComponent(call.params[1]), json(call)),
        ),
    },
    {
      method: 'POST',
      path: /^\/control\/trusted-cas\/?$/,
      handle: (call) => {
        const pem = json(call).pem;
        if (typeof pem !== 'string' || !pem.includes('-----BEGIN CERTIFICATE-----'))
          throw controlError(400, 'pem must be a PEM certificate.');
        p.host.trustCa(pem);
        return { status: 204 };
      },
    },
  ];
}
